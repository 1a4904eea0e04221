/**
 * `platctl state pull|push`: move the run state between this checkout (`.platctl-state.json`) and the shared backend
 * (docs/state.md) by hand (engine/state-pull.ts decides and says it all); this file passes the streams, this process
 * and the shared bucket.
 */
import { stateCommand } from '../engine/state-pull.js';
import { stateStore } from './shared-state.js';
import { thisProcess } from './signals.js';
import { defineVerb } from './verb.js';
import { STATE_GRAMMAR } from './commands/state.js';

export const stateVerb = defineVerb(STATE_GRAMMAR, (args, io) =>
  stateCommand(args.action, args.config, io, { stateStore: (state) => stateStore(state, io), self: thisProcess() }),
);
