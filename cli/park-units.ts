/**
 * The units `platctl up` re-applies (`park.<env>.node_group_units`, `karpenter.unit`, `reconnect_units`), checked
 * before anything runs and wired to the engine's Terragrunt executor: each configured id must be a unit (a directory
 * with a terragrunt.hcl below its environment's dir), platctl must not run from a linked git worktree (as bootstrap),
 * and terragrunt and the tf binary must be found. Applies log to `.platctl-logs/park-up-<time>/<unit>.log`.
 */
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { KeyPath } from '../config/errors.js';
import { formatKeyPath, formatLocation } from '../config/errors.js';
import type { LoadedConfig } from '../config/load.js';
import { applyOne } from '../engine/apply-one.js';
import type { UnitJob } from '../engine/executor.js';
import { LOGS_DIR, formatCommandLine } from '../engine/logs.js';
import { Redactor, secretValues } from '../engine/redact.js';
import { RUN_ID_ENV } from '../engine/run.js';
import { TerragruntExecutor } from '../engine/terragrunt.js';
import type { UnitApplier } from '../park/context.js';
import { childGroups } from './signals.js';
import type { CliIo } from './verb.js';
import { EXIT } from './verb.js';
import { parseGrace, prepareTools } from './walk-tools.js';

/** A configured unit and the key that names it. */
interface ConfiguredUnit {
  readonly unit: string;
  readonly keyPath: KeyPath;
}

function configuredUnits(loaded: LoadedConfig, envs: readonly string[]): ConfiguredUnit[] {
  const out: ConfiguredUnit[] = [];
  for (const env of envs) {
    const park = loaded.config.park[env];
    if (!park) continue;
    park.node_group_units.forEach((unit, i) => out.push({ unit, keyPath: ['park', env, 'node_group_units', i] }));
    if (park.karpenter?.unit) out.push({ unit: park.karpenter.unit, keyPath: ['park', env, 'karpenter', 'unit'] });
    park.reconnect_units.forEach((unit, i) => out.push({ unit, keyPath: ['park', env, 'reconnect_units', i] }));
  }
  return out;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * The applier for `up` of `envs`, or undefined when none of them configures a unit. Problems are printed; the
 * result is then the exit code (2 for a configured id that is not a unit, 3 for a worktree or a missing tool).
 */
export async function parkUnitApplier(
  envs: readonly string[],
  loaded: LoadedConfig,
  io: CliIo,
): Promise<{ ok: true; applier: UnitApplier | undefined } | { ok: false; exitCode: number }> {
  const { config, root } = loaded;
  const wanted = configuredUnits(loaded, envs);
  if (wanted.length === 0) return { ok: true, applier: undefined };

  const dirs = new Map<string, string>();
  let bad = false;
  for (const { unit, keyPath } of wanted) {
    const slash = unit.indexOf('/');
    const envDir = config.environments[unit.slice(0, slash)]?.dir;
    const dir = envDir === undefined ? undefined : resolve(root, envDir, unit.slice(slash + 1));
    if (dir !== undefined && (await isFile(resolve(dir, 'terragrunt.hcl')))) {
      dirs.set(unit, dir);
      continue;
    }
    bad = true;
    const location = loaded.locate(keyPath);
    io.stderr.write(
      `${location ? `${formatLocation(location, io.cwd)}: ` : ''}${formatKeyPath(keyPath)}: ${unit} is not a unit: ` +
        `${dir === undefined ? `no environment ${unit.slice(0, slash)}` : `${resolve(dir, 'terragrunt.hcl')} does not exist`}\n` +
        `  hint: name a unit as <env>/<path inside the env dir> (platctl graph lists them)\n`,
    );
  }
  if (bad) return { ok: false, exitCode: EXIT.usage };

  // The same checks as bootstrap: not from a linked worktree, terragrunt and tf_path found, a usable CLI config.
  const tools = await prepareTools('up', root, config, loaded.path, io);
  if (!tools.ok) return tools;

  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const runId = `park-up-${stamp}-${randomBytes(3).toString('hex')}`;
  const redactor = new Redactor([...secretValues(io.env), ...secretValues(config.terragrunt.env)]);
  const executor = new TerragruntExecutor(
    {
      binary: tools.binary.path,
      tfPath: tools.tfPathArg,
      extraArgs: config.terragrunt.extra_args,
      env: { ...tools.unitEnv, [RUN_ID_ENV]: runId },
      graceMs: parseGrace(io.env.PLATCTL_KILL_GRACE),
    },
    childGroups,
  );
  const job = (unit: string, tfArgs: readonly string[]): UnitJob => ({
    unit,
    command: 'apply',
    absDir: dirs.get(unit) ?? resolve(root, unit),
    tfArgs: [...(config.units[unit]?.apply_args ?? []), ...tfArgs],
    attempt: 1,
    timeoutMs: config.units[unit]?.timeout ?? config.unit_timeout,
  });
  const settings = { root, executor, redactor, logDir: `${LOGS_DIR}/${runId}`, title: 'up', now: () => Date.now() };
  return {
    ok: true,
    applier: {
      commandLine: (unit, tfArgs) => redactor.line(formatCommandLine(executor.commandLine(job(unit, tfArgs)))),
      apply: async (unit, tfArgs, signal) => {
        const result = await applyOne(settings, job(unit, tfArgs), signal);
        switch (result.type) {
          case 'completed':
            return { ok: true, log: result.log };
          case 'interrupted':
            return { ok: false, reason: 'interrupted', message: 'interrupted', log: result.log, lastLines: [] };
          case 'failed':
            return {
              ok: false,
              reason: 'apply-failed',
              message: result.message,
              log: result.log,
              lastLines: result.lastLines,
            };
        }
      },
    },
  };
}
