/**
 * `platctl config schema`: the JSON Schema of `.platctl.yaml` on stdout, for editors.
 * `platctl config check`: load and validate the configuration (including the environment dirs) and say so.
 */
import { defineVerb, EXIT } from './verb.js';
import { configJsonSchema } from '../config/schema.js';
import { loadConfig } from '../config/load.js';
import { formatConfigErrors } from '../config/errors.js';

const ACTIONS = ['schema', 'check'] as const;

export const configVerb = defineVerb<{ action: (typeof ACTIONS)[number] }>({
  command: 'config <action>',
  describe: 'The configuration file: print its JSON Schema (schema) or validate it (check)',
  builder: (yargs) =>
    yargs
      .positional('action', {
        choices: ACTIONS,
        demandOption: true,
        describe: 'schema: print the JSON Schema of .platctl.yaml; check: validate the configuration',
      })
      .example('$0 config schema > .platctl.schema.json', 'Write the schema for an editor')
      .example('$0 config check', 'Validate the nearest .platctl.yaml'),
  run: async (args, io) => {
    switch (args.action) {
      case 'schema':
        io.stdout.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
        return EXIT.ok;
      case 'check': {
        const result = await loadConfig({ path: args.config, cwd: io.cwd });
        if (args.json === true) {
          const body = result.ok ? { ok: true, path: result.value.path } : { ok: false, errors: result.errors };
          io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        } else if (result.ok) {
          io.stdout.write(`ok: ${result.value.path}\n`);
        } else {
          io.stderr.write(formatConfigErrors(result.errors, io.cwd));
          const count = result.errors.length;
          io.stderr.write(`${count} error${count === 1 ? '' : 's'} in the configuration\n`);
        }
        return result.ok ? EXIT.ok : EXIT.usage;
      }
    }
  },
});
