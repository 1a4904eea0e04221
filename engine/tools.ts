/**
 * The tools an apply or destroy needs, found and checked before anything runs: terragrunt and tf_path resolved (and
 * said precisely when missing), not from a linked git worktree, the units' environment with the CLI config checked,
 * and whether the units may share a provider cache. Shared by `bootstrap`, `teardown`, `lockdown` and `up`; the
 * caller passes its environment and working directory (nothing here reads `process`).
 */
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { PlatctlConfig } from '../config/schema.js';
import type { Failure } from '../config/result.js';
import type { Graph, UnitId } from './graph.js';
import type { ProcessGroups } from './processes.js';
import { Redactor, secretValues } from './redact.js';
import type { Resolved, TerragruntSettings } from './terragrunt.js';
import {
  TerragruntExecutor,
  chooseTools,
  detectTfVersion,
  providerCacheDecision,
  resolveExecutable,
  terragruntArgs,
} from './terragrunt.js';
import { checkWorktree } from './worktree.js';

/** Where platctl runs: its environment (`PLATCTL_TERRAGRUNT`, `PATH`, ...) and its working directory. */
export interface ToolsPlace {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** terragrunt and tf_path as chosen (configuration, or PLATCTL_* from where platctl runs), each looked up. */
async function findTools(root: string, config: PlatctlConfig, place: ToolsPlace) {
  const tools = chooseTools(config, place.env);
  const toolBase = (source: string): string => (source.startsWith('PLATCTL_') ? place.cwd : root);
  const binary = await resolveExecutable(tools.binary, place.env, toolBase(tools.binarySource));
  const tf = await resolveExecutable(tools.tfPath, place.env, toolBase(tools.tfPathSource));
  return { tools, binary, tf };
}

/**
 * The terragrunt binary and `--tf-path` argument a run would use, for printing its command lines: resolved like a
 * run resolves them when they are installed, as configured when not (a dry run does not need them).
 */
export async function toolsForPlan(
  root: string,
  config: PlatctlConfig,
  place: ToolsPlace,
): Promise<{ binary: string; tfPathArg: string }> {
  const { tools, binary, tf } = await findTools(root, config, place);
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

/** Why the tools are not ready: what, the lines that explain it, and what to do. Nothing was run. */
export type ToolsFailure = Failure<'linked-worktree' | 'missing-tool' | 'missing-cli-config'> & {
  readonly details?: readonly string[];
};

/** The tools every apply needs, checked before anything runs: not from a worktree, terragrunt and tf_path found. */
export async function readyTools(
  command: string,
  root: string,
  config: PlatctlConfig,
  configPath: string,
  place: ToolsPlace,
): Promise<ToolsReady | ToolsFailure> {
  // Refuse from a linked worktree: a different absolute path changes what Terraform sees (see engine/worktree.ts).
  const worktree = await checkWorktree(root, place.env);
  if (worktree.type === 'linked-worktree') {
    return {
      ok: false,
      reason: 'linked-worktree',
      message: `refusing to ${command} from a git worktree (${root}).`,
      details: [
        'Terraform state records absolute paths (module sources, path.module, local-exec directories), and',
        'destroy-time provisioners (when = destroy) run with the paths of the checkout they run from: applying',
        'from another directory can replace resources or run destroy-time commands against the wrong tree.',
      ],
      hint: `run platctl from the main checkout (${dirname(worktree.commonDir)}).`,
    };
  }

  const { tools, binary, tf } = await findTools(root, config, place);
  if (binary.type === 'missing') return missingTool('terragrunt', tools.binary, tools.binarySource, binary, configPath);
  if (tf.type === 'missing') return missingTool('tf_path', tools.tfPath, tools.tfPathSource, tf, configPath);
  // A name stays a name (terragrunt looks it up on PATH); a path is made absolute, since terragrunt resolves a
  // relative --tf-path against each unit's directory.
  const tfPathArg = tools.tfPath.includes('/') ? tf.path : tools.tfPath;

  const unitEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(place.env)) if (value !== undefined) unitEnv[key] = value;
  Object.assign(unitEnv, config.terragrunt.env);
  // tofu warns about a missing CLI config file before printing its version, and terragrunt then fails every unit
  // with "Unable to parse Terraform version output": say so once, before anything runs.
  const cliConfig = unitEnv.TF_CLI_CONFIG_FILE;
  if (cliConfig !== undefined && cliConfig !== '' && !(await isFile(resolve(place.cwd, cliConfig)))) {
    return {
      ok: false,
      reason: 'missing-cli-config',
      message:
        `TF_CLI_CONFIG_FILE points at ${cliConfig}, which does not exist; every terragrunt run would fail ` +
        `("Unable to parse Terraform version output"). Nothing was run.`,
      hint: 'create the file, point the variable at an existing one, or unset it.',
    };
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
export function missingTool(
  name: 'terragrunt' | 'tf_path',
  choice: string,
  source: string,
  found: Extract<Resolved, { type: 'missing' }>,
  configPath: string,
): ToolsFailure {
  const problem =
    found.reason === 'not-executable'
      ? 'is not executable'
      : `was not found${found.searched === 'PATH' ? ' on PATH' : ''}`;
  const variable = name === 'terragrunt' ? 'PLATCTL_TERRAGRUNT' : 'PLATCTL_TF_PATH';
  const where = source === variable ? variable : `${source} in ${configPath} (or set ${variable})`;
  return {
    ok: false,
    reason: 'missing-tool',
    message: `${name} "${choice}" (from ${source}) ${problem}; nothing was run.`,
    hint: `install it (npm run tools builds terragrunt and OpenTofu into .tools/bin), or point ${where} at it.`,
  };
}

/**
 * A shared provider cache is unsafe for parallel `init` with some Terraform versions (docs/tools.md): when this run
 * would be parallel and the cache is unsafe, it is taken out of the units' environment, and the warning to show is
 * returned.
 */
export async function dropUnsafeProviderCache(
  tools: ToolsReady,
  parallelism: number,
  config: Pick<PlatctlConfig, 'terragrunt'>,
  root: string,
): Promise<string | undefined> {
  const { unitEnv } = tools;
  if (unitEnv.TF_PLUGIN_CACHE_DIR === undefined || parallelism <= 1) return undefined;
  const decision = providerCacheDecision({
    env: unitEnv,
    parallelism,
    extraArgs: config.terragrunt.extra_args,
    tfVersion: await detectTfVersion(tools.tf.path, unitEnv, root),
  });
  if (decision.type !== 'unset') return undefined;
  delete unitEnv.TF_PLUGIN_CACHE_DIR;
  return decision.message;
}

/** Terragrunt for a run's units: the tools found, the units' environment (`env` added), the configured flags. */
export function unitExecutor(
  tools: ToolsReady,
  config: Pick<PlatctlConfig, 'terragrunt'>,
  graceMs: number,
  groups: ProcessGroups,
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
    groups,
  );
}

/** What a run hides from its logs and output: the secrets of platctl's environment and of `terragrunt.env`. */
export function runRedactor(
  env: Readonly<Record<string, string | undefined>>,
  config: Pick<PlatctlConfig, 'terragrunt'>,
): Redactor {
  return new Redactor([...secretValues(env), ...secretValues(config.terragrunt.env)]);
}

/** The discovered units' directories, as much of a discovery as `unitDir` reads. */
export interface UnitDirs {
  readonly root: string;
  readonly discovery: {
    readonly units: { get(unit: string): { readonly absDir: string } | undefined };
    readonly graph: Pick<Graph, 'get'>;
  };
}

/** A unit's directory: as discovered, else its graph entry's under the root. */
export function unitDir({ root, discovery }: UnitDirs): (unit: string) => string {
  return (unit) => discovery.units.get(unit)?.absDir ?? resolve(root, discovery.graph.get(unit)?.dir ?? unit);
}

/** A dry run's terragrunt command line of a unit, with the tools a run would use (`toolsForPlan`). */
export function planCommandLine(
  tools: { readonly binary: string; readonly tfPathArg: string },
  config: Pick<PlatctlConfig, 'terragrunt'>,
  absDir: (unit: UnitId) => string,
): (unit: UnitId, command: 'apply' | 'destroy', tfArgs: readonly string[]) => readonly string[] {
  return (unit, command, tfArgs) => [
    tools.binary,
    ...terragruntArgs(
      { unit, command, absDir: absDir(unit), tfArgs, attempt: 1, timeoutMs: 0 },
      tools.tfPathArg,
      config.terragrunt.extra_args,
    ),
  ];
}

/**
 * `lockdown --dry-run`'s command line of a step's apply: the tools as chosen (not looked up), the unit's timeout.
 */
export function lockdownCommandLine(
  config: Pick<PlatctlConfig, 'terragrunt' | 'units' | 'unit_timeout'>,
  absDir: (unit: UnitId) => string,
  env: Readonly<Record<string, string | undefined>>,
): (unit: UnitId, tfArgs: readonly string[]) => readonly string[] {
  const tools = chooseTools(config, env);
  return (unit, tfArgs) => {
    const timeoutMs = config.units[unit]?.timeout ?? config.unit_timeout;
    const job = { unit, command: 'apply' as const, absDir: absDir(unit), tfArgs, attempt: 1, timeoutMs };
    return [tools.binary, ...terragruntArgs(job, tools.tfPath, config.terragrunt.extra_args)];
  };
}
