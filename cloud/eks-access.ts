/**
 * EKS access entries of one cluster, for `platctl access`: read every entry with its tags and associated policies,
 * create an entry, associate or disassociate a policy, delete an entry. The SDK client is imported on first use.
 */
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
  const attempt = async (what: string, run: () => Promise<void>): Promise<CloudResult<void>> => {
    try {
      await run();
      return ok(undefined);
    } catch (error) {
      return sdkFailure(error, `${what} ${where}`, access.profile, endpoint);
    }
  };

  return {
    cluster,
    async list(signal) {
      const m = await sdk();
      const eks = await getClient();
      const paging = { client: eks };
      const entries: AccessEntry[] = [];
      let principal = '';
      try {
        const arns: string[] = [];
        for await (const page of m.paginateListAccessEntries(paging, { clusterName: cluster }, callOptions(signal))) {
          arns.push(...(page.accessEntries ?? []));
        }
        for (principal of arns.sort()) {
          const described = await eks.send(
            new m.DescribeAccessEntryCommand({ clusterName: cluster, principalArn: principal }),
            callOptions(signal),
          );
          const policies: AssociatedPolicy[] = [];
          const input = { clusterName: cluster, principalArn: principal };
          for await (const page of m.paginateListAssociatedAccessPolicies(paging, input, callOptions(signal))) {
            for (const policy of page.associatedAccessPolicies ?? []) {
              const namespaces = policy.accessScope?.namespaces ?? [];
              policies.push({
                policyArn: policy.policyArn ?? '',
                scope: policy.accessScope?.type === 'namespace' ? 'namespace' : 'cluster',
                ...(namespaces.length > 0 ? { namespaces } : {}),
              });
            }
          }
          entries.push({
            principalArn: principal,
            type: described.accessEntry?.type ?? 'STANDARD',
            tags: described.accessEntry?.tags ?? {},
            policies,
          });
        }
      } catch (error) {
        const what = principal ? `reading the access entry of ${principal}` : 'listing access entries';
        return sdkFailure(error, `${what} ${where}`, access.profile, endpoint);
      }
      return ok(entries);
    },
    create: (principalArn, tags, signal) =>
      attempt(`creating an access entry for ${principalArn}`, async () => {
        const [m, eks] = await Promise.all([sdk(), getClient()]);
        await eks.send(
          new m.CreateAccessEntryCommand({ clusterName: cluster, principalArn, tags: { ...tags } }),
          callOptions(signal),
        );
      }),
    associate: (principalArn, policyArn, signal) =>
      attempt(`associating ${policyArn} with ${principalArn}`, async () => {
        const [m, eks] = await Promise.all([sdk(), getClient()]);
        await eks.send(
          new m.AssociateAccessPolicyCommand({
            clusterName: cluster,
            principalArn,
            policyArn,
            accessScope: { type: 'cluster' },
          }),
          callOptions(signal),
        );
      }),
    disassociate: (principalArn, policyArn, signal) =>
      attempt(`disassociating ${policyArn} from ${principalArn}`, async () => {
        const [m, eks] = await Promise.all([sdk(), getClient()]);
        await eks.send(
          new m.DisassociateAccessPolicyCommand({ clusterName: cluster, principalArn, policyArn }),
          callOptions(signal),
        );
      }),
    remove: (principalArn, signal) =>
      attempt(`deleting the access entry of ${principalArn}`, async () => {
        const [m, eks] = await Promise.all([sdk(), getClient()]);
        await eks.send(new m.DeleteAccessEntryCommand({ clusterName: cluster, principalArn }), callOptions(signal));
      }),
  };
}
