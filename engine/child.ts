/**
 * One child process, handled completely: spawned detached (its own process group) with an argument array and an
 * explicit environment, output delivered line by line, a timeout and an interruption that both escalate SIGINT to
 * SIGKILL after a grace period, and nothing left behind.
 *
 * Why SIGINT first: Terraform/OpenTofu treat SIGINT as "stop gracefully" and release their state lock; SIGKILL leaves
 * the lock held and the next run fails until someone runs `force-unlock`. Why the whole group: Terragrunt runs tofu,
 * tofu runs provider plugins; signalling only the leader would orphan them.
 */
import { execa } from 'execa';
import type { OutputStream } from './executor.js';
import type { ProcessGroups } from './processes.js';
import { setTimer } from './timers.js';

export interface ChildSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The complete environment: nothing is inherited implicitly. */
  readonly env: Readonly<Record<string, string>>;
  /** Interrupt after this many milliseconds (then SIGKILL after `graceMs`); none when undefined or 0. */
  readonly timeoutMs?: number;
  /** Between SIGINT and SIGKILL. */
  readonly graceMs: number;
  /** Aborting it interrupts the child the same way a timeout does. */
  readonly signal?: AbortSignal;
  /** Each line of stdout and stderr (interleaved as they arrive), without its line break, and its stream. */
  readonly onLine: (line: string, stream: OutputStream) => void;
  readonly onSpawn?: (pid: number) => void;
}

export type ChildResult =
  | { readonly type: 'exited'; readonly exitCode: number }
  /** Died of a signal platctl did not send. */
  | { readonly type: 'killed'; readonly signal: string }
  | { readonly type: 'timeout'; readonly exitCode?: number; readonly signal?: string }
  | { readonly type: 'interrupted'; readonly exitCode?: number; readonly signal?: string }
  | { readonly type: 'spawn-error'; readonly message: string };

/** How long to wait for the output pipes to close after the group is gone before giving up on them. */
const PIPE_DRAIN_MS = 2000;

/** Runs one child to its end; never throws for anything the child does. */
export async function runChild(spec: ChildSpec, groups: ProcessGroups): Promise<ChildResult> {
  // A transform that yields nothing: each line goes to onLine and nothing accumulates in execa's streams.
  const forward = (stream: OutputStream) =>
    // eslint-disable-next-line require-yield -- swallowing the lines is the point
    function* (line: unknown): Generator<never, void, unknown> {
      spec.onLine(String(line), stream);
    };
  const subprocess = execa(spec.file, [...spec.args], {
    cwd: spec.cwd,
    env: { ...spec.env },
    extendEnv: false,
    // Own process group: a terminal Ctrl-C reaches platctl only; platctl forwards it (and can kill the group).
    detached: true,
    // execa's exit cleanup signals only the leader; the registry kills whole groups instead.
    cleanup: false,
    stdin: 'ignore',
    stdout: [forward('stdout')],
    stderr: [forward('stderr')],
    buffer: false,
    reject: false,
  });
  const pid = subprocess.pid;
  if (pid === undefined) {
    const result = await subprocess;
    return { type: 'spawn-error', message: spawnFailure(result, spec.file) };
  }
  groups.add(pid);
  spec.onSpawn?.(pid);

  let stopping: 'timeout' | 'interrupted' | undefined;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (why: 'timeout' | 'interrupted'): void => {
    if (stopping !== undefined) return;
    stopping = why;
    groups.signal(pid, 'SIGINT');
    killTimer = setTimer(() => groups.signal(pid, 'SIGKILL'), spec.graceMs);
  };
  const timeoutTimer =
    spec.timeoutMs !== undefined && spec.timeoutMs > 0 ? setTimer(() => stop('timeout'), spec.timeoutMs) : undefined;
  const onAbort = (): void => stop('interrupted');
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener('abort', onAbort, { once: true });

  let drainTimer: ReturnType<typeof setTimeout> | undefined;
  subprocess.once('exit', () => {
    // The leader is gone; whatever it left in its group (a grandchild holding our pipes open) goes too, so nothing
    // outlives the unit and the output streams can end.
    groups.signal(pid, 'SIGKILL');
    drainTimer = setTimeout(() => {
      // A descendant that left the group (setsid) still holds the pipes: stop reading rather than hang.
      subprocess.stdout.destroy();
      subprocess.stderr.destroy();
    }, PIPE_DRAIN_MS);
  });

  const result = await subprocess;
  clearTimeout(timeoutTimer);
  clearTimeout(killTimer);
  clearTimeout(drainTimer);
  spec.signal?.removeEventListener('abort', onAbort);
  groups.forget(pid);

  const exitCode = result.exitCode;
  const signal = result.signal;
  const detail = {
    ...(exitCode === undefined ? {} : { exitCode }),
    ...(signal === undefined ? {} : { signal }),
  };
  if (stopping === 'timeout') return { type: 'timeout', ...detail };
  if (stopping === 'interrupted') return { type: 'interrupted', ...detail };
  if (exitCode !== undefined) return { type: 'exited', exitCode };
  if (signal !== undefined) return { type: 'killed', signal };
  return { type: 'spawn-error', message: spawnFailure(result, spec.file) };
}

/**
 * Why a process could not start, in one line for the state file and the summary. execa's `shortMessage` quotes the
 * whole command line, whose arguments (`apply_args`, `-var=...`) may carry secrets; the underlying error does not.
 */
function spawnFailure(result: { readonly originalMessage?: string | undefined }, file: string): string {
  const why = (result.originalMessage ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('; ');
  return why === '' ? `cannot start ${file}` : why;
}
