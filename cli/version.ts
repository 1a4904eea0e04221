/** platctl's version, read once from the package.json above this file (source and compiled layouts differ). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function platctlVersion(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'platctl' && pkg.version) return (cached = pkg.version);
    } catch {
      // keep walking up
    }
    const up = dirname(dir);
    if (up === dir) return (cached = '0.0.0');
    dir = up;
  }
}
