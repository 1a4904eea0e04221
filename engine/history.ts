/**
 * `platctl history [--env E] [--limit N] [--json]`'s flow: past bootstrap/teardown runs from the shared state backend
 * (docs/state.md), newest first: verb, who, when, result, duration. `platctl status --run RUN_ID` shows one in full.
 */
import { dirname } from 'node:path';
import { formatConfigErrors, noEnvironmentMessage } from '../config/errors.js';
import { EXIT } from '../config/exit-codes.js';
import { loadConfig } from '../config/load.js';
import { historyOutput } from './reporters/history.js';
import { listRuns } from './shared-state.js';
import type { StateStoreOf, VerbIo } from './verb-io.js';

/** What `platctl history` was asked. */
export interface HistoryArgs {
  readonly config?: string | undefined;
  readonly env?: readonly string[] | undefined;
  readonly limit?: number | undefined;
  readonly json?: boolean | undefined;
}

/** Runs `platctl history`: what it prints, and its exit code. */
export async function historyCommand(args: HistoryArgs, io: VerbIo, stateStore: StateStoreOf): Promise<number> {
  const loaded = await loadConfig({ path: args.config, cwd: io.cwd, checkFilesystem: false });
  if (!loaded.ok) {
    io.stderr.write(formatConfigErrors(loaded.errors, io.cwd));
    return EXIT.usage;
  }
  const store = await stateStore(loaded.value.config.state);
  if (!store) {
    io.stderr.write(
      `platctl: history needs the shared state backend; ${loaded.value.path} uses the local one, which keeps ` +
        `only the last run (platctl status shows it)\n  hint: set state.backend: s3 (docs/state.md)\n`,
    );
    return EXIT.usage;
  }
  const envs = args.env ?? [];
  if (envs.length > 1) {
    io.stderr.write('platctl: history takes one --env\n');
    return EXIT.usage;
  }
  const unknown = noEnvironmentMessage(envs, loaded.value.config.environments, loaded.value.path);
  if (unknown !== undefined) {
    io.stderr.write(unknown);
    return EXIT.usage;
  }
  const runs = await listRuns(store, { env: envs[0], limit: args.limit ?? 20 });
  if (!runs.ok) {
    io.stderr.write(`platctl: cannot read the run history: ${runs.message}\n`);
    if (runs.hint) io.stderr.write(`  hint: ${runs.hint}\n`);
    return EXIT.refused;
  }
  const where = { runs: store.location('runs/'), root: dirname(loaded.value.path) };
  const output = historyOutput(runs.value, args.json === true, where);
  io.stderr.write(output.stderr);
  io.stdout.write(output.stdout);
  return output.failed ? EXIT.failed : EXIT.ok;
}
