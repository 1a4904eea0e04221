/**
 * The Secrets Manager calls of the `secret_cleanup` and `argocd_account_token` hooks. The SDK client is imported on
 * first use. Secret values only ever travel into AWS: nothing here returns, logs or puts one in an error message.
 */
import type * as SecretsManagerSdk from '@aws-sdk/client-secrets-manager';
import type { AwsAccess } from './sdk-access.js';
import { callOptions, lazyClient, sdkConfig, sdkFailure } from './sdk-access.js';
import type { CloudResult } from './result.js';
import { failure, ok } from './result.js';

/** A secret as ListSecrets describes it. */
export interface SecretSummary {
  readonly name: string;
  readonly arn: string;
  /** When the secret will be gone for good; set only while it is scheduled for deletion. */
  readonly deletionDate?: Date;
}

/** Which secrets a caller cares about: exact names and name prefixes (both compared case-sensitively). */
export interface SecretNameMatch {
  readonly names: readonly string[];
  readonly prefixes: readonly string[];
}

/** Where a secret name stands. */
export type SecretState = 'absent' | 'active' | 'pending-deletion';

export interface SecretsManager {
  /** Secrets scheduled for deletion whose names match (ListSecrets with IncludePlannedDeletion). */
  listPendingDeletion(match: SecretNameMatch, signal?: AbortSignal): Promise<CloudResult<SecretSummary[]>>;
  /** DeleteSecret with ForceDeleteWithoutRecovery. AWS finishes it asynchronously: see {@link state}. */
  forceDelete(secretId: string, signal?: AbortSignal): Promise<CloudResult<void>>;
  /** DescribeSecret: absent once a force delete has finished and the name is free again. */
  state(secretId: string, signal?: AbortSignal): Promise<CloudResult<SecretState>>;
  /** PutSecretValue of a string; the value never appears in what this returns. */
  putValue(secretId: string, value: string, signal?: AbortSignal): Promise<CloudResult<{ versionId?: string }>>;
}

/** True when `name` is one of `match.names` or starts with one of `match.prefixes`. */
export function matchesSecretName(name: string, match: SecretNameMatch): boolean {
  return match.names.includes(name) || match.prefixes.some((prefix) => name.startsWith(prefix));
}

/** ListSecrets accepts at most 10 values per filter. */
const FILTER_VALUES_MAX = 10;

export function createSecretsManager(access: AwsAccess): SecretsManager {
  const sdk = () => import('@aws-sdk/client-secrets-manager');
  const getClient = lazyClient(() =>
    sdk().then(({ SecretsManagerClient }) => new SecretsManagerClient(sdkConfig(access, 'Secrets Manager'))),
  );
  const sm: Sm = { sdk, getClient, where: `in ${access.region} (environment ${access.envName})`, access };
  return {
    listPendingDeletion: (match, signal) => listPendingDeletion(sm, match, signal),
    forceDelete: (secretId, signal) => forceDelete(sm, secretId, signal),
    state: (secretId, signal) => secretState(sm, secretId, signal),
    putValue: (secretId, value, signal) => putValue(sm, secretId, value, signal),
  };
}

/** What each call needs: the SDK module and client (both loaded on first use), and where, for messages. */
interface Sm {
  readonly sdk: () => Promise<typeof SecretsManagerSdk>;
  readonly getClient: () => Promise<SecretsManagerSdk.SecretsManagerClient>;
  readonly where: string;
  readonly access: AwsAccess;
}

async function listPendingDeletion(
  { sdk, getClient, where, access }: Sm,
  match: SecretNameMatch,
  signal: AbortSignal | undefined,
): Promise<CloudResult<SecretSummary[]>> {
  const values = [...match.names, ...match.prefixes];
  const found = new Map<string, SecretSummary>();
  try {
    const [{ paginateListSecrets }, sm] = await Promise.all([sdk(), getClient()]);
    // The name filter matches by prefix and ignores case: it narrows the listing, the exact test is ours.
    for (let at = 0; at < values.length; at += FILTER_VALUES_MAX) {
      // A paginator's own config has no signal: the third argument is what each page's send() gets.
      const pages = paginateListSecrets(
        { client: sm },
        {
          IncludePlannedDeletion: true,
          Filters: [{ Key: 'name', Values: values.slice(at, at + FILTER_VALUES_MAX) }],
        },
        callOptions(signal),
      );
      for await (const page of pages) {
        for (const secret of page.SecretList ?? []) {
          const name = secret.Name ?? '';
          if (!secret.DeletedDate || !matchesSecretName(name, match)) continue;
          found.set(secret.ARN ?? name, { name, arn: secret.ARN ?? name, deletionDate: secret.DeletedDate });
        }
      }
    }
  } catch (error) {
    return sdkFailure(error, `listing secrets scheduled for deletion ${where}`, access.profile);
  }
  return ok([...found.values()].sort((a, b) => a.name.localeCompare(b.name)));
}

async function forceDelete(
  { sdk, getClient, where, access }: Sm,
  secretId: string,
  signal: AbortSignal | undefined,
): Promise<CloudResult<void>> {
  try {
    const [{ DeleteSecretCommand }, sm] = await Promise.all([sdk(), getClient()]);
    await sm.send(
      new DeleteSecretCommand({ SecretId: secretId, ForceDeleteWithoutRecovery: true }),
      callOptions(signal),
    );
    return ok(undefined);
  } catch (error) {
    const result = sdkFailure(error, `force-deleting secret ${secretId} ${where}`, access.profile);
    // Already gone is what we wanted.
    return result.reason === 'not-found' ? ok(undefined) : result;
  }
}

async function secretState(
  { sdk, getClient, where, access }: Sm,
  secretId: string,
  signal: AbortSignal | undefined,
): Promise<CloudResult<SecretState>> {
  try {
    const [{ DescribeSecretCommand }, sm] = await Promise.all([sdk(), getClient()]);
    const answer = await sm.send(new DescribeSecretCommand({ SecretId: secretId }), callOptions(signal));
    return ok(answer.DeletedDate ? 'pending-deletion' : 'active');
  } catch (error) {
    const result = sdkFailure(error, `describing secret ${secretId} ${where}`, access.profile);
    return result.reason === 'not-found' ? ok('absent') : result;
  }
}

async function putValue(
  { sdk, getClient, where, access }: Sm,
  secretId: string,
  value: string,
  signal: AbortSignal | undefined,
): Promise<CloudResult<{ versionId?: string }>> {
  try {
    const [{ PutSecretValueCommand }, sm] = await Promise.all([sdk(), getClient()]);
    const answer = await sm.send(
      new PutSecretValueCommand({ SecretId: secretId, SecretString: value }),
      callOptions(signal),
    );
    return ok(answer.VersionId ? { versionId: answer.VersionId } : {});
  } catch (error) {
    const result = sdkFailure(error, `putting a value into secret ${secretId} ${where}`, access.profile);
    if (result.reason === 'not-found') {
      return failure(
        'not-found',
        `secret ${secretId} does not exist ${where}`,
        'create it with Terraform (aws_secretsmanager_secret) before this hook runs, or fix secret_id',
      );
    }
    const name = error instanceof Error ? error.name : '';
    if (name === 'InvalidRequestException') {
      // AWS refuses writes to a secret scheduled for deletion with this name.
      return failure(
        'error',
        result.message,
        `if secret ${secretId} is scheduled for deletion, restore it (aws secretsmanager restore-secret) or recreate it`,
      );
    }
    return result;
  }
}
