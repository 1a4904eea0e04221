/**
 * The schemas of what parking reads back: the park record (local or shared) and the local park file with its step
 * journal. A record platctl does not fully understand is never acted on and never overwritten: an unknown version,
 * a missing or wrong-typed field, a size that is not a whole number (`"2"` is not 2), sizes out of order, or a record
 * of another environment or cluster. {@link checkRecord} and {@link checkParkFile} say what is wrong, naming the
 * field, and how to repair it.
 */
import type { Failure, Result } from '../config/result.js';
import { ok } from '../config/result.js';
import * as z from '../config/zod.js';
import type { ParkFile, ParkRecord } from './record-types.js';

/** The only version this platctl reads and writes. */
const VERSION = 1;

const whole = (what: string) =>
  z.number({ error: `${what} must be a whole number (a JSON number, not a string)` }).int({
    error: `${what} must be a whole number`,
  });
const size = z
  .strictObject({ min: whole('min').min(0), max: whole('max').min(1), desired: whole('desired').min(0) })
  .refine((s) => s.min <= s.desired && s.desired <= s.max, {
    error: 'sizes out of order: need min <= desired <= max',
  });
const who = z.strictObject({ host: z.string(), user: z.string() });
/** A Kubernetes object as recorded: anything, with a name. */
const kubeObject = z.looseObject({ metadata: z.looseObject({ name: z.string().min(1) }) });

const recordSchema = z.strictObject({
  version: z.literal(VERSION),
  env: z.string().min(1),
  cluster: z.string().min(1),
  status: z.enum(['parked', 'unparked']),
  parked_at: z.string().min(1),
  parked_by: z.strictObject({ host: z.string(), user: z.string(), arn: z.string().optional() }),
  node_groups: z.record(z.string().min(1), size),
  karpenter: z.strictObject({ nodepools: z.array(kubeObject), ec2nodeclasses: z.array(kubeObject) }),
  bastions: z.array(z.strictObject({ id: z.string().min(1), state: z.string() })),
  argocd: z.strictObject({
    namespace: z.string().min(1),
    apps: z.array(z.strictObject({ name: z.string().min(1), automated: z.unknown() })),
  }),
  unparked_at: z.string().optional(),
  unparked_by: who.optional(),
});

const step = z.strictObject({
  status: z.enum(['pending', 'running', 'completed', 'failed']),
  started_at: z.string().optional(),
  ended_at: z.string().optional(),
  duration_ms: z.number().optional(),
  detail: z.string().optional(),
  reason: z.string().optional(),
});
const operation = z.strictObject({
  op: z.enum(['down', 'up']),
  started_at: z.string(),
  by: who,
  status: z.enum(['running', 'completed', 'failed']),
  ended_at: z.string().optional(),
  stopped_because: z.string().optional(),
  resumes: z.number().int().min(0),
  steps: z.record(z.string(), step),
});
const fileSchema = z.strictObject({
  version: z.literal(VERSION),
  env: z.string().min(1),
  record: z.unknown().optional(),
  record_location: z.string().optional(),
  last: operation.optional(),
  durations_ms: z.record(z.string(), z.number()).optional(),
});

/**
 * Why a record or park file was refused, and what to do: the one result type's failure (config/result.ts), always
 * with a hint (how to repair it).
 */
export type Refusal = Failure<'invalid-record'> & { readonly hint: string };

function refused(message: string, hint: string): Refusal {
  return { ok: false, reason: 'invalid-record', message, hint };
}

/** Which environment (and cluster, when known) a record read for `env` must belong to. */
export interface RecordOwner {
  readonly env: string;
  readonly cluster?: string | undefined;
}

/** Where a record was read, for the repair hint: the local park file (the only copy) or a shared S3 object. */
export type RecordPlace = 'local' | 'shared';

function issues(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const lines = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String).join('.');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  const more = error.issues.length > 5 ? `; and ${error.issues.length - 5} more` : '';
  return `${lines.join('; ')}${more}`;
}

/** How to repair a record at `where`; the local park file without a shared copy is the only record of the sizes. */
export function repairHint(where: string, place: RecordPlace, env: string): string {
  const never = 'platctl neither acts on it nor overwrites it';
  if (place === 'shared') {
    return (
      `download it (aws s3 cp ${where} record.json), repair it to the form in docs/park.md ("The record"), with ` +
      `whole-number sizes from before parking, and upload it again; do not delete it while ${env} is parked: it holds ` +
      `the sizes up restores; ${never}`
    );
  }
  return (
    `repair it by hand to the form in docs/park.md ("The record"), with whole-number sizes from before parking; do ` +
    `not delete it while ${env} is parked: it is the only record of the sizes up restores. If it cannot be repaired, ` +
    `move it aside (mv ${where} ${where}.damaged) and record the sizes again with platctl down --env ${env} ` +
    `--restore-size GROUP=MIN/MAX/DESIRED (once per node group); ${never}`
  );
}

/** `value` as a park record of `owner`, or why it is not one. */
export function checkRecord(
  value: unknown,
  where: string,
  owner: RecordOwner,
  place: RecordPlace,
): Result<ParkRecord, Refusal> {
  const hint = repairHint(where, place, owner.env);
  const parsed = parseVersioned(recordSchema, value, where, 'park record', hint);
  if (!parsed.ok) return parsed;
  const record = parsed.value as ParkRecord;
  if (record.env !== owner.env) {
    return refused(
      `${where} is the park record of environment ${record.env}, not of ${owner.env}`,
      `put the record of ${owner.env} back at ${where} (the other environment's record was copied there?); ${hint}`,
    );
  }
  if (owner.cluster !== undefined && record.cluster !== owner.cluster) {
    return refused(
      `${where} records cluster ${record.cluster}, but environments.${owner.env}.cluster.name is ` +
        `${owner.cluster}: it is not this cluster's record`,
      `if the cluster was renamed, repair the record's cluster field; else put the record of ${owner.cluster} back; ${hint}`,
    );
  }
  return ok(record);
}

/** `value` as the local park file of `owner.env`, its record checked too, or why it is not one. */
export function checkParkFile(value: unknown, where: string, owner: RecordOwner): Result<ParkFile, Refusal> {
  const hint = repairHint(where, 'local', owner.env);
  const parsed = parseVersioned(fileSchema, value, where, 'park file', hint);
  if (!parsed.ok) return parsed;
  const { record, ...rest } = parsed.value;
  if (rest.env !== owner.env) {
    return refused(
      `${where} is the park file of environment ${rest.env}, not of ${owner.env}`,
      `move it back to .platctl-park/${rest.env}.json; ${hint}`,
    );
  }
  const file: ParkFile = { ...(rest as Omit<ParkFile, 'durations_ms'>), durations_ms: rest.durations_ms ?? {} };
  if (record === undefined) return ok(file);
  const checked = checkRecord(record, `${where} (its record)`, owner, 'local');
  if (!checked.ok) return { ...checked, hint };
  file.record = checked.value;
  return ok(file);
}

/**
 * `value` parsed by `schema`, or why not: a version other than this platctl's is named as such (the platctl that wrote
 * it reads it), anything else the schema refuses is listed. `what` names it in the message: `park record`.
 */
function parseVersioned<T>(
  schema: z.ZodType<T>,
  value: unknown,
  where: string,
  what: string,
  hint: string,
): Result<T, Refusal> {
  const version = versionOf(value);
  if (version !== undefined && version !== VERSION) {
    return refused(
      `${where} is a ${what} of version ${JSON.stringify(version)}; this platctl reads version ${VERSION} only`,
      `run the platctl that wrote it, or ${hint}`,
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    return refused(`${where} is not a ${what} platctl understands: ${issues(parsed.error)}`, hint);
  }
  return ok(parsed.data);
}

function versionOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'version' in value
    ? value.version
    : undefined;
}
