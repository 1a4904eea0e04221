/**
 * `platctl kubeconfig token --env E [--config FILE]` answered from the token cache (cloud/eks-token-cache.ts) before
 * anything else is loaded: kubectl runs it before every command, so its start-up is every kubectl command's. Loaded
 * by `bin/platctl.js` on its own; a miss (or any other command line) goes the whole way through `cli/main.ts`, which
 * signs, prints and keeps the token.
 */
import { findConfig } from '../config/find.js';
import type { TokenConfig } from '../cloud/eks-token-cache.js';
import { platctlVersion } from './version.js';
import { envSettingErrors } from './env-settings.js';

/** A value of `--env`/`--config`: a word yargs would take as one (not empty, not an option). */
function isValue(word: string | undefined): word is string {
  return word !== undefined && word !== '' && !word.startsWith('-');
}

/**
 * `kubeconfig token` with one `--env` and at most one `--config`, in any order: its arguments, or undefined. Only
 * exactly this shape: anything else goes to yargs, which reads the whole command line or refuses it.
 */
export function tokenArgs(argv: readonly string[]): { env: string; config: string | undefined } | undefined {
  const words: string[] = [];
  const values: Record<'env' | 'config', string[]> = { env: [], config: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i] ?? '';
    const name = /^--(env|config)(?:=(.*))?$/.exec(word);
    if (name === null) {
      if (word.startsWith('-')) return undefined;
      words.push(word);
      continue;
    }
    const value = name[2] ?? argv[(i += 1)];
    if (!isValue(value)) return undefined;
    values[name[1] as 'env' | 'config'].push(value);
  }
  if (words.join(' ') !== 'kubeconfig token' || values.env.length !== 1 || values.config.length > 1) return undefined;
  return { env: values.env[0]!, config: values.config[0] };
}

/** Where `kubeconfig token`'s configuration is found (`--config`, else upward from `cwd`), for the token cache. */
export function tokenConfig(config: string | undefined, env: TokenConfig['env'], cwd: string): TokenConfig {
  return { find: () => findConfig(cwd, config), version: platctlVersion(), env };
}

/** The `ExecCredential` line for a token command line from the cache, or undefined (the whole way runs). */
export async function cachedToken(
  argv: readonly string[],
  env: TokenConfig['env'],
  cwd: string,
): Promise<string | undefined> {
  const args = tokenArgs(argv);
  // A setting platctl does not understand is refused by the whole way, never passed over by the cache.
  if (args === undefined || envSettingErrors(env).length > 0) return undefined;
  // Loaded here, not above: every other command line imports `tokenArgs` from this module (cli/fast-path.ts).
  const { cachedExecCredential, tokenCacheRequest } = await import('../cloud/eks-token-cache.js');
  const request = await tokenCacheRequest(args.env, tokenConfig(args.config, env, cwd));
  return request && cachedExecCredential(request, Date.now());
}
