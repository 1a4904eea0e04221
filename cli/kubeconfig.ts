/**
 * `platctl kubeconfig`: a kubeconfig context per cluster, whose user runs `platctl kubeconfig token` (an exec
 * plugin) for a fresh EKS token, so kubectl works without the aws CLI. Entries are merged into the target file:
 * other clusters, users and contexts are kept.
 *
 * `platctl kubeconfig token --env E`: prints an `ExecCredential` with a token for E's cluster.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { kubeconfigTarget } from '../cloud/kube.js';
import { mergeKubeconfig } from '../cloud/kubeconfig-merge.js';
import {
  KUBECONFIG_WORDS,
  clusterEntries,
  failureLine,
  kubeconfigEnvs,
  readKubeconfig,
  signEksToken,
  tokenTarget,
} from '../cloud/kubeconfig-access.js';
import { loadConfigOnly } from './project.js';
import { platctlBin } from './version.js';
import type { ArgsOf } from './options.js';
import type { CliIo } from './verb.js';
import { EXIT, defineVerb } from './verb.js';
import type { KUBECONFIG_OPTIONS } from './commands/kubeconfig.js';
import { KUBECONFIG_GRAMMAR } from './commands/kubeconfig.js';
import { writeFileAtomic } from '../config/atomic-write.js';
import { tokenCacheRequest } from './token-fast.js';

type KubeconfigArgs = ArgsOf<typeof KUBECONFIG_OPTIONS>;

async function writeKubeconfig(
  args: KubeconfigArgs & { config?: string | undefined; env?: string[] | undefined },
  io: CliIo,
): Promise<number> {
  const loaded = await loadConfigOnly(args, io);
  if (!loaded.ok) return loaded.exitCode;
  const { config, configPath } = loaded.project;
  const { createEnvCloud } = await import('../cloud/environment.js');
  const wanted = kubeconfigEnvs(Object.keys(config.environments), args.env ?? []);
  const cloudOf = (env: string) => {
    const settings = config.environments[env];
    return settings?.cluster ? createEnvCloud({ envName: env, settings, env: io.env }) : undefined;
  };
  const { entries, problems } = await clusterEntries(wanted, args.env ?? [], cloudOf, io.signal);
  for (const problem of problems) io.stderr.write(`platctl: ${problem}\n`);
  const failed = problems.length > 0;
  if (entries.length === 0) {
    if (!failed) io.stderr.write(`platctl: ${KUBECONFIG_WORDS.noCluster}\n`);
    return failed ? EXIT.failed : EXIT.usage;
  }
  const target = kubeconfigTarget(args.output, io.cwd, io.env);
  const existing = await readKubeconfig(target);
  if (!existing.ok) {
    io.stderr.write(`platctl: ${KUBECONFIG_WORDS.notAKubeconfig(target, existing.message)}\n`);
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
  for (const entry of entries) io.stdout.write(KUBECONFIG_WORDS.written(entry, target));
  const { unrunnableExecWarning } = await import('../cloud/exec-path.js');
  io.stderr.write((await unrunnableExecWarning(args['exec-command'], target, io.env.PATH, platctlBin())) ?? '');
  return failed ? EXIT.failed : EXIT.ok;
}

async function printToken(
  args: { config?: string | undefined; env?: string[] | undefined },
  io: CliIo,
): Promise<number> {
  const env = args.env?.length === 1 ? args.env[0] : undefined;
  if (env === undefined) {
    io.stderr.write(`platctl: ${KUBECONFIG_WORDS.tokenNeedsOneEnv}\n`);
    return EXIT.usage;
  }
  // The text the token is kept under is read before the configuration is loaded, and kept only while unchanged.
  const cacheRequest = await tokenCacheRequest({ env, config: args.config }, io.env, io.cwd);
  const loaded = await loadConfigOnly(args, io);
  if (!loaded.ok) return loaded.exitCode;
  const target = tokenTarget(env, loaded.project.config.environments[env]);
  if (!target.ok) {
    io.stderr.write(`platctl: ${target.message}\n`);
    return EXIT.usage;
  }
  const { createEnvCloud } = await import('../cloud/environment.js');
  const { cluster, region, profile, settings } = target.value;
  const credentials = await createEnvCloud({ envName: env, settings, env: io.env }).credentials();
  if (!credentials.ok) {
    io.stderr.write(`platctl: ${failureLine(credentials)}\n`);
    return EXIT.refused;
  }
  const signed = await signEksToken(cluster, region, credentials.value, profile);
  if (!signed.ok) {
    io.stderr.write(`platctl: ${signed.message}\n`);
    return EXIT.refused;
  }
  const { execCredential } = await import('../cloud/eks-token.js');
  // Outside signEksToken's catch: a failure from here on is a bug of platctl's, reported as one, never as a login problem.
  io.stdout.write(`${JSON.stringify(execCredential(signed.value.token))}\n`);
  const { keepToken, unchangedRequest } = await import('../cloud/eks-token-cache.js');
  const keep = await unchangedRequest(cacheRequest, () =>
    tokenCacheRequest({ env, config: args.config }, io.env, io.cwd),
  );
  if (keep) await keepToken(keep, signed.value.token, signed.value.credentialsExpireAt, Date.now(), writeFileAtomic);
  return EXIT.ok;
}

export const kubeconfigVerb = defineVerb(KUBECONFIG_GRAMMAR, (args, io) =>
  args.action === 'token' ? printToken(args, io) : writeKubeconfig(args, io),
);
