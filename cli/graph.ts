/**
 * `platctl graph`: the discovered graph and its waves (discover/graph-command.ts decides and says it all); this file
 * loads the configuration and passes the streams, the discovery request and discovery itself (cli/project.ts).
 */
import { graphCommand } from '../discover/graph-command.js';
import { discoverProject, loadCheckedConfig, projectRequest } from './project.js';
import { defineVerb } from './verb.js';
import { GRAPH_GRAMMAR } from './commands/graph.js';

export const graphVerb = defineVerb(GRAPH_GRAMMAR, async (args, io) => {
  const checked = await loadCheckedConfig(args, io);
  if (!checked.ok) return checked.exitCode;
  const projectArgs = { ...args, allowUnresolved: args['allow-unresolved'] };
  const format = args.json ? 'json' : args.format;
  const request = { format, envs: args.env ?? [], units: args.unit ?? [], reverse: args.reverse };
  return graphCommand(request, checked.loaded.root, io, {
    request: projectRequest(checked.loaded, projectArgs, io),
    discover: (snapshot) => discoverProject(checked.loaded, projectArgs, io, snapshot),
  });
});
