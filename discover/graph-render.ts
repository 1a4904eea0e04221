/**
 * How `platctl graph` lays out and prints a graph: the view a request asks for and the four formats. Loaded only when
 * an output is rendered: a warm `graph` prints the one it kept (graph-cache.ts) without loading this module or the
 * graph algorithms.
 */
import { criticalPath, reverse, select, subgraph, waves } from '../engine/graph.js';
import type { Graph } from '../engine/graph.js';
import type { Discovery } from './index.js';
import { chainText } from './types.js';
import { didYouMean } from '../config/errors.js';
import type { GraphFormat } from './graph-format.js';

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

/** The output for a request, in its format. */
export function render(format: GraphFormat, view: GraphView, root: string, discovery: Discovery): string {
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

/**
 * Why `--env`/`--unit` picked nothing (every id and environment exists: that is checked first): an environment
 * without units (`dirOf`: where its units would be), or a unit outside the environments asked for; with the
 * environments that would match.
 */
export function emptySelectionMessage(
  envs: readonly string[],
  units: readonly string[],
  graph: Graph,
  dirOf: (env: string) => string,
): string {
  const flags = [...envs.map((env) => `--env ${env}`), ...units.map((unit) => `--unit ${unit}`)].join(' ');
  const withUnits = new Set(graph.ids().map((id) => graph.get(id)?.env ?? ''));
  const reasons: string[] = [];
  if (units.length === 0) {
    for (const env of envs) {
      const dir = dirOf(env);
      const suggestion = didYouMean(env, [...withUnits]);
      reasons.push(
        `environment ${env} has no units (none below ${dir})` +
          (suggestion
            ? `; did you mean --env ${suggestion}?`
            : withUnits.size > 0
              ? `; environments with units: ${[...withUnits].sort().join(', ')}`
              : ''),
      );
    }
  }
  for (const unit of units) {
    const env = graph.get(unit)?.env ?? '';
    if (!envs.includes(env))
      reasons.push(`${unit} is in environment ${env}, which --env leaves out; did you mean --env ${env}?`);
  }
  return `platctl: ${flags}: no unit matches the selection\n${reasons.map((reason) => `  hint: ${reason}\n`).join('')}`;
}
