// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/**
 * The layers (docs/architecture.md, "may import"): what each top-level folder may import from the others. An entry
 * is a folder (`config`) or one file (`engine/graph.ts`). A folder always imports itself; cli/ imports everything.
 */
const LAYERS = {
  config: [],
  // The one schema library (config/zod.ts: zod itself, bundled), for what cloud/ reads from a bucket; the one result
  // type (config/result.ts); the exit codes (config/exit-codes.ts, constants) of the verbs whose flow is cloud's.
  cloud: ['config/zod.ts', 'config/result.ts', 'config/exit-codes.ts'],
  engine: ['config'],
  discover: ['config', 'engine/graph.ts', 'engine/timers.ts'],
  hooks: ['config', 'engine', 'cloud'],
  // validate's checks run on the pure ready-queue the walk uses (engine/scheduler.ts imports only engine/graph.ts);
  // `platctl validate`'s flow (validate/command.ts) renders with its renderer, engine/reporters/validate.ts, its
  // colour (paint.ts), and guards its emitter as every run does (engine/events.ts guardEmit).
  validate: [
    'config',
    'engine/graph.ts',
    'engine/scheduler.ts',
    'engine/timers.ts',
    'engine/check-report.ts',
    'engine/events.ts',
    'engine/reporters/validate.ts',
    'engine/reporters/paint.ts',
    'cloud',
  ],
  park: ['config', 'engine', 'cloud'],
  report: ['config', 'engine', 'park'],
  converge: ['config', 'engine', 'cloud', 'validate'],
};

/**
 * Back arrows that remain, each named: `importer -> imported`, and why it stays. Anything not listed here that
 * crosses the table above fails lint. Remove an entry when its import goes (a stale entry is harmless but untidy).
 */
const LAYER_EXCEPTIONS = {
  // cloud/ is given its settings by its callers; these three still name the configuration's type for an
  // environment (type-only: no code is loaded). Replace with a cloud-owned input type when cloud/ is next reworked.
  'cloud/environment.ts -> config/schema.ts': 'type-only: EnvironmentConfig',
  'cloud/hook-clients.ts -> config/schema.ts': 'type-only: EnvironmentConfig',
  'cloud/kube-writer.ts -> config/schema.ts': 'type-only: EnvironmentConfig',
  // The one timer guard (engine/timers.ts, a leaf that imports nothing); it goes when the one abortable wait helper
  // of issue 25 lands in a module cloud/ may import.
  'cloud/argocd.ts -> engine/timers.ts': 'timerDelay, the guard on Node timers',
  // Validate plans its checks over the discovered units (type-only).
  'validate/plan.ts -> discover/types.ts': 'type-only: UnitInfo',
};

/** Every layer: the folders above, and cli/ (which may import everything, so it has no entry). */
const LAYER_NAMES = new Set([...Object.keys(LAYERS), 'cli']);

/** The top-level folder of a repository-relative path, when it is a restricted layer. */
const layerOf = (path) => (path.split('/')[0] in LAYERS ? path.split('/')[0] : undefined);

/** Repository-relative path of a relative import, `.js` spelled as the `.ts` source it compiles from. */
function target(file, spec) {
  return relative(import.meta.dirname, resolve(dirname(file), spec)).replace(/\.js$/, '.ts');
}

const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports follow the layers of docs/architecture.md' },
    schema: [],
    messages: {
      backArrow:
        '{{from}} imports {{to}}: {{layer}}/ may import only {{allowed}} (docs/architecture.md, "may import"). ' +
        'Move what both need down a layer, or pass it in.',
    },
  },
  create(context) {
    const from = relative(import.meta.dirname, context.filename);
    const layer = layerOf(from);
    if (layer === undefined) return {};
    const allowed = LAYERS[layer];
    function check(node, source) {
      if (typeof source?.value !== 'string' || !source.value.startsWith('.')) return;
      const to = target(context.filename, source.value);
      const toLayer = to.split('/')[0];
      if (toLayer === layer || !LAYER_NAMES.has(toLayer)) return;
      if (allowed.some((a) => a === toLayer || a === to)) return;
      if (`${from} -> ${to}` in LAYER_EXCEPTIONS) return;
      const data = { from, to, layer, allowed: allowed.length ? allowed.join(', ') : 'itself' };
      context.report({ node, messageId: 'backArrow', data });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.argument?.literal ?? node.argument),
    };
  },
};

/**
 * The verb modules: the files cli/verbs.ts loads (`import('./<verb>.js')`). No verb imports a sibling verb: what two
 * verbs share lives in a module of its own (cli/walk-args.ts, cli/park-verb.ts, cli/project.ts).
 */
const VERB_FILES = new Set(
  [...readFileSync(resolve(import.meta.dirname, 'cli/verbs.ts'), 'utf8').matchAll(/import\('\.\/([\w-]+)\.js'\)/g)].map(
    (m) => `cli/${m[1]}.ts`,
  ),
);

const siblingVerbRule = {
  meta: {
    type: 'problem',
    docs: { description: 'No verb file in cli/ imports a sibling verb' },
    schema: [],
    messages: {
      siblingVerb:
        '{{from}} imports the verb {{to}}: move what both need to a module that is not a verb (docs/architecture.md).',
    },
  },
  create(context) {
    const from = relative(import.meta.dirname, context.filename);
    if (!VERB_FILES.has(from)) return {};
    function check(node, source) {
      if (typeof source?.value !== 'string' || !source.value.startsWith('.')) return;
      const to = target(context.filename, source.value);
      if (to !== from && VERB_FILES.has(to)) context.report({ node, messageId: 'siblingVerb', data: { from, to } });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    };
  },
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.tools/**',
      'examples/**',
      'tests/fixtures/**',
      'coverage/**',
      '.platctl-*/**',
    ],
  },
  js.configs.recommended,
  {
    files: ['{config,cloud,engine,discover,hooks,validate,park,report,converge}/**/*.ts'],
    plugins: { platctl: { rules: { layers: layersRule } } },
    rules: { 'platctl/layers': 'error' },
  },
  {
    files: ['cli/**/*.ts'],
    plugins: { 'platctl-cli': { rules: { 'sibling-verb': siblingVerbRule } } },
    rules: { 'platctl-cli/sibling-verb': 'error' },
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'bin/*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    files: ['tests/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
);
