/**
 * The park section of `platctl status` (the rest of status is in cli/status.ts, which calls this), and the guard
 * that keeps `platctl bootstrap` off a parked environment.
 */
import type { PlatctlConfig } from '../config/schema.js';
import { parkFiles, parkedEnvs, renderParkStatus } from '../park/status.js';
import type { CliIo } from './verb.js';

/** Prints the park state of every environment with a park file: text on stdout, or nothing with --json. */
export async function printParkStatus(root: string, json: boolean, io: CliIo): Promise<void> {
  if (json) return;
  io.stdout.write(renderParkStatus(await parkFiles(root)));
}

/** The park state for `platctl status --json`. */
export async function parkStatusJson(root: string): Promise<unknown[]> {
  return (await parkFiles(root)).map(({ env, record, last, record_location }) => ({
    env,
    parked: record?.status === 'parked',
    record: record ?? null,
    record_location: record_location ?? null,
    last: last ?? null,
  }));
}

/**
 * Why bootstrap must not run: an environment it touches is parked (applying it would fight the park, and its node
 * groups' Terraform sizes would bring the compute back behind the record's back). Undefined when none is.
 */
export async function parkedRefusal(
  root: string,
  config: PlatctlConfig,
  args: { env?: string[] | undefined; unit?: string[] | undefined; resume?: boolean | undefined },
): Promise<string | undefined> {
  const fromUnits = (args.unit ?? []).map((unit) => unit.split('/')[0] ?? unit);
  const touched =
    !args.resume && (args.env ?? []).length > 0
      ? (args.env ?? [])
      : !args.resume && fromUnits.length > 0
        ? fromUnits
        : Object.keys(config.environments);
  const parked = await parkedEnvs(root, [...new Set(touched)]);
  const first = parked[0];
  if (!first) return undefined;
  return (
    `${first.env} is parked since ${first.parked_at} (by ${first.parked_by.user}@${first.parked_by.host}); ` +
    `run \`platctl up --env ${first.env}\` first, or pass --force to bootstrap it parked`
  );
}
