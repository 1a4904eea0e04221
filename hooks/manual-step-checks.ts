/**
 * The machine side of the manual-steps preflight (manual-steps.ts): a step's check run as an argument list with a
 * time limit (in the repository root, with platctl's environment), or as an SSM parameter read. The question asked
 * on the terminal is asked by the CLI (cli/walk-verb.ts, through cli/prompt.ts).
 */
import type { CloudResult } from '../cloud/result.js';
import type { SsmReader } from '../cloud/ssm.js';
import type { PlatctlConfig } from '../config/schema.js';
import { runChild } from '../engine/child.js';
import type { ProcessGroups } from '../engine/processes.js';
import type { CheckResult, CheckedStep } from './manual-steps.js';

/**
 * Runs a step's check: a command (argument list) in the repository root, or an SSM parameter read with the
 * credentials of the check's environment (the AWS SDK is loaded only when a step has such a check).
 */
export function manualCheckRunner(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
  config: Pick<PlatctlConfig, 'environments'>,
  groups: ProcessGroups,
): (step: CheckedStep, signal: AbortSignal) => Promise<CheckResult> {
  const command = checkRunner(root, env, groups);
  const readers = new Map<string, Promise<CloudResult<SsmReader>>>();
  const ssm = (envName: string): Promise<CloudResult<SsmReader>> => {
    let reader = readers.get(envName);
    if (!reader) {
      reader = ssmReaderOf(envName, config, env);
      readers.set(envName, reader);
    }
    return reader;
  };
  return async (step, signal) => {
    if (Array.isArray(step.check)) return command(step.check, step.check_timeout, signal);
    const { checkSsmParameter } = await import('./ssm-parameter-check.js');
    return checkSsmParameter(step, signal, { envNames: Object.keys(config.environments), ssm });
  };
}

async function ssmReaderOf(
  envName: string,
  config: Pick<PlatctlConfig, 'environments'>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<CloudResult<SsmReader>> {
  const [{ createEnvCloud }, { awsAccessOf }, { createSsmReader }] = await Promise.all([
    import('../cloud/environment.js'),
    import('../cloud/sdk-access.js'),
    import('../cloud/ssm.js'),
  ]);
  const settings = config.environments[envName];
  // A bug if it happens: loading the configuration checked that the environment is declared.
  if (!settings) throw new Error(`manual steps: environment ${envName} is not declared`);
  const access = await awsAccessOf(createEnvCloud({ envName, settings, env }), env);
  return access.ok ? { ok: true, value: createSsmReader(access.value) } : access;
}

/** Runs a check; its output is not shown, only its last line explains a failure. */
function checkRunner(root: string, env: Readonly<Record<string, string | undefined>>, groups: ProcessGroups) {
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) childEnv[key] = value;
  return async (argv: readonly string[], timeoutMs: number, signal: AbortSignal): Promise<CheckResult> => {
    let last = '';
    const [file = '', ...args] = argv;
    const result = await runChild(
      {
        file,
        args,
        cwd: root,
        env: childEnv,
        timeoutMs,
        graceMs: 2000,
        signal,
        onLine: (line) => {
          if (line.trim() !== '') last = line.trim();
        },
      },
      groups,
    );
    const tail = last === '' ? '' : `: ${last}`;
    switch (result.type) {
      case 'exited':
        return result.exitCode === 0
          ? { passed: true }
          : { passed: false, detail: `exit code ${result.exitCode}${tail}` };
      case 'timeout':
        return { passed: false, detail: `still running after ${Math.round(timeoutMs / 1000)}s (check_timeout)` };
      case 'interrupted':
        return { passed: false, detail: 'interrupted' };
      case 'killed':
        return { passed: false, detail: `killed by ${result.signal}` };
      case 'spawn-error':
        return { passed: false, detail: result.message };
    }
  };
}
