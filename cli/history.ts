/**
 * `platctl history [--env E] [--limit N] [--json]`: past runs from the shared state backend (engine/history.ts
 * decides and says it all); this file passes the streams and the shared bucket.
 */
import { historyCommand } from '../engine/history.js';
import { stateStore } from './shared-state.js';
import { defineVerb } from './verb.js';
import { HISTORY_GRAMMAR } from './commands/history.js';

export const historyVerb = defineVerb(HISTORY_GRAMMAR, (args, io) =>
  historyCommand(args, io, (state) => stateStore(state, io)),
);
