/**
 * What `platctl kubeconfig` asks of AWS: a cluster's kubeconfig entry (its endpoint and CA, from DescribeCluster),
 * and `platctl kubeconfig token`'s EKS token, signed with the environment's credentials. Expected failures are
 * values, one line each; the CLI prints them and picks the exit code.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { CredentialProvider } from './credentials.js';
import type { EksToken } from './eks-token.js';
import type { EnvCloud } from './environment.js';
import type { ClusterEntry, KubeconfigDocument } from './kubeconfig-merge.js';

type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/** The kubeconfig entry of `env`'s cluster; a cluster not described, or without an endpoint yet, says why. */
export async function clusterEntry(
  env: string,
  cloud: Pick<EnvCloud, 'describeCluster'>,
  signal: AbortSignal,
): Promise<Outcome<ClusterEntry>> {
  const described = await cloud.describeCluster(signal);
  if (!described.ok) {
    return { ok: false, message: `${env}: ${described.message}${described.hint ? ` (${described.hint})` : ''}` };
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
