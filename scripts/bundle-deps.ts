/**
 * Build step after `tsc`: replaces the compiled re-export modules of dependencies that are slow to load
 * (dist/config/zod.js, dist/config/yaml.js, dist/config/command-line/yargs.js) with a bundle of just the parts they
 * re-export. yargs' bundle measures help text with config/command-line/string-width.ts instead of the `string-width`
 * package (see there).
 *
 * Why: Node loads a package module by module. zod's entry point pulls in some 220 modules (every message locale
 * among them) and yaml's CommonJS build some 60 files; together they took 100 to 170 ms of every run that reads
 * `.platctl.yaml` without its cache (every first run, every fresh CI runner). Bundled, the same code loads in about
 * 35 ms. The bundles keep the packages' license comments (rolldown keeps legal comments by default).
 *
 * Run by `npm run build`; reads and writes only dist/.
 */
import { rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

/** The compiled re-export modules to replace, relative to dist/. */
const REEXPORTS = ['config/zod.js', 'config/yaml.js', 'config/command-line/yargs.js'];

/** Packages replaced inside the bundles: by a module of dist/. */
const ALIASES: Readonly<Record<string, Record<string, string>>> = {
  'config/command-line/yargs.js': { 'string-width': 'config/command-line/string-width.js' },
};

const dist = join(dirname(fileURLToPath(import.meta.url)), '..');

async function bundle(relative: string): Promise<void> {
  const target = join(dist, relative);
  const tmpDir = join(dist, '.bundle-tmp');
  await rm(tmpDir, { recursive: true, force: true });
  await build({
    input: target,
    platform: 'node',
    resolve: {
      alias: Object.fromEntries(
        Object.entries(ALIASES[relative] ?? {}).map(([name, module]) => [name, join(dist, module)]),
      ),
    },
    logLevel: 'warn',
    // One file: the module it replaces is imported by path.
    output: { dir: tmpDir, format: 'esm', entryFileNames: 'bundle.js', codeSplitting: false },
  });
  await rename(join(tmpDir, 'bundle.js'), target);
  await rm(tmpDir, { recursive: true, force: true });
}

for (const relative of REEXPORTS) await bundle(relative);
