/**
 * `platctl config schema`: the JSON Schema of `.platctl.yaml` on stdout, for editors.
 * `platctl config check`: load and validate the configuration (including the environment dirs) and say so.
 */
import type { ConfigError } from './errors.js';
import { EXIT } from './exit-codes.js';
import { loadConfig } from './load.js';
import { configJsonSchema } from './schema.js';

/** Runs `platctl config <action>`. `formatErrors`: the errors as people read them (discover/problem-text.ts). */
export async function configCommand(
  action: 'schema' | 'check',
  args: { readonly config?: string | undefined; readonly json?: boolean | undefined },
  io: { readonly stdout: NodeJS.WritableStream; readonly stderr: NodeJS.WritableStream; readonly cwd: string },
  formatErrors: (errors: readonly ConfigError[]) => string,
): Promise<number> {
  switch (action) {
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
        io.stderr.write(formatErrors(result.errors));
        const count = result.errors.length;
        io.stderr.write(`${count} error${count === 1 ? '' : 's'} in the configuration\n`);
      }
      return result.ok ? EXIT.ok : EXIT.usage;
    }
  }
}
