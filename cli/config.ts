/**
 * `platctl config schema|check`: the JSON Schema of `.platctl.yaml`, or the file validated (config/command.ts
 * decides and says it all); this file passes the streams and the printer of configuration errors.
 */
import { defineVerb } from './verb.js';
import { CONFIG_GRAMMAR } from './commands/config.js';
import { configCommand } from '../config/command.js';
import { formatConfigErrorList } from '../discover/problem-text.js';

export const configVerb = defineVerb(CONFIG_GRAMMAR, (args, io) =>
  configCommand(args.action, args, io, (errors) => formatConfigErrorList(errors, io.cwd, { verbose: args.verbose })),
);
