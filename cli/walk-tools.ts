/**
 * The process side of a run's tools (engine/tools.ts finds and checks them): this process's environment and working
 * directory passed down, a refusal printed with its exit code, the kill grace read from the environment, this
 * process on this machine for the lock, and all a run of units is given from this process. Shared by `bootstrap`,
 * `teardown`, `lockdown` and `up`.
 */
import { explainOutcome } from '../discover/problem-text.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { LockEnvironment } from '../engine/lock.js';
import { procMachine } from '../engine/lock.js';
import { DEFAULT_GRACE_MS } from '../engine/terragrunt.js';
import type { ToolsReady } from '../engine/tools.js';
import type { TerragruntSettings } from '../engine/terragrunt.js';
import { readyTools, runRedactor, unitExecutor } from '../engine/tools.js';
import type { RunDeps } from '../engine/run.js';
import { RUN_ID_ENV } from '../engine/run.js';
import { childGroups, thisProcess } from './signals.js';
import { secondsSetting } from '../engine/env-settings.js';
import type { CliIo } from './verb.js';
import { EXIT } from './verb.js';

/** The tools every apply needs (engine/tools.ts), or the refusal said on stderr and its exit code. */
export async function prepareTools(
  command: string,
  root: string,
  config: PlatctlConfig,
  configPath: string,
  io: CliIo,
): Promise<ToolsReady | { ok: false; exitCode: number }> {
  const tools = await readyTools(command, root, config, configPath, { env: io.env, cwd: io.cwd });
  if (tools.ok) return tools;
  io.stderr.write(explainOutcome('', tools));
  return { ok: false, exitCode: EXIT.refused };
}

/** `PLATCTL_KILL_GRACE`: seconds between SIGINT and SIGKILL (default 30; cli/env-settings.ts bounds it). */
export function killGraceMs(env: CliIo['env']): number {
  return secondsSetting(env, 'PLATCTL_KILL_GRACE', DEFAULT_GRACE_MS);
}

/** This process on this machine, for the repository lock. */
export function thisMachine(): Promise<LockEnvironment> {
  return procMachine(thisProcess());
}

/**
 * What a run of units (a walk, a lockdown) is given from this process: the clock, this machine for the lock, the
 * run's signal and redactor, the kill grace, and terragrunt for a run id (`jobEnv`: a unit's own variables).
 */
export async function runProcess(
  tools: ToolsReady,
  config: PlatctlConfig,
  io: CliIo,
  jobEnv?: TerragruntSettings['jobEnv'],
): Promise<Pick<RunDeps, 'now' | 'machine' | 'signal' | 'redactor' | 'graceMs' | 'executor'>> {
  const graceMs = killGraceMs(io.env);
  return {
    now: () => Date.now(),
    machine: await thisMachine(),
    signal: io.signal,
    redactor: runRedactor(io.env, config),
    graceMs,
    executor: (runId) =>
      unitExecutor(tools, config, graceMs, childGroups, {
        env: { [RUN_ID_ENV]: runId },
        ...(jobEnv ? { jobEnv } : {}),
      }),
  };
}
