/**
 * `platctl graph`: the discovered graph and its waves, as text, JSON, Graphviz dot or Mermaid (discover/graph-render.ts).
 */
import { probeSnapshot, projectCacheDir } from '../discover/index.js';
import { renderCache } from '../discover/graph-cache.js';
import { discoverProject, loadCheckedConfig, projectRequest } from './project.js';
import { EXIT, defineVerb } from './verb.js';
import { GRAPH_GRAMMAR } from './commands/graph.js';
import type { GraphFormat } from '../discover/graph-format.js';

export const graphVerb = defineVerb(GRAPH_GRAMMAR, async (args, io) => {
  const checked = await loadCheckedConfig(args, io);
  if (!checked.ok) return checked.exitCode;
  const projectArgs = { ...args, allowUnresolved: args['allow-unresolved'] };
  const format: GraphFormat = args.json ? 'json' : args.format;
  // An unchanged repository, asked the same again: last time's output (discover/graph-cache.ts).
  const { options, extras } = projectRequest(checked.loaded, projectArgs, io);
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
      const { unknownUnitMessage } = await import('../discover/suggest.js');
      io.stderr.write(unknownUnitMessage(unit, discovery.graph.ids()));
      return EXIT.usage;
    }
  }
  const { emptySelectionMessage, graphView, render } = await import('../discover/graph-render.js');
  const view = graphView(discovery.graph, { envs: args.env ?? [], units: args.unit ?? [], reverse: args.reverse });
  if (view.graph.size === 0 && ((args.env ?? []).length > 0 || (args.unit ?? []).length > 0)) {
    const dirOf = (env: string) => loaded.project.config.environments[env]?.dir ?? env;
    io.stderr.write(emptySelectionMessage(args.env ?? [], args.unit ?? [], discovery.graph, dirOf));
    return EXIT.usage;
  }
  const output = render(format, view, root, discovery);
  io.stdout.write(output);
  if (discovery.stats.fromSnapshot) cache?.write(output);
  return EXIT.ok;
});
