/**
 * The tools an apply or destroy needs, found and checked before anything runs: terragrunt and tf_path resolved (and
 * said precisely when missing), not from a linked git worktree, the units' environment with the CLI config checked.
 * Shared by `bootstrap`, `teardown` and `lockdown`.
 */
import { stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { PlatctlConfig } from '../config/schema.js';
import { DEFAULT_GRACE_MS, TerragruntExecutor, chooseTools, resolveExecutable } from '../engine/terragrunt.js';
import type { TerragruntSettings } from '../engine/terragrunt.js';
import type { LockEnvironment } from '../engine/lock.js';
import { procMachine } from '../engine/lock.js';
import { Redactor, secretValues } from '../engine/redact.js';
import type { Project } from './project.js';
import { childGroups, processAlive } from './signals.js';
import { secondsSetting } from './env-settings.js';
import type { Resolved } from '../engine/terragrunt.js';
import { checkWorktree } from '../engine/worktree.js';
import type { CliIo } from './verb.js';
import { EXIT } from './verb.js';

/** terragrunt and tf_path as chosen (configuration, or PLATCTL_* from where platctl runs), each looked up. */
async function findTools(root: string, config: PlatctlConfig, io: CliIo) {
  const tools = chooseTools(config, io.env);
  const toolBase = (source: string): string => (source.startsWith('PLATCTL_') ? io.cwd : root);
  const binary = await resolveExecutable(tools.binary, io.env, toolBase(tools.binarySource));
  const tf = await resolveExecutable(tools.tfPath, io.env, toolBase(tools.tfPathSource));
  return { tools, binary, tf };
}

/**
 * The terragrunt binary and `--tf-path` argument a run would use, for printing its command lines: resolved like a
 * run resolves them when they are installed, as configured when not (a dry run does not need them).
 */
export async function toolsForPlan(
  root: string,
  config: PlatctlConfig,
  io: CliIo,
): Promise<{ binary: string; tfPathArg: string }> {
  const { tools, binary, tf } = await findTools(root, config, io);
  return {
    binary: binary.type === 'ok' ? binary.path : tools.binary,
    tfPathArg: tools.tfPath.includes('/') && tf.type === 'ok' ? tf.path : tools.tfPath,
  };
}

/** The tools found, and the environment every unit runs with. */
export interface ToolsReady {
  readonly ok: true;
  readonly binary: { readonly path: string };
  readonly tf: { readonly path: string };
  /** `--tf-path` as terragrunt gets it: a name stays a name, a path is absolute. */
  readonly tfPathArg: string;
  readonly unitEnv: Record<string, string>;
}

/** The tools every apply needs, checked before anything runs: not from a worktree, terragrunt and tf_path found. */
export async function prepareTools(
  command: string,
  root: string,
  config: PlatctlConfig,
  configPath: string,
  io: CliIo,
): Promise<ToolsReady | { ok: false; exitCode: number }> {
  // Refuse from a linked worktree: a different absolute path changes what Terraform sees (see engine/worktree.ts).
  const worktree = await checkWorktree(root, io.env);
  if (worktree.type === 'linked-worktree') {
    io.stderr.write(
      `platctl: refusing to ${command} from a git worktree (${root}).\n` +
        `  Terraform state records absolute paths (module sources, path.module, local-exec directories), and\n` +
        `  destroy-time provisioners (when = destroy) run with the paths of the checkout they run from: applying\n` +
        `  from another directory can replace resources or run destroy-time commands against the wrong tree.\n` +
        `  hint: run platctl from the main checkout (${dirname(worktree.commonDir)}).\n`,
    );
    return { ok: false, exitCode: EXIT.refused };
  }

  const { tools, binary, tf } = await findTools(root, config, io);
  if (binary.type === 'missing') {
    io.stderr.write(missingTool('terragrunt', tools.binary, tools.binarySource, binary, configPath));
    return { ok: false, exitCode: EXIT.refused };
  }
  if (tf.type === 'missing') {
    io.stderr.write(missingTool('tf_path', tools.tfPath, tools.tfPathSource, tf, configPath));
    return { ok: false, exitCode: EXIT.refused };
  }
  // A name stays a name (terragrunt looks it up on PATH); a path is made absolute, since terragrunt resolves a
  // relative --tf-path against each unit's directory.
  const tfPathArg = tools.tfPath.includes('/') ? tf.path : tools.tfPath;

  const unitEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(io.env)) if (value !== undefined) unitEnv[key] = value;
  Object.assign(unitEnv, config.terragrunt.env);
  // tofu warns about a missing CLI config file before printing its version, and terragrunt then fails every unit
  // with "Unable to parse Terraform version output": say so once, before anything runs.
  const cliConfig = unitEnv.TF_CLI_CONFIG_FILE;
  if (cliConfig !== undefined && cliConfig !== '' && !(await isFile(resolve(io.cwd, cliConfig)))) {
    io.stderr.write(
      `platctl: TF_CLI_CONFIG_FILE points at ${cliConfig}, which does not exist; every terragrunt run would fail ` +
        `("Unable to parse Terraform version output"). Nothing was run.\n` +
        `  hint: create the file, point the variable at an existing one, or unset it.\n`,
    );
    return { ok: false, exitCode: EXIT.refused };
  }

  return { ok: true, binary, tf, tfPathArg, unitEnv };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** What to say when a binary cannot be found: which one, where the name came from, and how to fix it. */
function missingTool(
  name: 'terragrunt' | 'tf_path',
  choice: string,
  source: string,
  found: Extract<Resolved, { type: 'missing' }>,
  configPath: string,
): string {
  const problem =
    found.reason === 'not-executable'
      ? 'is not executable'
      : `was not found${found.searched === 'PATH' ? ' on PATH' : ''}`;
  const variable = name === 'terragrunt' ? 'PLATCTL_TERRAGRUNT' : 'PLATCTL_TF_PATH';
  const where = source === variable ? variable : `${source} in ${configPath} (or set ${variable})`;
  return (
    `platctl: ${name} "${choice}" (from ${source}) ${problem}; nothing was run.\n` +
    `  hint: install it (npm run tools builds terragrunt and OpenTofu into .tools/bin), or point ${where} at it.\n`
  );
}

/** `PLATCTL_KILL_GRACE`: seconds between SIGINT and SIGKILL (default 30; cli/env-settings.ts bounds it). */
export function killGraceMs(env: CliIo['env']): number {
  return secondsSetting(env, 'PLATCTL_KILL_GRACE', DEFAULT_GRACE_MS);
}

/** Terragrunt for a run's units: the tools found, the units' environment (`env` added), the configured flags. */
export function unitExecutor(
  tools: ToolsReady,
  config: PlatctlConfig,
  graceMs: number,
  more: { readonly env?: Readonly<Record<string, string>>; readonly jobEnv?: TerragruntSettings['jobEnv'] } = {},
): TerragruntExecutor {
  return new TerragruntExecutor(
    {
      binary: tools.binary.path,
      tfPath: tools.tfPathArg,
      extraArgs: config.terragrunt.extra_args,
      env: { ...tools.unitEnv, ...more.env },
      graceMs,
      ...(more.jobEnv ? { jobEnv: more.jobEnv } : {}),
    },
    childGroups,
  );
}

/** This process on this machine, for the repository lock. */
export function thisMachine(): Promise<LockEnvironment> {
  return procMachine({ pid: process.pid, host: hostname(), isAlive: processAlive });
}

/** What a run hides from its logs and output: the secrets of platctl's environment and of `terragrunt.env`. */
export function runRedactor(env: CliIo['env'], config: PlatctlConfig): Redactor {
  return new Redactor([...secretValues(env), ...secretValues(config.terragrunt.env)]);
}

/** A unit's directory: as discovered, else its graph entry's under the root. */
export function unitDir({ root, discovery }: Pick<Project, 'root' | 'discovery'>): (unit: string) => string {
  return (unit) => discovery.units.get(unit)?.absDir ?? resolve(root, discovery.graph.get(unit)?.dir ?? unit);
}
