/**
 * Loading a project for a verb: the configuration, then discovery, with every problem printed to stderr. Verbs get a
 * usable project or the exit code to return (2: usage, config or graph error).
 */
import { dirname, join } from 'node:path';
import { didYouMean } from '../config/errors.js';
import { loadConfigCached } from '../config/cached.js';
import type { LoadedConfig } from '../config/load.js';
import type { PlatctlConfig } from '../config/schema.js';
import { discover, isUsable } from '../discover/index.js';
import type { UnitInfo } from '../discover/types.js';
import type { DiscoverExtras, DiscoverOptions, Discovery, SnapshotHit } from '../discover/index.js';
import type { CliIo, GlobalOptions } from './verb.js';
import { EXIT } from './verb.js';
import { platctlVersion } from './version.js';

export interface Project {
  readonly configPath: string;
  readonly root: string;
  readonly config: PlatctlConfig;
  readonly discovery: Discovery;
}

export type ProjectResult = { ok: true; project: Project } | { ok: false; exitCode: number };

export interface LoadProjectOptions extends GlobalOptions {
  /** Report expressions that cannot be evaluated offline as warnings, not errors. */
  allowUnresolved?: boolean | undefined;
  /** Evaluate units' remote_state blocks (validate's state checks need them). */
  withRemoteState?: boolean | undefined;
}

/**
 * `.platctl.yaml` alone, with every `--env` checked against its environments; errors are printed and turned into the
 * usage exit code. The first step of every verb, including those that need no discovery.
 */
export async function loadCheckedConfig(
  args: GlobalOptions,
  io: CliIo,
): Promise<{ ok: true; loaded: LoadedConfig } | { ok: false; exitCode: number }> {
  const result = await loadConfigCached({ path: args.config, cwd: io.cwd, version: platctlVersion() });
  if (!result.ok) {
    const { formatConfigErrorList } = await import('../discover/problem-text.js');
    io.stderr.write(formatConfigErrorList(result.errors, io.cwd, { verbose: args.verbose }));
    return { ok: false, exitCode: EXIT.usage };
  }
  const envNames = Object.keys(result.value.config.environments);
  for (const env of args.env ?? []) {
    if (!envNames.includes(env)) {
      const suggestion = didYouMean(env, envNames);
      io.stderr.write(
        `platctl: --env ${env}: no such environment in ${result.value.path}` +
          `${suggestion ? `; did you mean ${suggestion}?` : ''} (known: ${envNames.join(', ')})\n`,
      );
      return { ok: false, exitCode: EXIT.usage };
    }
  }
  return { ok: true, loaded: result.value };
}

export async function loadProject(args: LoadProjectOptions, io: CliIo): Promise<ProjectResult> {
  const checked = await loadCheckedConfig(args, io);
  if (!checked.ok) return checked;
  return discoverProject(checked.loaded, args, io);
}

/** What discovery is asked, for a verb's arguments over a loaded configuration. */
export function discoveryRequest(
  loaded: LoadedConfig,
  args: LoadProjectOptions,
  io: CliIo,
): { options: DiscoverOptions; extras: DiscoverExtras } {
  const { config, root } = loaded;
  return {
    options: {
      root,
      config,
      env: io.env,
      allowUnresolved: args.allowUnresolved === true,
      remoteState: args.withRemoteState === true,
      cacheDir: projectCacheDir(root),
    },
    extras: { locate: (keyPath) => loaded.locate(keyPath), version: platctlVersion() },
  };
}

/** Where a project keeps its caches (parses, evaluations, the discovery snapshot, rendered graphs). */
export function projectCacheDir(root: string): string {
  return join(root, '.platctl-cache');
}

/**
 * Discovery over a loaded configuration, every problem printed. `snapshot`: the hit `probeSnapshot` gave for
 * the same {@link discoveryRequest}, so it is not looked up again.
 */
export async function discoverProject(
  loaded: LoadedConfig,
  args: LoadProjectOptions,
  io: CliIo,
  snapshot?: SnapshotHit,
): Promise<ProjectResult> {
  const { config, root, path } = loaded;
  const request = discoveryRequest(loaded, args, io);
  const discovery = await discover(request.options, { ...request.extras, ...(snapshot ? { snapshot } : {}) });
  // Problems are formatted by a module loaded only for a discovery that has some (a warm run has none).
  if (discovery.problems.length > 0) {
    const { formatProblems, summarizeProblems } = await import('../discover/problem-text.js');
    io.stderr.write(formatProblems(discovery.problems, io.cwd, { verbose: args.verbose }));
    if (!isUsable(discovery)) {
      // The machine-readable form holds every problem, hints included, whatever people were shown.
      if (args.json) io.stdout.write(`${JSON.stringify({ type: 'discovery-failed', problems: discovery.problems })}\n`);
      io.stderr.write(
        `platctl: the unit graph is not usable: ${summarizeProblems(discovery.problems)}. Fix the errors above` +
          `${discovery.problems.some((p) => p.kind === 'unresolved-expression') ? ' (or pass --allow-unresolved for expressions that need a real run)' : ''}.\n`,
      );
      return { ok: false, exitCode: EXIT.usage };
    }
  }
  return { ok: true, project: { configPath: path, root, config, discovery } };
}

/** What validate needs from a loaded project; units only when a per-unit check can be selected. */
export interface ValidateProject {
  readonly config: PlatctlConfig;
  readonly units: ReadonlyMap<string, UnitInfo>;
  /** The repository root, where the park records' local copies live (the bastion check asks if an env is parked). */
  readonly root?: string;
}

/** `.platctl.yaml` alone, with `--env` checked against it (validate without units, and `platctl kubeconfig`). */
export async function loadConfigOnly(
  args: GlobalOptions,
  io: CliIo,
): Promise<{ ok: true; project: ValidateProject & { configPath: string } } | { ok: false; exitCode: number }> {
  const checked = await loadCheckedConfig(args, io);
  if (!checked.ok) return checked;
  const { config, path } = checked.loaded;
  return { ok: true, project: { config, units: new Map(), configPath: path, root: dirname(path) } };
}
