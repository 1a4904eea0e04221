/**
 * `platctl report [--run RUN_ID] [--park] [--env E] [--output FILE] [--format html|json]`: one run drawn as a
 * self-contained HTML page, or its data (report/command.ts decides and says it all); this file passes the streams,
 * this process and the shared bucket.
 */
import { reportCommand } from '../report/command.js';
import { stateStore } from './shared-state.js';
import { thisProcess } from './signals.js';
import { defineVerb } from './verb.js';
import { REPORT_GRAMMAR } from './commands/report.js';

export const reportVerb = defineVerb(REPORT_GRAMMAR, (args, io) =>
  reportCommand(args, io, { stateStore: (state) => stateStore(state, io), self: thisProcess() }),
);
