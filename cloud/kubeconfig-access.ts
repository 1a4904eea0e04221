/**
 * What `platctl kubeconfig` asks of AWS: a cluster's kubeconfig entry (its endpoint and CA, from DescribeCluster),
 * and `platctl kubeconfig token`'s EKS token, signed with the environment's credentials. Expected failures are
 * values, one line each; cloud/kubeconfig-command.ts prints them and picks the exit code.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { CredentialProvider } from './credentials.js';
import type { EksToken } from './eks-token.js';
import type { EnvCloud } from './environment.js';
import type { ClusterEntry, KubeconfigDocument } from './kubeconfig-merge.js';
import { contextName } from './kubeconfig-merge.js';

type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/** A cloud failure on one line: what, and what to do in parentheses. */
export function failureLine(failure: { readonly message: string; readonly hint?: string | undefined }): string {
  return `${failure.message}${failure.hint ? ` (${failure.hint})` : ''}`;
}

/** The environments `platctl kubeconfig` writes entries for: those named by `--env`, else every one. */
export function kubeconfigEnvs(all: readonly string[], named: readonly string[]): readonly string[] {
  return named.length > 0 ? named : all;
}

/** What `platctl kubeconfig` says (each line without the `platctl: ` the CLI puts before a problem). */
export const KUBECONFIG_WORDS = {
  noCluster: 'no environment names a cluster (environments.<env>.cluster.name)',
  notAKubeconfig: (target: string, why: string): string => `${target} is not a kubeconfig (${why}); left unchanged`,
  written: (entry: ClusterEntry, target: string): string =>
    `context ${contextName(entry.env)} -> ${entry.endpoint} (${target})\n`,
  tokenNeedsOneEnv: 'kubeconfig token needs exactly one --env',
} as const;

/** What a token is signed for: `env`'s cluster in its region, with its profile for the login hint. */
export interface TokenTarget<S> {
  readonly cluster: string;
  readonly region: string;
  readonly profile: string | undefined;
  /** The environment's settings, known to name both. */
  readonly settings: S;
}

/** The cluster and region `platctl kubeconfig token` signs for `env` (its configured settings), or why there are none. */
export function tokenTarget<
  S extends {
    readonly cluster?: { readonly name: string } | undefined;
    readonly aws?: { readonly region?: string | undefined; readonly profile?: string | undefined } | undefined;
  },
>(env: string, settings: S | undefined): Outcome<TokenTarget<S>> {
  const cluster = settings?.cluster?.name;
  const region = settings?.aws?.region;
  if (!settings || cluster === undefined || region === undefined) {
    return { ok: false, message: `environment ${env} needs cluster.name and aws.region for a token` };
  }
  return { ok: true, value: { cluster, region, profile: settings.aws?.profile, settings } };
}

/** The kubeconfig entry of `env`'s cluster; a cluster not described, or without an endpoint yet, says why. */
export async function clusterEntry(
  env: string,
  cloud: Pick<EnvCloud, 'describeCluster'>,
  signal: AbortSignal,
): Promise<Outcome<ClusterEntry>> {
  const described = await cloud.describeCluster(signal);
  if (!described.ok) {
    return { ok: false, message: `${env}: ${failureLine(described)}` };
  }
  const { endpoint, caData, status } = described.value;
  if (!endpoint || !caData) {
    return { ok: false, message: `${env}: cluster ${described.value.name} has no endpoint yet (status ${status})` };
  }
  return { ok: true, value: { env, endpoint, caData } };
}

/**
 * The kubeconfig entries of the environments `wanted`, each through its cloud (`cloudOf`: undefined when the
 * environment has no cluster). One with no cluster is a problem only when `named` (asked for by `--env`); one whose
 * cluster cannot be described is a problem, and the others are still written.
 */
export async function clusterEntries(
  wanted: readonly string[],
  named: readonly string[],
  cloudOf: (env: string) => Pick<EnvCloud, 'describeCluster'> | undefined,
  signal: AbortSignal,
): Promise<{ readonly entries: ClusterEntry[]; readonly problems: string[] }> {
  const entries: ClusterEntry[] = [];
  const problems: string[] = [];
  for (const env of wanted) {
    const cloud = cloudOf(env);
    if (cloud === undefined) {
      if (named.includes(env)) problems.push(`environment ${env} has no cluster (environments.${env}.cluster.name)`);
      continue;
    }
    const entry = await clusterEntry(env, cloud, signal);
    if (entry.ok) entries.push(entry.value);
    else problems.push(entry.message);
  }
  return { entries, problems };
}

/**
 * The kubeconfig at `path` as a document: an absent or empty file is an empty document; one that cannot be read or
 * parsed, or is not a mapping, is not a kubeconfig (the CLI then leaves it unchanged), with why.
 */
export async function readKubeconfig(path: string): Promise<Outcome<KubeconfigDocument>> {
  if (!existsSync(path)) return { ok: true, value: {} };
  try {
    const { parse } = await import('yaml');
    return asKubeconfig(parse(await readFile(path, 'utf8')));
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** Parsed YAML as a kubeconfig document: empty is an empty document, anything but a mapping is not a kubeconfig. */
export function asKubeconfig(parsed: unknown): Outcome<KubeconfigDocument> {
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    return { ok: true, value: parsed as KubeconfigDocument };
  }
  if (parsed !== null && parsed !== undefined) return { ok: false, message: 'not a mapping' };
  return { ok: true, value: {} };
}

/** A token signed for `cluster`, and when the credentials that signed it expire (the token cache keeps it no longer). */
export interface SignedToken {
  readonly token: EksToken;
  readonly credentialsExpireAt: number | undefined;
}

/**
 * Resolves the credentials (an expired SSO session surfaces here) and signs an EKS token for `cluster`. A failure is
 * a login problem, said with the profile's login hint.
 */
export async function signEksToken(
  cluster: string,
  region: string,
  credentials: CredentialProvider,
  profile: string | undefined,
): Promise<Outcome<SignedToken>> {
  const { eksToken } = await import('./eks-token.js');
  try {
    const identity = await credentials();
    const token = await eksToken(cluster, region, identity);
    return { ok: true, value: { token, credentialsExpireAt: identity.expiration?.getTime() } };
  } catch (error) {
    const { describeAwsError, loginHint } = await import('./auth-errors.js');
    return {
      ok: false,
      message: `cannot sign an EKS token for ${cluster}: ${describeAwsError(error)} (${loginHint(profile)})`,
    };
  }
}
