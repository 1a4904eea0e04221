/**
 * The park section of `platctl status` (the rest of status is in cli/status.ts, which calls this), and the guard
 * that keeps `platctl bootstrap` off a parked environment.
 */
import type { EnvVars } from '../cloud/env.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { Graph, UnitId } from '../engine/graph.js';
import type { RunState } from '../engine/state.js';
import { RecordStore, asideRefusal, parkFilePath } from '../park/record.js';
import type { ParkView } from '../park/status.js';
import { parkFiles, unknownParkSentence } from '../park/status.js';
import { parkRecordPlaces, stateStore } from './shared-state.js';
import type { CliIo } from './verb.js';
import { EXIT } from './verb.js';

/**
 * The park state of every environment with a park record, shared or local, for status. Where a record is shared
 * (docs/park.md) the shared one is the truth: another runner (a cron elsewhere, CI) may have parked the environment
 * or brought it back, so it is read there, through the same store as bootstrap's guard; a record that cannot be read
 * there is unknown, never guessed from the local copy. The step journal is always the local file's (it is not
 * shared). `config` is undefined when status did not load `.platctl.yaml` because nothing in it can be shared:
 * then only the local files are read, and no AWS code is loaded.
 */
export async function readParkStatus(
  root: string,
  config: PlatctlConfig | undefined,
  vars: EnvVars,
): Promise<ParkView[]> {
  const { files, unreadable } = await parkFiles(root);
  if (!config) {
    const views: ParkView[] = [
      ...files.map((file) => ({
        env: file.env,
        record: file.record,
        record_location: file.record ? parkFilePath(root, file.env) : undefined,
        last: file.last,
      })),
      // A park file that cannot be read says nothing of the environment: unknown, never skipped.
      ...unreadable.map(({ env, message, hint }) => ({
        env,
        record_location: parkFilePath(root, env),
        unreadable: { reason: 'unreadable-park-file', message, hint },
      })),
    ];
    return views.sort((a, b) => (a.env < b.env ? -1 : a.env > b.env ? 1 : 0));
  }
  const local = new Map(files.map((file) => [file.env, file]));
  // An unreadable local file is read again through the environment's store: unknown where it is the record.
  const envs = [...new Set([...local.keys(), ...unreadable.map((u) => u.env), ...Object.keys(config.park)])].sort();
  const views = await Promise.all(
    envs.map(async (env): Promise<ParkView | undefined> => {
      const store = await recordStore(root, config, env, vars);
      const last = local.get(env)?.last;
      const read = await store.read();
      if (!read.ok) {
        const unreadable = { reason: read.reason, message: read.message, hint: read.hint };
        return { env, record_location: store.location, last, unreadable };
      }
      const aside = read.value === undefined ? await store.aside() : undefined;
      if (aside !== undefined) {
        const why = asideRefusal(root, env, aside);
        return { env, record_location: parkFilePath(root, env), last, unreadable: { reason: 'moved-aside', ...why } };
      }
      if (read.value === undefined && !local.has(env)) return undefined;
      // Where it was found: while a record moves to the state bucket, status (which never moves it) reads the old copy.
      return { env, record: read.value, record_location: store.answeredFrom, last };
    }),
  );
  return views.filter((view) => view !== undefined);
}

/** The `park` array of `platctl status --json`; `parked` is null when the record cannot be read. */
export function parkStatusJson(views: readonly ParkView[]): unknown[] {
  return views.map((view) => ({
    env: view.env,
    parked: view.unreadable ? null : view.record?.status === 'parked',
    record: view.record ?? null,
    record_location: view.record_location ?? null,
    last: view.last ?? null,
    // Why the last down/up, recorded running, is known to be dead; null when it is not.
    killed: view.killed ?? null,
    ...(view.unreadable ? { error: { reason: view.unreadable.reason, message: unknownParkSentence(view) } } : {}),
  }));
}

/**
 * The record store of `env`, read-only (it takes no lock, so it never moves a record): shared where `down` shares it
 * (docs/park.md), else local.
 */
async function recordStore(root: string, config: PlatctlConfig, env: string, vars: EnvVars): Promise<RecordStore> {
  const settings = config.environments[env];
  if (!settings || !config.park[env]) return new RecordStore(root, env, {}, settings?.cluster?.name);
  const cluster = settings.cluster?.name;
  const state = await stateStore(config.state, { env: vars });
  const bucket = settings.aws?.state_bucket;
  if (bucket === undefined) return new RecordStore(root, env, parkRecordPlaces(state, undefined), cluster);
  // Loaded only here: status and an unparked bootstrap without a bucket never pay for the AWS modules.
  const [{ createEnvCloud }, { createParkAws }] = await Promise.all([
    import('../cloud/environment.js'),
    import('../cloud/park-aws.js'),
  ]);
  const cloud = createEnvCloud({ envName: env, settings, env: vars, maxAttempts: 3 });
  const envBucket = createParkAws(cloud, vars, settings.cluster?.name ?? env).stateBucketRecords(bucket);
  return new RecordStore(root, env, parkRecordPlaces(state, envBucket), cluster);
}

/**
 * Why bootstrap must not run: an environment it touches is parked (applying it would fight the park, and its node
 * groups' Terraform sizes would bring the compute back behind the record's back), or its shared record cannot be
 * read. The shared record (S3) is the truth where there is one: another runner may have parked or brought the
 * environment back. Undefined when bootstrap may run.
 */
export async function parkedRefusal(
  root: string,
  config: PlatctlConfig,
  args: { env?: string[] | undefined; unit?: string[] | undefined; resume?: boolean | undefined },
  vars: EnvVars = {},
): Promise<string | undefined> {
  const fromUnits = (args.unit ?? []).map((unit) => unit.split('/')[0] ?? unit);
  const touched =
    !args.resume && (args.env ?? []).length > 0
      ? (args.env ?? [])
      : !args.resume && fromUnits.length > 0
        ? fromUnits
        : Object.keys(config.environments);
  for (const env of [...new Set(touched)]) {
    const store = await recordStore(root, config, env, vars);
    const record = await store.read();
    if (!record.ok) {
      return (
        `cannot tell whether ${env} is parked: ${record.message}\n` +
        `  hint: ${record.hint ? `${record.hint}; ` : 'fix the access to it, '}or pass --force to bootstrap without this check`
      );
    }
    const first = record.value;
    const aside = first === undefined ? await store.aside() : undefined;
    if (aside !== undefined) {
      const why = asideRefusal(root, env, aside);
      return `cannot tell whether ${env} is parked: ${why.message}\n  hint: ${why.hint}; or pass --force to bootstrap without this check`;
    }
    if (first?.status !== 'parked') continue;
    return (
      `${first.env} is parked since ${first.parked_at} (by ${first.parked_by.user}@${first.parked_by.host}); ` +
      `run \`platctl up --env ${first.env}\` first, or pass --force to bootstrap it parked`
    );
  }
  return undefined;
}

/**
 * After a completed teardown: the park record of each environment the teardown destroyed as a whole (every unit of
 * it completed, or kept as the floor) is removed, in S3 and locally, since nothing of it is parked any more. Returns
 * the exit code when a record could not be removed (the teardown itself succeeded), else undefined.
 */
export async function clearParkAfterTeardown(
  root: string,
  config: PlatctlConfig,
  graph: Graph,
  state: Pick<RunState, 'units'>,
  io: CliIo,
  out: NodeJS.WritableStream,
): Promise<number | undefined> {
  const byEnv = new Map<string, UnitId[]>();
  for (const node of graph.nodes.values()) byEnv.set(node.env, [...(byEnv.get(node.env) ?? []), node.id]);
  const withFile = new Set((await parkFiles(root)).files.map((f) => f.env));
  for (const [env, units] of byEnv) {
    if (!config.park[env] && !withFile.has(env)) continue;
    const destroyed = units.every((id) => {
      const unit = state.units[id];
      return unit !== undefined && (unit.status === 'completed' || unit.kept === true);
    });
    if (!destroyed) continue;
    const store = await recordStore(root, config, env, io.env);
    const cleared = await store.clear();
    if (!cleared.ok) {
      io.stderr.write(
        `platctl: teardown of ${env} completed, but its park record could not be removed: ${cleared.message}\n` +
          `  hint: ${cleared.hint ? `${cleared.hint}; then ` : ''}delete ${store.location} and ` +
          `.platctl-park/${env}.json by hand, or platctl status and bootstrap will still see ${env} as parked\n`,
      );
      return EXIT.failed;
    }
    if (cleared.value.length > 0) out.write(`Park record of ${env} removed: ${cleared.value.join(', ')}\n`);
  }
  return undefined;
}
