/**
 * Loading a project for a verb (discover/project.ts), given this process's streams, environment, directory and
 * platctl's version. Verbs get a usable project or the exit code to return (2: usage, config or graph error).
 */
import type { LoadedConfig } from '../config/load.js';
import type { DiscoverExtras, DiscoverOptions, SnapshotHit } from '../discover/index.js';
import * as load from '../discover/project.js';
import type { ConfigOnlyProject, ProjectIo, ProjectResult } from '../discover/project.js';
import type { CliIo, GlobalOptions } from './verb.js';
import { platctlVersion } from './version.js';

export type { Project, ProjectResult } from '../discover/project.js';
export type { ValidateProject } from '../validate/command.js';

export interface LoadProjectOptions extends GlobalOptions, load.LoadProjectOptions {}

/** What loading is given of this process. */
function projectIo(io: CliIo): ProjectIo {
  return { stdout: io.stdout, stderr: io.stderr, env: io.env, cwd: io.cwd, version: platctlVersion() };
}

/** `.platctl.yaml` alone, with every `--env` checked against its environments (the first step of every verb). */
export function loadCheckedConfig(
  args: GlobalOptions,
  io: CliIo,
): Promise<{ ok: true; loaded: LoadedConfig } | { ok: false; exitCode: number }> {
  return load.loadCheckedConfig(args, projectIo(io));
}

export function loadProject(args: LoadProjectOptions, io: CliIo): Promise<ProjectResult> {
  return load.loadProject(args, projectIo(io));
}

/** What discovery is asked, for a verb's arguments over a loaded configuration (discover/index.ts). */
export function projectRequest(
  loaded: LoadedConfig,
  args: LoadProjectOptions,
  io: CliIo,
): { options: DiscoverOptions; extras: DiscoverExtras } {
  return load.projectRequest(loaded, args, { env: io.env, version: platctlVersion() });
}

/** Discovery over a loaded configuration, every problem printed (`snapshot`: the hit `probeSnapshot` gave). */
export function discoverProject(
  loaded: LoadedConfig,
  args: LoadProjectOptions,
  io: CliIo,
  snapshot?: SnapshotHit,
): Promise<ProjectResult> {
  return load.discoverProject(loaded, args, projectIo(io), snapshot);
}

/** `.platctl.yaml` alone, with `--env` checked against it (validate without units, and `platctl kubeconfig`). */
export function loadConfigOnly(
  args: GlobalOptions,
  io: CliIo,
): Promise<{ ok: true; project: ConfigOnlyProject } | { ok: false; exitCode: number }> {
  return load.loadConfigOnly(args, projectIo(io));
}
