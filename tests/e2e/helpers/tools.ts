/**
 * Where the end-to-end tests find the real terragrunt and OpenTofu built by `scripts/install-tools.sh`.
 *
 * platctl itself never looks in `.tools/bin`: tests hand these paths to it explicitly (`PLATCTL_TERRAGRUNT`,
 * `PLATCTL_TF_PATH`, or `terragrunt.binary` / `terragrunt.tf_path` in a fixture's `.platctl.yaml`).
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file lives in tests/e2e/helpers/. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The directory install-tools.sh builds into. */
export const toolsBinDir = join(repoRoot, '.tools', 'bin');

/** Absolute paths of the built binaries. */
export interface ToolPaths {
  readonly terragrunt: string;
  readonly tofu: string;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Paths of `.tools/bin/terragrunt` and `.tools/bin/tofu`, or undefined unless both exist and are executable. */
export function toolPaths(): ToolPaths | undefined {
  const terragrunt = join(toolsBinDir, 'terragrunt');
  const tofu = join(toolsBinDir, 'tofu');
  return isExecutable(terragrunt) && isExecutable(tofu) ? { terragrunt, tofu } : undefined;
}

/** The versions install-tools.sh pins, read from its `TERRAGRUNT_VERSION=` / `OPENTOFU_VERSION=` lines. */
export interface PinnedVersions {
  /** e.g. `v1.1.3` */
  readonly terragrunt: string;
  /** e.g. `v1.12.6` */
  readonly tofu: string;
}

/** Reads the pinned versions from the install script, so a version bump there is the only edit needed. */
export function pinnedVersions(): PinnedVersions {
  const script = readFileSync(join(repoRoot, 'scripts', 'install-tools.sh'), 'utf8');
  const pick = (name: string): string => {
    const match = new RegExp(`^${name}=(v[0-9][^\\s]*)$`, 'm').exec(script);
    if (match?.[1] === undefined) throw new Error(`scripts/install-tools.sh has no ${name}=vX.Y.Z line`);
    return match[1];
  };
  return { terragrunt: pick('TERRAGRUNT_VERSION'), tofu: pick('OPENTOFU_VERSION') };
}

/**
 * The tools, or a thrown error telling how to build them. The e2e suite runs after `npm run tools` (see .ci/run);
 * a missing binary is a setup error, not a reason to pass silently.
 */
export function requireToolPaths(): ToolPaths {
  const paths = toolPaths();
  if (paths === undefined) {
    throw new Error(`terragrunt and tofu are not built in ${toolsBinDir}: run \`npm run tools\` first`);
  }
  return paths;
}
