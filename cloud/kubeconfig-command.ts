/**
 * `platctl kubeconfig` from its command line to its exit code: a kubeconfig context per cluster, whose user runs
 * `platctl kubeconfig token` (an exec plugin) for a fresh EKS token, so kubectl works without the aws CLI. Entries
 * are merged into the target file: other clusters, users and contexts are kept.
 *
 * `platctl kubeconfig token --env E`: prints an `ExecCredential` with a token for E's cluster, and keeps it in the
 * token cache. The CLI passes in the configuration's loading, its process, and what cloud/ does not import
 * (`KubeconfigIo`).
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { EXIT } from '../config/exit-codes.js';
import type { TokenConfig, WriteFileAtomic } from './eks-token-cache.js';
import type { EnvCloudOptions } from './environment.js';
import type { EnvVars } from './env.js';
import { kubeconfigTarget } from './kube.js';
import { mergeKubeconfig } from './kubeconfig-merge.js';
import {
  KUBECONFIG_WORDS,
  clusterEntries,
  failureLine,
  kubeconfigEnvs,
  readKubeconfig,
  signEksToken,
  tokenTarget,
} from './kubeconfig-access.js';

export interface KubeconfigArgs {
  action?: 'write' | 'token' | undefined;
  env?: string[] | undefined;
  output?: string | undefined;
  'exec-command'?: string | undefined;
}

type Loaded =
  | {
      ok: true;
      project: {
        readonly config: { readonly environments: Readonly<Record<string, EnvCloudOptions['settings'] | undefined>> };
        readonly configPath: string;
      };
    }
  | { ok: false; exitCode: number };

/** What the CLI gives `platctl kubeconfig`: the configuration's loading, its process, and two helpers of its own. */
export interface KubeconfigIo {
  /** `.platctl.yaml` alone, `--env` checked against it, problems printed. */
  load(): Promise<Loaded>;
  readonly stdout: Pick<NodeJS.WritableStream, 'write'>;
  readonly stderr: Pick<NodeJS.WritableStream, 'write'>;
  readonly env: EnvVars;
  readonly cwd: string;
  readonly signal: AbortSignal;
  /** Replaces a file whole or not at all (config/atomic-write.ts). */
  readonly writeFileAtomic: (
    file: string,
    data: string,
    options: Partial<Parameters<WriteFileAtomic>[2]>,
  ) => Promise<void>;
  /** Where the configuration the token cache keys on is found, and platctl's version. */
  readonly tokenConfig: TokenConfig;
  /** The executable this platctl is started by, when known (for the warning about an exec plugin kubectl cannot run). */
  platctlBin(): string | undefined;
}

/** `platctl kubeconfig [token]`: the exit code. */
export function kubeconfigCommand(args: KubeconfigArgs, io: KubeconfigIo): Promise<number> {
  return args.action === 'token' ? printToken(args, io) : writeKubeconfig(args, io);
}

async function writeKubeconfig(args: KubeconfigArgs, io: KubeconfigIo): Promise<number> {
  const loaded = await io.load();
  if (!loaded.ok) return loaded.exitCode;
  const { config, configPath } = loaded.project;
  const { createEnvCloud } = await import('./environment.js');
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
  await io.writeFileAtomic(target, stringify(merged), { mode: 0o600 });
  for (const entry of entries) io.stdout.write(KUBECONFIG_WORDS.written(entry, target));
  const { unrunnableExecWarning } = await import('./exec-path.js');
  io.stderr.write((await unrunnableExecWarning(args['exec-command'], target, io.env.PATH, io.platctlBin())) ?? '');
  return failed ? EXIT.failed : EXIT.ok;
}

async function printToken(args: KubeconfigArgs, io: KubeconfigIo): Promise<number> {
  const env = args.env?.length === 1 ? args.env[0] : undefined;
  if (env === undefined) {
    io.stderr.write(`platctl: ${KUBECONFIG_WORDS.tokenNeedsOneEnv}\n`);
    return EXIT.usage;
  }
  // The text the token is kept under is read before the configuration is loaded, and kept only while unchanged.
  const { keepToken, tokenCacheRequest, unchangedRequest } = await import('./eks-token-cache.js');
  const cacheRequest = await tokenCacheRequest(env, io.tokenConfig);
  const loaded = await io.load();
  if (!loaded.ok) return loaded.exitCode;
  const target = tokenTarget(env, loaded.project.config.environments[env]);
  if (!target.ok) {
    io.stderr.write(`platctl: ${target.message}\n`);
    return EXIT.usage;
  }
  const { createEnvCloud } = await import('./environment.js');
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
  const { execCredential } = await import('./eks-token.js');
  // Outside signEksToken's catch: a failure from here on is a bug of platctl's, reported as one, never as a login problem.
  io.stdout.write(`${JSON.stringify(execCredential(signed.value.token))}\n`);
  const keep = await unchangedRequest(cacheRequest, () => tokenCacheRequest(env, io.tokenConfig));
  if (keep) await keepToken(keep, signed.value.token, signed.value.credentialsExpireAt, Date.now(), io.writeFileAtomic);
  return EXIT.ok;
}
