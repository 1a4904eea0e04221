/**
 * `platctl graph`: the discovered graph and its waves, as text, JSON, Graphviz dot or Mermaid (discover/graph-render.ts).
 */
import { didYouMean } from '../config/errors.js';
import { probeSnapshot } from '../discover/index.js';
import { renderCache } from '../discover/graph-cache.js';
import { discoverProject, discoveryRequest, loadCheckedConfig, projectCacheDir } from './project.js';
import type { Project } from './project.js';
import { EXIT, defineVerb } from './verb.js';
import { GRAPH_GRAMMAR } from './commands/graph.js';
import type { GraphFormat } from '../discover/graph-format.js';

export const graphVerb = defineVerb(GRAPH_GRAMMAR, async (args, io) => {
  const checked = await loadCheckedConfig(args, io);
  if (!checked.ok) return checked.exitCode;
  const projectArgs = { ...args, allowUnresolved: args['allow-unresolved'] };
  const format: GraphFormat = args.json ? 'json' : args.format;
  // An unchanged repository, asked the same again: last time's output (discover/graph-cache.ts).
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
      const { closestMatch } = await import('../discover/suggest.js');
      const suggestion = closestMatch(unit, discovery.graph.ids());
      io.stderr.write(
        `platctl: --unit ${unit}: no such unit${suggestion ? `; did you mean ${suggestion}?` : ''} (platctl graph lists the ids)\n`,
      );
      return EXIT.usage;
    }
  }
  const { graphView, render } = await import('../discover/graph-render.js');
  const view = graphView(discovery.graph, { envs: args.env ?? [], units: args.unit ?? [], reverse: args.reverse });
  if (view.graph.size === 0 && ((args.env ?? []).length > 0 || (args.unit ?? []).length > 0)) {
    io.stderr.write(emptySelection(args.env ?? [], args.unit ?? [], loaded.project));
    return EXIT.usage;
  }
  const output = render(format, view, root, discovery);
  io.stdout.write(output);
  if (discovery.stats.fromSnapshot) cache?.write(output);
  return EXIT.ok;
});

/**
 * Why `--env`/`--unit` picked nothing (every id and environment exists: that is checked first): an environment
 * without units, or a unit outside the environments asked for; with the environments that would match.
 */
function emptySelection(envs: readonly string[], units: readonly string[], project: Project): string {
  const { graph } = project.discovery;
  const flags = [...envs.map((env) => `--env ${env}`), ...units.map((unit) => `--unit ${unit}`)].join(' ');
  const withUnits = new Set(graph.ids().map((id) => graph.get(id)?.env ?? ''));
  const reasons: string[] = [];
  if (units.length === 0) {
    for (const env of envs) {
      const dir = project.config.environments[env]?.dir ?? env;
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
