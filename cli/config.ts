/**
 * `platctl config schema`: the JSON Schema of `.platctl.yaml` on stdout, for editors.
 * `platctl config check`: load and validate the configuration (including the environment dirs) and say so.
 */
import { defineVerb, EXIT } from './verb.js';
import { CONFIG_GRAMMAR } from './commands/config.js';
import { configJsonSchema } from '../config/schema.js';
import { loadConfig } from '../config/load.js';
import { formatConfigErrorList } from '../discover/problem-text.js';

export const configVerb = defineVerb(CONFIG_GRAMMAR, async (args, io) => {
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
        io.stderr.write(formatConfigErrorList(result.errors, io.cwd, { verbose: args.verbose }));
        const count = result.errors.length;
        io.stderr.write(`${count} error${count === 1 ? '' : 's'} in the configuration\n`);
      }
      return result.ok ? EXIT.ok : EXIT.usage;
    }
  }
});
