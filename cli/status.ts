/**
 * `platctl status [--json]`: the last run's state and the park state per environment (report/status.ts decides
 * and says it all); this file passes the streams, this process, colour, the shared bucket and the park records.
 */
import { makePaint } from '../engine/reporters/paint.js';
import { statusCommand } from '../report/status.js';
import { readParkStatus } from './park-status.js';
import { stateStore } from './shared-state.js';
import { thisProcess } from './signals.js';
import { defineVerb } from './verb.js';
import { STATUS_GRAMMAR } from './commands/status.js';

export const statusVerb = defineVerb(STATUS_GRAMMAR, (args, io) =>
  statusCommand({ config: args.config, run: args.run, json: args.json === true }, io, {
    stateStore: (state) => stateStore(state, io),
    readPark: (root, config) => readParkStatus(root, config, io.env),
    self: thisProcess(),
    paint: makePaint(io.color),
  }),
);
