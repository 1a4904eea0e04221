/**
 * `platctl graph`: the discovered graph and its waves, as text, JSON, Graphviz dot or Mermaid.
 */
import { criticalPath, reverse, select, subgraph, waves } from '../engine/graph.js';
import type { Graph } from '../engine/graph.js';
import type { Discovery } from '../discover/index.js';
import { closestMatch } from '../discover/suggest.js';
import { chainText } from '../discover/types.js';
import { probeSnapshot } from '../discover/index.js';
import { renderCache } from './graph-cache.js';
import { discoverProject, discoveryRequest, loadCheckedConfig, projectCacheDir } from './project.js';
import { EXIT, defineVerb } from './verb.js';

export const GRAPH_FORMATS = ['text', 'json', 'dot', 'mermaid'] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

export interface GraphView {
  readonly graph: Graph;
  readonly reversed: boolean;
}

/**
 * The part of the graph a user asked for: `--env` keeps those environments' units, `--unit` keeps the named units
 * with everything they need (or, reversed, everything that needs them); `--reverse` turns edges around, so waves
 * read in teardown order.
 */
export function graphView(
  graph: Graph,
  options: { envs?: readonly string[]; units?: readonly string[]; reverse?: boolean },
): GraphView {
  const reversed = options.reverse === true;
  // The whole graph, as it is: nothing to pick or turn around (a warm graph of thousands of units spent a third of
  // its time copying it).
  if (!reversed && (options.envs ?? []).length === 0 && (options.units ?? []).length === 0) {
    return { graph, reversed };
  }
  const picked = select(graph, {
    envs: options.envs ?? [],
    units: options.units ?? [],
    expand: (options.units ?? []).length > 0 ? (reversed ? 'dependents' : 'dependencies') : 'none',
  });
  const sub = subgraph(graph, picked);
  return { graph: reversed ? reverse(sub) : sub, reversed };
}

/** Units with an active Terragrunt `exclude` block: what bootstrap and teardown leave out (and treat as applied). */
type ExcludeBlocks = Pick<Discovery, 'units'>;

export function renderJson(view: GraphView, root: string, discovery?: ExcludeBlocks): string {
  const { graph } = view;
  const units = graph.ids().map((id) => {
    const node = graph.get(id);
    const exclude = discovery?.units.get(id)?.exclude;
    return {
      id,
      env: node?.env ?? '',
      dir: node?.dir ?? '',
      dependencies: [...(node?.dependencies ?? [])].sort(),
      dependents: [...(node?.dependents ?? [])].sort(),
      ...(exclude
        ? { exclude: { actions: [...exclude.actions], exclude_dependencies: exclude.excludeDependencies } }
        : {}),
    };
  });
  return `${JSON.stringify({ version: 1, root, units, waves: waves(graph) })}\n`;
}

export function renderText(view: GraphView, discovery: Pick<Discovery, 'externals'> & Partial<ExcludeBlocks>): string {
  const { graph } = view;
  const lines: string[] = [];
  const all = waves(graph);
  all.forEach((wave, i) => {
    lines.push(`wave ${i}${view.reversed ? ' (teardown order)' : ''}:`);
    for (const id of wave) {
      const deps = [...(graph.get(id)?.dependencies ?? [])].sort();
      lines.push(deps.length ? `  ${id}  <- ${deps.join(', ')}` : `  ${id}`);
    }
  });
  const edgeCount = graph.ids().reduce((n, id) => n + (graph.get(id)?.dependencies.size ?? 0), 0);
  const critical = criticalPath(graph, undefined, all.flat());
  lines.push('');
  lines.push(
    `${graph.size} units, ${edgeCount} edges, ${all.length} waves; longest chain (${critical.path.length}): ${chainText(critical.path)}`,
  );
  const shown = new Set(graph.ids());
  const externals = discovery.externals.filter((e) => shown.has(e.unit));
  if (externals.length) {
    lines.push('outside every environment (assumed applied, never run by platctl):');
    for (const e of externals) lines.push(`  ${e.unit} -> ${e.dir}`);
  }
  const blocks = graph.ids().flatMap((id) => {
    const exclude = discovery.units?.get(id)?.exclude;
    return exclude ? [{ id, exclude }] : [];
  });
  if (blocks.length) {
    lines.push(
      'exclude blocks (bootstrap runs apply, teardown destroy; a listed command leaves the unit out, as applied):',
    );
    for (const { id, exclude } of blocks) {
      const node = graph.get(id);
      const deps = [...((view.reversed ? node?.dependents : node?.dependencies) ?? [])].sort();
      const also =
        exclude.excludeDependencies && deps.length ? `; with exclude_dependencies also ${deps.join(', ')}` : '';
      lines.push(`  ${id}: ${exclude.actions.join(', ')}${also}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function quote(id: string): string {
  return JSON.stringify(id);
}

/** Graphviz dot, one cluster per environment; an edge points from a unit to what it depends on (as Terragrunt). */
export function renderDot(view: GraphView, discovery?: ExcludeBlocks): string {
  const { graph } = view;
  // A unit with an active exclude block is drawn dashed.
  const node = (id: string): string => (discovery?.units.get(id)?.exclude ? `${quote(id)} [style=dashed]` : quote(id));
  const lines = ['digraph platctl {', '  rankdir=LR;', '  node [shape=box];'];
  const envs = [...new Set(graph.ids().map((id) => graph.get(id)?.env ?? ''))].sort();
  for (const env of envs) {
    lines.push(`  subgraph ${quote(`cluster_${env}`)} {`, `    label=${quote(env)};`);
    for (const id of graph.ids()) if (graph.get(id)?.env === env) lines.push(`    ${node(id)};`);
    lines.push('  }');
  }
  for (const id of graph.ids()) {
    for (const dep of [...(graph.get(id)?.dependencies ?? [])].sort()) lines.push(`  ${quote(id)} -> ${quote(dep)};`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

export function renderMermaid(view: GraphView): string {
  const { graph } = view;
  const ids = graph.ids();
  const key = new Map(ids.map((id, i) => [id, `u${i}`]));
  const lines = ['flowchart LR'];
  for (const id of ids) lines.push(`  ${key.get(id) ?? ''}["${id}"]`);
  for (const id of ids) {
    for (const dep of [...(graph.get(id)?.dependencies ?? [])].sort()) {
      lines.push(`  ${key.get(id) ?? ''} --> ${key.get(dep) ?? ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export const graphVerb = defineVerb({
  globals: ['env', 'json'],
  options: {
    format: { type: 'choice', choices: GRAPH_FORMATS, default: 'text', describe: 'Output format' },
    unit: { type: 'string', value: 'ID', repeatable: true, describe: 'Only this unit and what it needs (repeatable)' },
    reverse: { type: 'boolean', default: false, describe: 'Teardown order: edges turned around' },
    'allow-unresolved': {
      type: 'boolean',
      default: false,
      describe: 'Warn, not fail, on expressions that need a real run (run_cmd, outputs, AWS)',
    },
  },
  examples: [
    ['platctl graph --config examples/platform/.platctl.yaml', 'waves as text'],
    ['platctl graph --format json --env platform', 'machine-readable graph of one environment'],
    ['platctl graph --unit platform/eks --format dot | dot -Tsvg > eks.svg', 'what platform/eks needs'],
  ],
  run: async (args, io) => {
    const checked = await loadCheckedConfig(args, io);
    if (!checked.ok) return checked.exitCode;
    const projectArgs = { ...args, allowUnresolved: args['allow-unresolved'] };
    const format: GraphFormat = args.json ? 'json' : args.format;
    // An unchanged repository, asked the same again: last time's output (graph-cache.ts).
    const { options, extras } = discoveryRequest(checked.loaded, projectArgs, io);
    const snapshot = probeSnapshot(options, extras);
    const cache =
      snapshot && snapshot.problems.length === 0
        ? renderCache(projectCacheDir(checked.loaded.root), snapshot.identity, {
            format,
            envs: args.env ?? [],
            units: args.unit ?? [],
            reverse: args.reverse,
          })
        : undefined;
    const cached = cache?.read();
    if (cached !== undefined) {
      io.stdout.write(cached);
      return EXIT.ok;
    }

    const loaded = await discoverProject(checked.loaded, projectArgs, io, snapshot);
    if (!loaded.ok) return loaded.exitCode;
    const { discovery, root } = loaded.project;
    for (const unit of args.unit ?? []) {
      if (!discovery.graph.has(unit)) {
        const suggestion = closestMatch(unit, discovery.graph.ids());
        io.stderr.write(
          `platctl: --unit ${unit}: no such unit${suggestion ? `; did you mean ${suggestion}?` : ''} (platctl graph lists the ids)\n`,
        );
        return EXIT.usage;
      }
    }
    const view = graphView(discovery.graph, { envs: args.env ?? [], units: args.unit ?? [], reverse: args.reverse });
    const output = render(format, view, root, discovery);
    io.stdout.write(output);
    if (discovery.stats.fromSnapshot) cache?.write(output);
    return EXIT.ok;
  },
});

function render(format: GraphFormat, view: GraphView, root: string, discovery: Discovery): string {
  switch (format) {
    case 'json':
      return renderJson(view, root, discovery);
    case 'dot':
      return renderDot(view, discovery);
    case 'mermaid':
      return renderMermaid(view);
    case 'text':
      return renderText(view, discovery);
  }
}
