/**
 * One unit applied on its own, outside a walk (`platctl up` re-applies node-group, Karpenter and reconnect units):
 * the same executor, the same log format and redaction as a walk's unit, without the run state a walk owns. Each
 * apply appends to `<logDir>/<unit id with / as __>.log` under the repository root.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Executor, UnitJob } from './executor.js';
import { FsError } from './fs-errors.js';
import { UnitLog, formatCommandLine } from './logs.js';
import type { Redactor } from './redact.js';

export interface ApplyOneSettings {
  readonly root: string;
  readonly executor: Executor;
  /** Each log gets its own fork. */
  readonly redactor: Redactor;
  /** The log directory, relative to `root` (posix separators). */
  readonly logDir: string;
  /** What the log header says ran the unit, e.g. `up`. */
  readonly title: string;
  readonly now: () => number;
}

export type ApplyOneResult =
  | { readonly type: 'completed'; readonly log: string }
  | { readonly type: 'failed'; readonly message: string; readonly log: string; readonly lastLines: readonly string[] }
  | { readonly type: 'interrupted'; readonly log: string };

/** How many of the unit's last output lines a failure carries. */
const FAILURE_LINES = 6;

/** Runs `job` (an apply or a destroy) to its end; failures are values, including a log that cannot be written. */
export async function applyOne(settings: ApplyOneSettings, job: UnitJob, signal: AbortSignal): Promise<ApplyOneResult> {
  const log = `${settings.logDir}/${job.unit.replaceAll('/', '__')}.log`;
  const iso = (): string => new Date(settings.now()).toISOString();
  let unitLog: UnitLog;
  try {
    const dir = join(settings.root, settings.logDir);
    await mkdir(dir, { recursive: true }).catch((error: unknown) => {
      throw new FsError('create the log directory', dir, error);
    });
    unitLog = await UnitLog.open(
      settings.root,
      log,
      {
        title: settings.title,
        unit: job.unit,
        attempt: job.attempt,
        startedAt: iso(),
        commandLine: formatCommandLine(settings.executor.commandLine(job)),
        cwd: job.absDir,
      },
      settings.redactor.fork(),
    );
  } catch (error) {
    // A disk that refuses the log is an expected failure of this apply (nothing ran); anything else is a bug.
    if (!(error instanceof FsError)) throw error;
    return { type: 'failed', message: `${error.message}; nothing was run`, log, lastLines: [] };
  }
  const started = settings.now();
  const outcome = await settings.executor.run(job, { output: unitLog, signal });
  const result =
    outcome.type === 'completed' ? 'completed' : outcome.type === 'interrupted' ? 'interrupted' : outcome.message;
  let closeError: string | undefined;
  try {
    await unitLog.close({
      result,
      ...(outcome.type !== 'completed' && outcome.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}),
      endedAt: iso(),
      durationMs: settings.now() - started,
    });
  } catch (error) {
    closeError = error instanceof Error ? error.message : String(error);
  }
  switch (outcome.type) {
    case 'completed':
      // The unit ran; a log that could not be written in full is worth a failure only when nothing else is.
      return closeError === undefined
        ? { type: 'completed', log }
        : { type: 'failed', message: `applied, but ${closeError}`, log, lastLines: [] };
    case 'interrupted':
      return { type: 'interrupted', log };
    case 'failed': {
      const line = unitLog.errorLine();
      return {
        type: 'failed',
        message: line ? `${outcome.message}: ${line}` : outcome.message,
        log,
        lastLines: unitLog.lastLines(FAILURE_LINES),
      };
    }
  }
}
