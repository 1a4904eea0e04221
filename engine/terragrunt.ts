/**
 * The executor that runs a unit through Terragrunt, the way Terragrunt v1.x runs a single unit
 * run non-interactively (v1.x):
 *
 *   terragrunt run --working-dir <abs unit dir> --non-interactive --tf-path <tf_path> [extra_args] \
 *     -- apply -auto-approve -input=false            (destroy: -- destroy -auto-approve -input=false [teardown_args])
 *
 * `-auto-approve` and `-input=false` are ours to pass: only `run --all` adds them by itself. Argument arrays only,
 * never a shell. This is the only module (with the fixture runners in tests) that spawns Terragrunt/OpenTofu.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { execa } from 'execa';
import type { PlatctlConfig } from '../config/schema.js';
import { runChild } from './child.js';
import type { ChildResult } from './child.js';
import * as z from '../config/zod.js';
import type { Executor, ProbeJob, RunHooks, UnitJob, UnitOutcome } from './executor.js';
import { stripAnsi } from './redact.js';
import type { StateProbe } from './rollback.js';
import type { ProcessGroups } from './processes.js';
import { unreachable } from './unit-status.js';

/** Every unit process carries its unit id in this variable (and the run id in `PLATCTL_RUN_ID`). */
export const UNIT_ENV = 'PLATCTL_UNIT';

/** SIGINT to SIGKILL: long enough for Terraform to write state and release its lock. */
export const DEFAULT_GRACE_MS = 30_000;

export interface TerragruntSettings {
  /** The terragrunt executable (absolute, from `resolveExecutable`). */
  readonly binary: string;
  /** Passed as `--tf-path`. */
  readonly tfPath: string;
  /** `terragrunt.extra_args`: Terragrunt flags for every unit, before `--`. */
  readonly extraArgs: readonly string[];
  /** The complete environment of every unit run (the caller merges the CLI environment and `terragrunt.env`). */
  readonly env: Readonly<Record<string, string>>;
  /** SIGINT to SIGKILL, on timeout and on interruption. */
  readonly graceMs: number;
  /** Variables for one job's process only, asked as it starts (the trace context of its span: engine/tracing.ts). */
  readonly jobEnv?: (job: UnitJob) => Readonly<Record<string, string>>;
}

/** Terragrunt's arguments for one job (without the binary). */
export function terragruntArgs(job: UnitJob, tfPath: string, extraArgs: readonly string[]): string[] {
  return [
    'run',
    '--working-dir',
    job.absDir,
    '--non-interactive',
    '--tf-path',
    tfPath,
    ...extraArgs,
    '--',
    job.command,
    '-auto-approve',
    '-input=false',
    ...job.tfArgs,
  ];
}

/** Terragrunt's arguments to read a unit's state (`state pull`: the state as JSON, nothing when there is none). */
export function stateProbeArgs(absDir: string, tfPath: string, extraArgs: readonly string[]): string[] {
  return [
    'run',
    '--working-dir',
    absDir,
    '--non-interactive',
    '--tf-path',
    tfPath,
    ...extraArgs,
    '--',
    'state',
    'pull',
  ];
}

/** Terragrunt's arguments to read a unit's outputs (`output -json`: every output as `{value, sensitive, type}`). */
export function outputArgs(absDir: string, tfPath: string, extraArgs: readonly string[]): string[] {
  return [
    'run',
    '--working-dir',
    absDir,
    '--non-interactive',
    '--tf-path',
    tfPath,
    ...extraArgs,
    '--',
    'output',
    '-json',
  ];
}

const TG_LOG_PREFIX = /^\d{2}:\d{2}:\d{2}(\.\d+)?\s+[A-Z]+\s+/;

/** A unit's outputs as `output -json` prints them, or why they could not be read. */
export type OutputsRead =
  | {
      readonly type: 'read';
      readonly outputs: ReadonlyMap<string, { readonly value: unknown; readonly sensitive: boolean }>;
    }
  | { readonly type: 'failed'; readonly message: string };

const outputJson = z.record(z.string(), z.looseObject({ value: z.unknown(), sensitive: z.boolean().optional() }));

/** Reads `output -json`'s stdout (nothing at all, or `{}`: a unit without outputs). */
export function readOutputJson(stdout: readonly string[]): OutputsRead {
  const text = stdout.join('\n').trim();
  if (text === '') return { type: 'read', outputs: new Map() };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { type: 'failed', message: 'output -json printed something that is not JSON' };
  }
  const parsed = outputJson.safeParse(raw);
  if (!parsed.success) return { type: 'failed', message: 'output -json printed JSON that is not a map of outputs' };
  return {
    type: 'read',
    outputs: new Map(
      Object.entries(parsed.data).map(([name, o]) => [name, { value: o.value, sensitive: o.sensitive === true }]),
    ),
  };
}

/** The parts of a Terraform state the probe reads; anything else in the file is kept out of the decision. */
const pulledState = z.looseObject({
  version: z.number(),
  resources: z.array(z.looseObject({ mode: z.string().optional() })),
});

/**
 * Reads `state pull`'s output: nothing at all (exit 0) is a unit with no state; a state whose resources include a
 * managed one is standing; a state with none (everything destroyed) is absent. Anything that does not parse is unknown.
 */
export function readPulledState(stdout: readonly string[]): StateProbe {
  const text = stdout.join('\n').trim();
  if (text === '') return { type: 'absent' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { type: 'unknown', message: 'state pull printed something that is not a Terraform state (JSON)' };
  }
  const parsed = pulledState.safeParse(raw);
  if (!parsed.success) return { type: 'unknown', message: 'state pull printed JSON that is not a Terraform state' };
  const managed = parsed.data.resources.filter((r) => r.mode === undefined || r.mode === 'managed').length;
  return managed === 0 ? { type: 'absent' } : { type: 'standing', resources: managed };
}

export class TerragruntExecutor implements Executor {
  readonly #settings: TerragruntSettings;
  readonly #groups: ProcessGroups;

  constructor(settings: TerragruntSettings, groups: ProcessGroups) {
    this.#settings = settings;
    this.#groups = groups;
  }

  commandLine(job: UnitJob): readonly string[] {
    return [this.#settings.binary, ...terragruntArgs(job, this.#settings.tfPath, this.#settings.extraArgs)];
  }

  async probeState(job: ProbeJob, hooks: RunHooks): Promise<StateProbe> {
    const stdout: string[] = [];
    let lastError = '';
    const result = await runChild(
      {
        file: this.#settings.binary,
        args: stateProbeArgs(job.absDir, this.#settings.tfPath, this.#settings.extraArgs),
        cwd: job.absDir,
        env: { ...this.#settings.env, [UNIT_ENV]: job.unit },
        timeoutMs: job.timeoutMs,
        graceMs: this.#settings.graceMs,
        signal: hooks.signal,
        // stdout is the state itself (secrets included): kept in memory for the verdict, never logged.
        onLine: (line, stream) => {
          if (stream === 'stdout') {
            stdout.push(line);
            return;
          }
          hooks.output.line(line, stream);
          if (/error/i.test(line)) lastError = stripAnsi(line).trim();
        },
        ...(hooks.onSpawn ? { onSpawn: hooks.onSpawn } : {}),
      },
      this.#groups,
    );
    if (result.type === 'exited' && result.exitCode === 0) return readPulledState(stdout);
    const how = this.#howItEnded('state pull', result, job.timeoutMs);
    return { type: 'unknown', message: lastError ? `${how}: ${lastError}` : how };
  }

  /** `output -json` of a unit (a convergence wait's look): values kept in memory, never logged. */
  async readOutputs(job: ProbeJob, signal: AbortSignal): Promise<OutputsRead> {
    const stdout: string[] = [];
    let lastError = '';
    const result = await runChild(
      {
        file: this.#settings.binary,
        args: outputArgs(job.absDir, this.#settings.tfPath, this.#settings.extraArgs),
        cwd: job.absDir,
        env: { ...this.#settings.env, [UNIT_ENV]: job.unit },
        timeoutMs: job.timeoutMs,
        graceMs: this.#settings.graceMs,
        signal,
        onLine: (line, stream) => {
          if (stream === 'stdout') stdout.push(line);
          // Terragrunt's own log prefix (`07:57:29.395 ERROR  `) says nothing the message needs.
          else if (/error/i.test(line)) lastError = stripAnsi(line).trim().replace(TG_LOG_PREFIX, '');
        },
      },
      this.#groups,
    );
    if (result.type === 'exited' && result.exitCode === 0) return readOutputJson(stdout);
    const how = this.#howItEnded('terragrunt output', result, job.timeoutMs);
    return { type: 'failed', message: lastError ? `${how}: ${lastError}` : how };
  }

  /** One line on how a probe's child ended without success: `state pull exited 1`, `... timed out after 30s`. */
  #howItEnded(what: string, result: ChildResult, timeoutMs: number): string {
    switch (result.type) {
      case 'exited':
        return `${what} exited ${result.exitCode}`;
      case 'timeout':
        return `${what} timed out after ${formatMinutes(timeoutMs)}`;
      case 'spawn-error':
        return `cannot start ${this.#settings.binary}: ${result.message}`;
      case 'killed':
      case 'interrupted':
        return `${what} was ${result.type}`;
    }
  }

  async run(job: UnitJob, hooks: RunHooks): Promise<UnitOutcome> {
    const result = await runChild(
      {
        file: this.#settings.binary,
        args: terragruntArgs(job, this.#settings.tfPath, this.#settings.extraArgs),
        cwd: job.absDir,
        // PLATCTL_UNIT lets hooks and wrappers know where they are; PLATCTL_RUN_ID (set by the caller) lets a later
        // run recognise this process if platctl is killed while it runs.
        env: { ...this.#settings.env, ...this.#settings.jobEnv?.(job), [UNIT_ENV]: job.unit },
        timeoutMs: job.timeoutMs,
        graceMs: this.#settings.graceMs,
        signal: hooks.signal,
        onLine: (line, stream) => hooks.output.line(line, stream),
        ...(hooks.onSpawn ? { onSpawn: hooks.onSpawn } : {}),
      },
      this.#groups,
    );
    switch (result.type) {
      case 'exited':
        return result.exitCode === 0
          ? { type: 'completed' }
          : {
              type: 'failed',
              reason: 'exit-non-zero',
              exitCode: result.exitCode,
              message: `exit code ${result.exitCode}`,
            };
      case 'killed':
        return { type: 'failed', reason: 'signal', signal: result.signal, message: `killed by ${result.signal}` };
      case 'timeout':
        return {
          type: 'failed',
          reason: 'timeout',
          // Name the key that sets the limit: unit_timeout is the default, units.<id>.timeout overrides it for this unit.
          message: `timed out after ${formatMinutes(job.timeoutMs)} (raise units.${job.unit}.timeout in .platctl.yaml)`,
          ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
          ...(result.signal === undefined ? {} : { signal: result.signal }),
        };
      case 'interrupted':
        return {
          type: 'interrupted',
          ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
          ...(result.signal === undefined ? {} : { signal: result.signal }),
        };
      case 'spawn-error':
        return {
          type: 'failed',
          reason: 'spawn-error',
          message: `cannot start ${this.#settings.binary}: ${result.message}`,
        };
      default:
        return unreachable(result);
    }
  }
}

function formatMinutes(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** Which binaries to use and where the choice came from (for error messages). */
export interface ToolChoice {
  readonly binary: string;
  readonly binarySource: string;
  readonly tfPath: string;
  readonly tfPathSource: string;
}

/** `PLATCTL_TERRAGRUNT` / `PLATCTL_TF_PATH` override `terragrunt.binary` / `terragrunt.tf_path`. */
export function chooseTools(
  config: Pick<PlatctlConfig, 'terragrunt'>,
  env: Readonly<Record<string, string | undefined>>,
): ToolChoice {
  const binaryEnv = env.PLATCTL_TERRAGRUNT;
  const tfEnv = env.PLATCTL_TF_PATH;
  return {
    binary: binaryEnv !== undefined && binaryEnv !== '' ? binaryEnv : config.terragrunt.binary,
    binarySource: binaryEnv !== undefined && binaryEnv !== '' ? 'PLATCTL_TERRAGRUNT' : 'terragrunt.binary',
    tfPath: tfEnv !== undefined && tfEnv !== '' ? tfEnv : config.terragrunt.tf_path,
    tfPathSource: tfEnv !== undefined && tfEnv !== '' ? 'PLATCTL_TF_PATH' : 'terragrunt.tf_path',
  };
}

export type Resolved =
  | { readonly type: 'ok'; readonly path: string }
  | { readonly type: 'missing'; readonly reason: 'not-found' | 'not-executable'; readonly searched: string };

/**
 * Finds an executable the way a shell would: a name with a slash is a path (relative to `base`), anything else is
 * looked up on `PATH` from the injected environment.
 */
export async function resolveExecutable(
  name: string,
  env: Readonly<Record<string, string | undefined>>,
  base: string,
): Promise<Resolved> {
  const candidates = name.includes('/')
    ? [isAbsolute(name) ? name : resolve(base, name)]
    : (env.PATH ?? '')
        .split(delimiter)
        .filter((dir) => dir !== '')
        .map((dir) => join(dir, name));
  let sawNonExecutable = false;
  for (const candidate of candidates) {
    try {
      if (!(await stat(candidate)).isFile()) continue;
    } catch {
      continue;
    }
    try {
      await access(candidate, constants.X_OK);
      return { type: 'ok', path: candidate };
    } catch {
      sawNonExecutable = true;
    }
  }
  return {
    type: 'missing',
    reason: sawNonExecutable ? 'not-executable' : 'not-found',
    searched: name.includes('/') ? (candidates[0] ?? name) : 'PATH',
  };
}

/** The Terraform flavour and version behind `tf_path`. */
export interface TfVersion {
  readonly product: 'OpenTofu' | 'Terraform';
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

/** Parses the first line of `tofu version` / `terraform version`. */
export function parseTfVersion(text: string): TfVersion | undefined {
  const match = /^(OpenTofu|Terraform) v(\d+)\.(\d+)\.(\d+)/m.exec(text);
  if (!match) return undefined;
  return {
    product: match[1] === 'OpenTofu' ? 'OpenTofu' : 'Terraform',
    major: Number(match[2]),
    minor: Number(match[3]),
    patch: Number(match[4]),
  };
}

/** Runs `<tf_path> version` (10 s budget); undefined when it cannot tell. */
export async function detectTfVersion(
  tfPath: string,
  env: Readonly<Record<string, string>>,
  cwd: string,
): Promise<TfVersion | undefined> {
  const result = await execa(tfPath, ['version'], { env, extendEnv: false, cwd, reject: false, timeout: 10_000 });
  return typeof result.stdout === 'string' ? parseTfVersion(result.stdout) : undefined;
}

export type ProviderCacheDecision = { readonly type: 'keep' } | { readonly type: 'unset'; readonly message: string };

/**
 * Whether a `TF_PLUGIN_CACHE_DIR` in the environment may be shared by units running in parallel. Parallel `init`s
 * writing one plugin cache corrupt it ("text file busy", checksum mismatches: Terragrunt #1212, #2542, #3476) unless
 * the tool locks it, which only OpenTofu >= 1.10 does. Terragrunt's own provider cache server (`--provider-cache`)
 * is safe too. Otherwise the variable is removed for this run, with a warning saying how to keep a cache.
 */
export function providerCacheDecision(input: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly parallelism: number;
  readonly extraArgs: readonly string[];
  readonly tfVersion: TfVersion | undefined;
}): ProviderCacheDecision {
  const cacheDir = input.env.TF_PLUGIN_CACHE_DIR;
  if (cacheDir === undefined || cacheDir === '' || input.parallelism <= 1) return { type: 'keep' };
  const providerCacheServer =
    input.extraArgs.includes('--provider-cache') ||
    (input.env.TG_PROVIDER_CACHE !== undefined && !['', '0', 'false'].includes(input.env.TG_PROVIDER_CACHE));
  if (providerCacheServer) return { type: 'keep' };
  const v = input.tfVersion;
  if (v && v.product === 'OpenTofu' && (v.major > 1 || (v.major === 1 && v.minor >= 10))) return { type: 'keep' };
  const tool = v ? `${v.product} ${v.major}.${v.minor}.${v.patch}` : 'the Terraform binary (version unknown)';
  return {
    type: 'unset',
    message:
      `TF_PLUGIN_CACHE_DIR (${cacheDir}) would be shared by ${input.parallelism} parallel units and ${tool} does not ` +
      'lock it (only OpenTofu >= 1.10 does; Terragrunt #1212, #2542), so platctl unsets it for this run. To keep a ' +
      'cache: use OpenTofu >= 1.10, add --provider-cache to terragrunt.extra_args, or run with --parallelism 1.',
  };
}
