/**
 * EKS access entries of one cluster, for `platctl access`: read every entry with its tags and associated policies,
 * create an entry, associate or disassociate a policy, delete an entry. The SDK client is imported on first use.
 */
import type * as EksSdk from '@aws-sdk/client-eks';
import type { AwsAccess } from './sdk-access.js';
import { callOptions, endpointUrl, lazyClient, sdkConfig, sdkFailure } from './sdk-access.js';
import type { CloudResult } from './result.js';
import { ok } from './result.js';

/** A policy associated with an entry: cluster-wide, or limited to namespaces. */
export interface AssociatedPolicy {
  readonly policyArn: string;
  readonly scope: 'cluster' | 'namespace';
  readonly namespaces?: readonly string[];
}

export interface AccessEntry {
  readonly principalArn: string;
  /** STANDARD for people and tools; EC2_LINUX, FARGATE_LINUX, ... for the entries EKS makes for nodes. */
  readonly type: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly policies: readonly AssociatedPolicy[];
}

export interface EksAccess {
  readonly cluster: string;
  /** Every entry of the cluster, with tags and policies (ListAccessEntries, then two reads per entry). */
  list(signal?: AbortSignal): Promise<CloudResult<AccessEntry[]>>;
  create(
    principalArn: string,
    tags: Readonly<Record<string, string>>,
    signal?: AbortSignal,
  ): Promise<CloudResult<void>>;
  /** Associates `policyArn` with cluster scope. */
  associate(principalArn: string, policyArn: string, signal?: AbortSignal): Promise<CloudResult<void>>;
  disassociate(principalArn: string, policyArn: string, signal?: AbortSignal): Promise<CloudResult<void>>;
  remove(principalArn: string, signal?: AbortSignal): Promise<CloudResult<void>>;
}

export function createEksAccess(access: AwsAccess, cluster: string): EksAccess {
  const sdk = () => import('@aws-sdk/client-eks');
  const getClient = lazyClient(() => sdk().then(({ EKSClient }) => new EKSClient(sdkConfig(access, 'EKS'))));
  const where = `on cluster ${cluster} (environment ${access.envName})`;
  const endpoint = { service: 'EKS', url: endpointUrl(access, 'EKS', 'eks') };
  const eks: Eks = { sdk, getClient, cluster, where, endpoint, access };
  const clusterName = cluster;
  return {
    cluster,
    list: (signal) => listEntries(eks, signal),
    create: (principalArn, tags, signal) =>
      attempt(eks, `creating an access entry for ${principalArn}`, (m, client) =>
        client.send(
          new m.CreateAccessEntryCommand({ clusterName, principalArn, tags: { ...tags } }),
          callOptions(signal),
        ),
      ),
    associate: (principalArn, policyArn, signal) =>
      attempt(eks, `associating ${policyArn} with ${principalArn}`, (m, client) =>
        client.send(
          new m.AssociateAccessPolicyCommand({
            clusterName,
            principalArn,
            policyArn,
            accessScope: { type: 'cluster' },
          }),
          callOptions(signal),
        ),
      ),
    disassociate: (principalArn, policyArn, signal) =>
      attempt(eks, `disassociating ${policyArn} from ${principalArn}`, (m, client) =>
        client.send(
          new m.DisassociateAccessPolicyCommand({ clusterName, principalArn, policyArn }),
          callOptions(signal),
        ),
      ),
    remove: (principalArn, signal) =>
      attempt(eks, `deleting the access entry of ${principalArn}`, (m, client) =>
        client.send(new m.DeleteAccessEntryCommand({ clusterName, principalArn }), callOptions(signal)),
      ),
  };
}

/** What each call needs: the SDK module and client (both loaded on first use), the cluster, and where, for messages. */
interface Eks {
  readonly sdk: () => Promise<typeof EksSdk>;
  readonly getClient: () => Promise<EksSdk.EKSClient>;
  readonly cluster: string;
  readonly where: string;
  readonly endpoint: { readonly service: string; readonly url: string };
  readonly access: AwsAccess;
}

/** One write: done, or the SDK's failure named by `what`. */
async function attempt(
  eks: Eks,
  what: string,
  run: (m: typeof EksSdk, client: EksSdk.EKSClient) => Promise<unknown>,
): Promise<CloudResult<void>> {
  try {
    const [m, client] = await Promise.all([eks.sdk(), eks.getClient()]);
    await run(m, client);
    return ok(undefined);
  } catch (error) {
    return sdkFailure(error, `${what} ${eks.where}`, eks.access.profile, eks.endpoint);
  }
}

/** Every entry, by principal ARN, each with its type, tags and associated policies. */
async function listEntries(eks: Eks, signal: AbortSignal | undefined): Promise<CloudResult<AccessEntry[]>> {
  const m = await eks.sdk();
  const client = await eks.getClient();
  const entries: AccessEntry[] = [];
  let principal = '';
  try {
    const arns: string[] = [];
    const pages = m.paginateListAccessEntries({ client }, { clusterName: eks.cluster }, callOptions(signal));
    for await (const page of pages) arns.push(...(page.accessEntries ?? []));
    for (principal of arns.sort()) entries.push(await readEntry(eks, m, client, principal, signal));
  } catch (error) {
    const what = principal ? `reading the access entry of ${principal}` : 'listing access entries';
    return sdkFailure(error, `${what} ${eks.where}`, eks.access.profile, eks.endpoint);
  }
  return ok(entries);
}

/** One entry: DescribeAccessEntry, then every page of its associated policies; throws what the SDK throws. */
async function readEntry(
  eks: Eks,
  m: typeof EksSdk,
  client: EksSdk.EKSClient,
  principal: string,
  signal: AbortSignal | undefined,
): Promise<AccessEntry> {
  const input = { clusterName: eks.cluster, principalArn: principal };
  const described = await client.send(new m.DescribeAccessEntryCommand(input), callOptions(signal));
  const policies: AssociatedPolicy[] = [];
  for await (const page of m.paginateListAssociatedAccessPolicies({ client }, input, callOptions(signal))) {
    for (const policy of page.associatedAccessPolicies ?? []) {
      const namespaces = policy.accessScope?.namespaces ?? [];
      policies.push({
        policyArn: policy.policyArn ?? '',
        scope: policy.accessScope?.type === 'namespace' ? 'namespace' : 'cluster',
        ...(namespaces.length > 0 ? { namespaces } : {}),
      });
    }
  }
  return {
    principalArn: principal,
    type: described.accessEntry?.type ?? 'STANDARD',
    tags: described.accessEntry?.tags ?? {},
    policies,
  };
}
