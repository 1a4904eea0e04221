/**
 * platctl's version and its executable, from the package.json above this file (source and compiled layouts differ).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function platctlVersion(): string {
  cached ??= platctlPackage()?.version ?? '0.0.0';
  return cached;
}

/** The executable this platctl is started by (`bin/platctl.js` of its package), when it can be found. */
export function platctlBin(): string | undefined {
  const found = platctlPackage();
  return found && join(found.dir, 'bin', 'platctl.js');
}

/** The directory and version of platctl's own package.json, found by walking up from this file. */
function platctlPackage(): { readonly dir: string; readonly version: string } | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'platctl' && pkg.version) return { dir, version: pkg.version };
    } catch {
      // keep walking up
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}
