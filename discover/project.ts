/**
 * Loading a project for a verb: the configuration, then discovery, with every problem printed to stderr. Verbs get a
 * usable project or the exit code to return (2: usage, config or graph error). The CLI passes its streams, its
 * environment, its directory and platctl's version in (`ProjectIo`).
 */
import { dirname } from 'node:path';
import { unknownEnvMessage } from '../config/errors.js';
import { loadConfigCached } from '../config/cached.js';
import { EXIT } from '../config/exit-codes.js';
import type { LoadedConfig } from '../config/load.js';
import type { PlatctlConfig } from '../config/schema.js';
import { discover, discoveryRequest, isUsable } from './index.js';
import type { UnitInfo } from './types.js';
import type { DiscoverExtras, DiscoverOptions, Discovery, SnapshotHit } from './index.js';

/** Where loading prints and what it reads of the process, passed in by the CLI. */
export interface ProjectIo {
  readonly stdout: Pick<NodeJS.WritableStream, 'write'>;
  readonly stderr: Pick<NodeJS.WritableStream, 'write'>;
  readonly env: DiscoverOptions['env'];
  readonly cwd: string;
  /** platctl's version (the caches are keyed on it). */
  readonly version: string;
}

/** The options of a command line that loading reads (`--config`, `--env`, `--json`, `--verbose`). */
export interface ProjectArgs {
  config?: string | undefined;
  env?: string[] | undefined;
  json?: boolean | undefined;
  verbose?: boolean | undefined;
}

export interface Project {
  readonly configPath: string;
  readonly root: string;
  readonly config: PlatctlConfig;
  readonly discovery: Discovery;
}

export type ProjectResult = { ok: true; project: Project } | { ok: false; exitCode: number };

export interface LoadProjectOptions extends ProjectArgs {
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
  args: ProjectArgs,
  io: ProjectIo,
): Promise<{ ok: true; loaded: LoadedConfig } | { ok: false; exitCode: number }> {
  const result = await loadConfigCached({ path: args.config, cwd: io.cwd, version: io.version });
  if (!result.ok) {
    const { formatConfigErrorList } = await import('./problem-text.js');
    io.stderr.write(formatConfigErrorList(result.errors, io.cwd, { verbose: args.verbose }));
    return { ok: false, exitCode: EXIT.usage };
  }
  const unknown = unknownEnvMessage(args.env ?? [], Object.keys(result.value.config.environments), result.value.path);
  if (unknown !== undefined) {
    io.stderr.write(unknown);
    return { ok: false, exitCode: EXIT.usage };
  }
  return { ok: true, loaded: result.value };
}

export async function loadProject(args: LoadProjectOptions, io: ProjectIo): Promise<ProjectResult> {
  const checked = await loadCheckedConfig(args, io);
  if (!checked.ok) return checked;
  return discoverProject(checked.loaded, args, io);
}

/** What discovery is asked, for a verb's arguments over a loaded configuration (discover/index.ts). */
export function projectRequest(
  loaded: LoadedConfig,
  args: LoadProjectOptions,
  io: Pick<ProjectIo, 'env' | 'version'>,
): { options: DiscoverOptions; extras: DiscoverExtras } {
  const settings = { allowUnresolved: args.allowUnresolved === true, remoteState: args.withRemoteState === true };
  return discoveryRequest(loaded, { ...settings, env: io.env, version: io.version });
}

/**
 * Discovery over a loaded configuration, every problem printed. `snapshot`: the hit `probeSnapshot` gave for
 * the same {@link projectRequest}, so it is not looked up again.
 */
export async function discoverProject(
  loaded: LoadedConfig,
  args: LoadProjectOptions,
  io: ProjectIo,
  snapshot?: SnapshotHit,
): Promise<ProjectResult> {
  const { config, root, path } = loaded;
  const request = projectRequest(loaded, args, io);
  const discovery = await discover(request.options, { ...request.extras, ...(snapshot ? { snapshot } : {}) });
  // Problems are formatted by a module loaded only for a discovery that has some (a warm run has none).
  if (discovery.problems.length > 0) {
    const { discoveryFailedJson, formatProblems, unusableGraphMessage } = await import('./problem-text.js');
    io.stderr.write(formatProblems(discovery.problems, io.cwd, { verbose: args.verbose }));
    if (!isUsable(discovery)) {
      if (args.json) io.stdout.write(discoveryFailedJson(discovery.problems));
      io.stderr.write(unusableGraphMessage(discovery.problems));
      return { ok: false, exitCode: EXIT.usage };
    }
  }
  return { ok: true, project: { configPath: path, root, config, discovery } };
}

/** A project without discovery: the configuration, where it is, and no units. */
export interface ConfigOnlyProject {
  readonly config: PlatctlConfig;
  readonly units: ReadonlyMap<string, UnitInfo>;
  readonly configPath: string;
  /** The repository root, where the park records' local copies live. */
  readonly root: string;
}

/** `.platctl.yaml` alone, with `--env` checked against it (validate without units, and `platctl kubeconfig`). */
export async function loadConfigOnly(
  args: ProjectArgs,
  io: ProjectIo,
): Promise<{ ok: true; project: ConfigOnlyProject } | { ok: false; exitCode: number }> {
  const checked = await loadCheckedConfig(args, io);
  if (!checked.ok) return checked;
  const { config, path } = checked.loaded;
  return { ok: true, project: { config, units: new Map(), configPath: path, root: dirname(path) } };
}
