/**
 * `platctl kubeconfig`: a kubeconfig context per cluster, whose user runs `platctl kubeconfig token` (an exec
 * plugin) for a fresh EKS token, so kubectl works without the aws CLI. Entries are merged into the target file:
 * other clusters, users and contexts are kept.
 *
 * `platctl kubeconfig token --env E`: prints an `ExecCredential` with a token for E's cluster.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { EnvironmentConfig } from '../config/schema.js';
import { kubeconfigFiles } from '../cloud/kube.js';
import type { ClusterEntry } from '../cloud/kubeconfig-merge.js';
import { contextName, mergeKubeconfig } from '../cloud/kubeconfig-merge.js';
import { clusterEntry, readKubeconfig } from '../cloud/kubeconfig-access.js';
import { loadConfigOnly } from './project.js';
import { platctlBin } from './version.js';
import type { ArgsOf } from './options.js';
import type { CliIo } from './verb.js';
import { EXIT, defineVerb } from './verb.js';
import type { KUBECONFIG_OPTIONS } from './commands/kubeconfig.js';
import { KUBECONFIG_GRAMMAR } from './commands/kubeconfig.js';
import { writeFileAtomic } from '../config/atomic-write.js';
import type { TokenCacheRequest } from '../cloud/eks-token-cache.js';
import type { EksToken } from '../cloud/eks-token.js';
import { tokenCacheRequest } from './token-fast.js';

export type KubeconfigArgs = ArgsOf<typeof KUBECONFIG_OPTIONS>;

/** Where to write: --output, else the first KUBECONFIG entry, else ~/.kube/config. */
export function kubeconfigTarget(output: string | undefined, io: Pick<CliIo, 'cwd' | 'env'>): string {
  if (output !== undefined) return resolve(io.cwd, output);
  return kubeconfigFiles(io.env)[0] ?? join(io.env.HOME ?? '', '.kube', 'config');
}

async function writeKubeconfig(
  args: KubeconfigArgs & { config?: string | undefined; env?: string[] | undefined },
  io: CliIo,
): Promise<number> {
  const loaded = await loadConfigOnly(args, io);
  if (!loaded.ok) return loaded.exitCode;
  const { config, configPath } = loaded.project;
  const { createEnvCloud } = await import('../cloud/environment.js');
  const wanted = args.env && args.env.length > 0 ? args.env : Object.keys(config.environments);
  const entries: ClusterEntry[] = [];
  let failed = false;
  for (const env of wanted) {
    const settings: EnvironmentConfig | undefined = config.environments[env];
    if (!settings?.cluster) {
      if (args.env?.includes(env)) {
        io.stderr.write(`platctl: environment ${env} has no cluster (environments.${env}.cluster.name)\n`);
        failed = true;
      }
      continue;
    }
    const entry = await clusterEntry(env, createEnvCloud({ envName: env, settings, env: io.env }), io.signal);
    if (!entry.ok) {
      io.stderr.write(`platctl: ${entry.message}\n`);
      failed = true;
      continue;
    }
    entries.push(entry.value);
  }
  if (entries.length === 0) {
    if (!failed) io.stderr.write('platctl: no environment names a cluster (environments.<env>.cluster.name)\n');
    return failed ? EXIT.failed : EXIT.usage;
  }
  const target = kubeconfigTarget(args.output, io);
  const existing = await readKubeconfig(target);
  if (!existing.ok) {
    io.stderr.write(`platctl: ${target} is not a kubeconfig (${existing.message}); left unchanged\n`);
    return EXIT.failed;
  }
  const merged = mergeKubeconfig(existing.value, entries, {
    command: args['exec-command'] ?? 'platctl',
    configPath,
  });
  await mkdir(dirname(target), { recursive: true });
  // Temp file + rename: kubectl running concurrently never reads half a file. 0600: it names credentials helpers.
  const { stringify } = await import('yaml');
  await writeFileAtomic(target, stringify(merged), { mode: 0o600 });
  for (const entry of entries) io.stdout.write(`context ${contextName(entry.env)} -> ${entry.endpoint} (${target})\n`);
  await warnUnlessRunnable(args['exec-command'], target, io);
  return failed ? EXIT.failed : EXIT.ok;
}

/**
 * Warns when kubectl could not start the exec plugin's program: `platctl` not on PATH (e.g. installed in a
 * repository and run through npx), or an `--exec-command` that is not an executable file. The file is written all
 * the same; the warning says how to write it with a program kubectl finds.
 */
async function warnUnlessRunnable(given: string | undefined, target: string, io: CliIo): Promise<void> {
  const command = given ?? 'platctl';
  const { findExecutable } = await import('../cloud/exec-path.js');
  if ((await findExecutable(command, { path: io.env.PATH, baseDir: dirname(target) })) !== undefined) return;
  const bin = platctlBin();
  const example = `platctl kubeconfig --exec-command ${bin ?? '/absolute/path/to/bin/platctl.js'}`;
  const why =
    given === undefined
      ? "no platctl is on PATH (with npx platctl, it is only in the repository's node_modules/.bin)"
      : `${given} is not an executable file${given.includes('/') ? '' : ' on PATH'}`;
  io.stderr.write(
    `platctl: warning: ${target} tells kubectl to run ${command} for tokens, but ${why}; kubectl would fail with ` +
      `"executable ${command} not found".\n` +
      `  hint: write it again with the program's absolute path${bin ? ' (this platctl)' : ''}: ${example}\n`,
  );
}

/** Keeps `token` in the token cache when the configuration's text is still the one read before loading it. */
async function keepUnchanged(
  request: TokenCacheRequest | undefined,
  token: EksToken,
  credentialsExpireAt: number | undefined,
  io: CliIo,
): Promise<void> {
  if (request === undefined) return;
  const now = await tokenCacheRequest({ env: request.envName, config: request.configPath }, io.env, io.cwd);
  if (now?.configText !== request.configText) return;
  const { keepToken } = await import('../cloud/eks-token-cache.js');
  await keepToken(request, token, credentialsExpireAt, Date.now(), writeFileAtomic);
}

async function printToken(
  args: { config?: string | undefined; env?: string[] | undefined },
  io: CliIo,
): Promise<number> {
  const env = args.env?.length === 1 ? args.env[0] : undefined;
  if (env === undefined) {
    io.stderr.write('platctl: kubeconfig token needs exactly one --env\n');
    return EXIT.usage;
  }
  // The text the token is kept under is read before the configuration is loaded, and kept only while unchanged.
  const cacheRequest = await tokenCacheRequest({ env, config: args.config }, io.env, io.cwd);
  const loaded = await loadConfigOnly(args, io);
  if (!loaded.ok) return loaded.exitCode;
  const settings = loaded.project.config.environments[env];
  const cluster = settings?.cluster?.name;
  const region = settings?.aws?.region;
  if (!settings || cluster === undefined || region === undefined) {
    io.stderr.write(`platctl: environment ${env} needs cluster.name and aws.region for a token\n`);
    return EXIT.usage;
  }
  const { createEnvCloud } = await import('../cloud/environment.js');
  const credentials = await createEnvCloud({ envName: env, settings, env: io.env }).credentials();
  if (!credentials.ok) {
    io.stderr.write(`platctl: ${credentials.message}${credentials.hint ? ` (${credentials.hint})` : ''}\n`);
    return EXIT.refused;
  }
  const { signEksToken } = await import('../cloud/kubeconfig-access.js');
  const signed = await signEksToken(cluster, region, credentials.value, settings.aws?.profile);
  if (!signed.ok) {
    io.stderr.write(`platctl: ${signed.message}\n`);
    return EXIT.refused;
  }
  const { execCredential } = await import('../cloud/eks-token.js');
  // Outside signEksToken's catch: a failure from here on is a bug of platctl's, reported as one, never as a login problem.
  io.stdout.write(`${JSON.stringify(execCredential(signed.value.token))}\n`);
  await keepUnchanged(cacheRequest, signed.value.token, signed.value.credentialsExpireAt, io);
  return EXIT.ok;
}

export const kubeconfigVerb = defineVerb(KUBECONFIG_GRAMMAR, (args, io) =>
  args.action === 'token' ? printToken(args, io) : writeKubeconfig(args, io),
);
