/**
 * What validate needs from the outside world, injected: cloud access per environment, HTTP, DNS, child processes
 * and the clock. `defaultDeps` wires the real ones; tests pass fakes or point the real ones at loopback servers.
 */
import { execFile } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import type { BastionReader } from '../cloud/bastion.js';
import type { EnvCloud } from '../cloud/environment.js';
import type { CloudResult } from '../cloud/result.js';

/** An environment's park state, for the checks that expect a parked environment to be down. */
export type ParkState =
  | { readonly state: 'parked'; readonly since: string }
  | { readonly state: 'not-parked' }
  | { readonly state: 'unknown'; readonly message: string };

export type CommandResult =
  | { readonly type: 'exited'; readonly exitCode: number; readonly stdout: string; readonly stderr: string }
  | { readonly type: 'spawn-error'; readonly code?: string; readonly message: string };

export interface ValidateDeps {
  /** The cloud access of an environment; called at most once per environment and run. */
  readonly cloud: (env: string) => EnvCloud;
  readonly fetch: typeof fetch;
  /** NS records of `name` as resolvers see them. */
  readonly resolveNs: (name: string, signal: AbortSignal) => Promise<string[]>;
  /** Runs a program with an argument list (never a shell); killed when `signal` aborts. */
  readonly runCommand: (file: string, args: readonly string[], signal: AbortSignal) => Promise<CommandResult>;
  readonly now: () => number;
  /** The EC2 and SSM reads of the bastion check; absent, that check errors. */
  readonly bastion?: (env: string) => Promise<CloudResult<BastionReader>>;
  /** Whether `env` is parked (its park record); absent: not parked. */
  readonly parkState?: (env: string) => Promise<ParkState>;
  /** Starts loading client modules the run will need, so imports overlap with phase 1's network waits. */
  readonly preload?: (needs: { readonly aws: boolean; readonly kube: boolean }) => void;
}

/** Resolves NS records with node's resolver, optionally through `servers` (`ip` or `ip:port`). */
export function dnsResolver(servers: readonly string[] | undefined): ValidateDeps['resolveNs'] {
  return async (name, signal) => {
    const resolver = new Resolver({ timeout: 2000, tries: 2 });
    if (servers && servers.length > 0) resolver.setServers([...servers]);
    const cancel = () => resolver.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      return await resolver.resolveNs(name);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  };
}

/** Runs `file args` without a shell in environment `env`, collecting output; abort kills the child. */
export function commandRunner(env: Readonly<Record<string, string | undefined>>): ValidateDeps['runCommand'] {
  return (file, args, signal) => runCommand(file, args, signal, env);
}

function runCommand(
  file: string,
  args: readonly string[],
  signal: AbortSignal,
  env: Readonly<Record<string, string | undefined>>,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const options = { signal, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' as const, env: { ...env } };
    execFile(file, [...args], options, (error, stdout, stderr) => {
      if (!error) return resolve({ type: 'exited', exitCode: 0, stdout, stderr });
      const code: unknown = (error as { code?: unknown }).code;
      if (typeof code === 'number') return resolve({ type: 'exited', exitCode: code, stdout, stderr });
      if (error.name === 'AbortError' || code === 'ABORT_ERR') {
        return resolve({ type: 'spawn-error', code: 'ABORT_ERR', message: 'killed: the check timed out' });
      }
      if (typeof code === 'string') return resolve({ type: 'spawn-error', code, message: error.message });
      // Killed by a signal: no exit code, treat as a failed run.
      return resolve({ type: 'exited', exitCode: 128, stdout, stderr });
    });
  });
}
