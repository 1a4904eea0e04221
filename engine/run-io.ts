/**
 * What a run of units (a walk, a lockdown) is given from the process cli/ runs it in (`RunIo`: the streams, the
 * environment, the signal, colour and the process's own helpers, passed in since engine/ never touches `process`), and
 * what it makes of them: the live reporter it picks for the terminal it has, the tools every apply needs or their
 * refusal with its exit code, the kill grace, and all a run of units is given from this process (`runProcess`).
 * cli/walk-tools.ts builds the ports; bootstrap, teardown, lockdown and up use them.
 */
import { EXIT } from '../config/exit-codes.js';
import type { PlatctlConfig } from '../config/schema.js';
import { secondsSetting } from './env-settings.js';
import type { Reporter } from './events.js';
import { combineReporters } from './events.js';
import type { LockEnvironment } from './lock.js';
import type { ProcessGroups } from './processes.js';
import { JsonReporter } from './reporters/json.js';
import type { HeartbeatOptions } from './reporters/lines.js';
import type { Paint } from './reporters/paint.js';
import { PlainReporter } from './reporters/plain.js';
import { TtyReporter } from './reporters/tty.js';
import type { RunDeps } from './run.js';
import { RUN_ID_ENV } from './run.js';
import type { TerragruntSettings } from './terragrunt.js';
import { DEFAULT_GRACE_MS } from './terragrunt.js';
import type { ToolsReady } from './tools.js';
import { readyTools, runRedactor, unitExecutor } from './tools.js';

type Stream = NodeJS.WritableStream & { isTTY?: boolean };

/** A failure as people read it: what went wrong, the lines that explain it, what to do. */
export interface Explainable {
  readonly message: string;
  readonly details?: readonly string[];
  readonly hint?: string | undefined;
}

/** The process a run of units runs in, as cli/ read it, and the helpers of cli/ it needs. */
export interface RunIo {
  readonly stdout: Stream;
  readonly stderr: Stream;
  /** This process's environment (a plain record) and working directory. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Aborted on the first SIGINT/SIGTERM; its reason is the signal's name. */
  readonly signal: AbortSignal;
  readonly paint: Paint;
  /** Whether a stream gets the live view (a terminal with a size); any other gets plain lines at `heartbeat`. */
  readonly live: (stream: Stream) => boolean;
  readonly heartbeat: HeartbeatOptions;
  /** `platctl: <prefix><message>`, its details and hint under it (discover/problem-text.ts `explainOutcome`). */
  readonly explain: (prefix: string, failure: Explainable) => string;
  /** The exit code of a run a signal stopped, from the signal's reason (cli/signals.ts). */
  readonly signalExit: (reason: unknown) => number;
  /** Says the running verb watches `signal` and stops gracefully on the first one (cli/signals.ts). */
  readonly interruptible: () => void;
  /** This process on this machine, for the repository lock. */
  readonly machine: () => Promise<LockEnvironment>;
  /** Every unit process group, so that a second signal and the exit kill them. */
  readonly groups: ProcessGroups;
}

/** A project a verb loaded (its problems printed), or the exit code the loading chose. */
export type Loaded<P> = { readonly ok: true; readonly project: P } | { readonly ok: false; readonly exitCode: number };

/** The exit code of a run that stopped early: its signal's when one stopped it, else `otherwise`. */
export function interruptedOr(io: Pick<RunIo, 'signal' | 'signalExit'>, otherwise: number): number {
  return io.signal.aborted ? io.signalExit(io.signal.reason) : otherwise;
}

const droppingErrors = new WeakSet<object>();

/** Drops `stream`'s write errors from now on, once per stream (engine/walk-command.ts says why a walk does). */
export function dropWriteErrors(stream: NodeJS.WritableStream): void {
  if (droppingErrors.has(stream)) return;
  droppingErrors.add(stream);
  stream.on('error', () => undefined);
}

/** The live reporter for the terminal the run has: JSON on stdout under `--json`, else the live view or plain lines. */
export function makeReporter(json: boolean, io: RunIo): Reporter {
  const now = (): number => Date.now();
  if (json) {
    const reporter = new JsonReporter(io.stdout);
    return io.live(io.stderr) ? combineReporters(reporter, new TtyReporter(io.stderr, io.paint, { now })) : reporter;
  }
  if (io.live(io.stdout)) return new TtyReporter(io.stdout, io.paint, { now });
  return new PlainReporter(io.stdout, io.paint, { heartbeat: io.heartbeat });
}

/** The tools every apply needs (engine/tools.ts), or the refusal said on stderr and its exit code. */
export async function readyOrRefused(
  command: string,
  project: { readonly root: string; readonly config: PlatctlConfig; readonly configPath: string },
  io: Pick<RunIo, 'env' | 'cwd' | 'stderr' | 'explain'>,
): Promise<ToolsReady | { ok: false; exitCode: number }> {
  const { root, config, configPath } = project;
  const tools = await readyTools(command, root, config, configPath, { env: io.env, cwd: io.cwd });
  if (tools.ok) return tools;
  io.stderr.write(io.explain('', tools));
  return { ok: false, exitCode: EXIT.refused };
}

/** `PLATCTL_KILL_GRACE`: seconds between SIGINT and SIGKILL (default 30; engine/env-settings.ts bounds it). */
export function killGraceMs(env: RunIo['env']): number {
  return secondsSetting(env, 'PLATCTL_KILL_GRACE', DEFAULT_GRACE_MS);
}

/**
 * What a run of units (a walk, a lockdown) is given from this process: the clock, this machine for the lock, the
 * run's signal and redactor, the kill grace, and terragrunt for a run id (`jobEnv`: a unit's own variables).
 */
export async function runProcess(
  tools: ToolsReady,
  config: PlatctlConfig,
  io: Pick<RunIo, 'env' | 'signal' | 'machine' | 'groups'>,
  jobEnv?: TerragruntSettings['jobEnv'],
): Promise<Pick<RunDeps, 'now' | 'machine' | 'signal' | 'redactor' | 'graceMs' | 'executor'>> {
  const graceMs = killGraceMs(io.env);
  return {
    now: () => Date.now(),
    machine: await io.machine(),
    signal: io.signal,
    redactor: runRedactor(io.env, config),
    graceMs,
    executor: (runId) =>
      unitExecutor(tools, config, graceMs, io.groups, {
        env: { [RUN_ID_ENV]: runId },
        ...(jobEnv ? { jobEnv } : {}),
      }),
  };
}
