/**
 * `platctl graph`'s flow: the discovered graph and its waves, as text, JSON, Graphviz dot or Mermaid
 * (graph-render.ts); an unchanged repository asked the same again gets last time's output (graph-cache.ts).
 */
import type { PlatctlConfig } from '../config/schema.js';
import { EXIT } from '../config/exit-codes.js';
import type { RenderRequest } from './graph-cache.js';
import { renderCache } from './graph-cache.js';
import type { GraphFormat } from './graph-format.js';
import type { DiscoverExtras, DiscoverOptions, Discovery, SnapshotHit } from './index.js';
import { probeSnapshot, projectCacheDir } from './index.js';

/** What cli/ gives graph: the discovery request, and discovery itself with every problem printed (cli/project.ts). */
export interface GraphPorts {
  readonly request: { readonly options: DiscoverOptions; readonly extras: DiscoverExtras };
  /** Discovery over the loaded configuration; `snapshot`: the hit probed here, so it is not looked up again. */
  readonly discover: (
    snapshot: SnapshotHit | undefined,
  ) => Promise<
    | { ok: true; project: { readonly root: string; readonly config: PlatctlConfig; readonly discovery: Discovery } }
    | { ok: false; exitCode: number }
  >;
}

/** Runs `platctl graph` over the configuration loaded from `root`: what it prints, and its exit code. */
export async function graphCommand(
  request: RenderRequest & { readonly format: GraphFormat },
  root: string,
  io: { readonly stdout: NodeJS.WritableStream; readonly stderr: NodeJS.WritableStream },
  ports: GraphPorts,
): Promise<number> {
  // An unchanged repository, asked the same again: last time's output (graph-cache.ts).
  const snapshot = probeSnapshot(ports.request.options, ports.request.extras);
  const cache =
    snapshot && snapshot.problems.length === 0
      ? renderCache(projectCacheDir(root), snapshot.identity, request)
      : undefined;
  const cached = cache?.read();
  if (cached !== undefined) {
    io.stdout.write(cached);
    return EXIT.ok;
  }

  const loaded = await ports.discover(snapshot);
  if (!loaded.ok) return loaded.exitCode;
  const { discovery } = loaded.project;
  for (const unit of request.units) {
    if (!discovery.graph.has(unit)) {
      const { unknownUnitMessage } = await import('./suggest.js');
      io.stderr.write(unknownUnitMessage(unit, discovery.graph.ids()));
      return EXIT.usage;
    }
  }
  const { emptySelectionMessage, graphView, render } = await import('./graph-render.js');
  const view = graphView(discovery.graph, request);
  if (view.graph.size === 0 && (request.envs.length > 0 || request.units.length > 0)) {
    const dirOf = (env: string) => loaded.project.config.environments[env]?.dir ?? env;
    io.stderr.write(emptySelectionMessage(request.envs, request.units, discovery.graph, dirOf));
    return EXIT.usage;
  }
  const output = render(request.format, view, loaded.project.root, discovery);
  io.stdout.write(output);
  if (discovery.stats.fromSnapshot) cache?.write(output);
  return EXIT.ok;
}
