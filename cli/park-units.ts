/**
 * The units `platctl up` re-applies (park/units.ts), checked before anything runs and wired to the engine's Terragrunt
 * executor: each configured id must be a unit (a directory with a terragrunt.hcl below its environment's dir),
 * platctl must not run from a linked git worktree (as bootstrap), and terragrunt and the tf binary must be found.
 */
import { randomBytes } from 'node:crypto';
import type { LoadedConfig } from '../config/load.js';
import type { UnitJob } from '../engine/executor.js';
import { Redactor, secretValues } from '../engine/redact.js';
import { RUN_ID_ENV } from '../engine/run.js';
import type { RunTracer } from '../engine/tracing.js';
import { TerragruntExecutor } from '../engine/terragrunt.js';
import type { UnitApplier } from '../park/context.js';
import { configuredParkUnits, parkApplyRunId, parkUnitDirs, terragruntUnitApplier } from '../park/units.js';
import { childGroups } from './signals.js';
import { discoverProject } from './project.js';
import type { CliIo, GlobalOptions } from './verb.js';
import { killGraceMs, prepareTools } from './walk-tools.js';

/**
 * The directories of the units `envs`' park settings name, found by discovery (an empty map when they name none).
 * Both `down` and `up` check them before anything is touched: a misspelt id must not let `down` park what `up`
 * cannot bring back. A configured id that discovery did not find is a discovery error (exit 2, with its line and a
 * did-you-mean); expressions that need a real run are warnings here, as park does not walk the graph.
 */
export async function discoverParkUnits(
  envs: readonly string[],
  loaded: LoadedConfig,
  args: GlobalOptions,
  io: CliIo,
): Promise<{ ok: true; dirs: ReadonlyMap<string, string> } | { ok: false; exitCode: number }> {
  const wanted = configuredParkUnits(loaded.config.park, envs);
  if (wanted.length === 0) return { ok: true, dirs: new Map() };
  const project = await discoverProject(loaded, { ...args, allowUnresolved: true }, io);
  if (!project.ok) return project;
  return { ok: true, dirs: parkUnitDirs(wanted, project.project.discovery.units) };
}

/**
 * The applier for `up` of `envs`, or undefined when none of them configures a unit. `dirs`: the units' directories
 * from {@link discoverParkUnits}. Problems are printed; the result is then the exit code (3 for a worktree or a
 * missing tool).
 */
export async function parkUnitApplier(
  envs: readonly string[],
  loaded: LoadedConfig,
  dirs: ReadonlyMap<string, string>,
  io: CliIo,
  tracer?: RunTracer,
): Promise<{ ok: true; applier: UnitApplier | undefined } | { ok: false; exitCode: number }> {
  const { config, root } = loaded;
  if (configuredParkUnits(config.park, envs).length === 0) return { ok: true, applier: undefined };

  // The same checks as bootstrap: not from a linked worktree, terragrunt and tf_path found, a usable CLI config.
  const tools = await prepareTools('up', root, config, loaded.path, io);
  if (!tools.ok) return tools;

  const runId = parkApplyRunId(Date.now(), randomBytes(3).toString('hex'));
  const redactor = new Redactor([...secretValues(io.env), ...secretValues(config.terragrunt.env)]);
  const executor = new TerragruntExecutor(
    {
      binary: tools.binary.path,
      tfPath: tools.tfPathArg,
      extraArgs: config.terragrunt.extra_args,
      env: { ...tools.unitEnv, [RUN_ID_ENV]: runId },
      graceMs: killGraceMs(io.env),
      // The trace context of the step that applies the unit (engine/tracing.ts), as a walk's unit gets its own.
      ...(tracer ? { jobEnv: (job: UnitJob) => tracer.childEnv(job.unit) } : {}),
    },
    childGroups,
  );
  const applier = terragruntUnitApplier({ root, config, executor, redactor, dirs, runId, now: () => Date.now() });
  return { ok: true, applier };
}
