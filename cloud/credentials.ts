/**
 * AWS credentials per environment, and the preflight that proves they work before anything else runs: resolve the
 * provider, check how long the SSO session and the credentials last against the command's time budget, and ask
 * STS who we are, refusing any account but the configured one. Every expected failure is a value with a
 * kebab-case reason and a message that says what to do.
 */
import { describeAwsError, isAuthError, loginHint } from './auth-errors.js';
import type { EnvVars } from './env.js';
import { awsFilePaths } from './env.js';
import { readSsoToken, ssoProfile } from './sso.js';

/** AWS credentials as the SDK resolves them (structurally the SDK's `AwsCredentialIdentity`). */
export interface AwsCredentialIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

/** Resolves credentials; memoized by {@link createCredentialProvider}. */
export type CredentialProvider = () => Promise<AwsCredentialIdentity>;

/** Which principal and region an environment uses (the `aws` block of `.platctl.yaml`). */
export interface AwsTarget {
  /** Shared-config profile; when absent, AWS_PROFILE, then static keys from the environment, then the SDK chain. */
  readonly profile?: string | undefined;
  readonly region: string;
}

/** Re-resolve credentials this long before they expire, so a request never leaves with credentials about to lapse. */
const REFRESH_MARGIN_MS = 5 * 60_000;

/** How long one call made while resolving credentials (SSO, AssumeRole of a role_arn profile) may take by default. */
export const PROVIDER_REQUEST_TIMEOUT_MS = 10_000;

/** Limits for the calls the SDK's providers make on their own (they take no abort signal). */
export interface ProviderCallLimits {
  /** Per request; an endpoint that accepts and never answers is dropped after this (default 10 s). */
  readonly requestTimeoutMs?: number | undefined;
  /** Attempts per call (default 2). */
  readonly maxAttempts?: number | undefined;
}

/**
 * The `clientConfig` of the SDK's credential and token providers. Their requests cannot be aborted from outside, and
 * the SDK only warns about a request past `requestTimeout` unless told to throw: without this, a black-holed SSO or
 * STS endpoint keeps a finished `platctl validate` alive for minutes after its verdict.
 */
export function providerClientConfig(region: string, limits: ProviderCallLimits = {}) {
  const requestTimeout = limits.requestTimeoutMs ?? PROVIDER_REQUEST_TIMEOUT_MS;
  return {
    region,
    maxAttempts: limits.maxAttempts ?? 2,
    requestHandler: {
      connectionTimeout: Math.min(requestTimeout, 5_000),
      requestTimeout,
      throwOnRequestTimeout: true,
    },
  };
}

/** The profile a target resolves through, if any. */
export function effectiveProfile(target: AwsTarget, env: EnvVars): string | undefined {
  return target.profile ?? (env.AWS_PROFILE || undefined);
}

/**
 * Builds the credential provider for `target`. The SDK module is imported here, lazily, so commands that never
 * touch AWS do not pay for it. Results are memoized until shortly before they expire, so the several clients of
 * one environment share one SSO/STS round trip; a failure is not memoized.
 */
export async function createCredentialProvider(
  target: AwsTarget,
  env: EnvVars,
  limits: ProviderCallLimits = {},
): Promise<CredentialProvider> {
  const profile = effectiveProfile(target, env);
  const { configFile, credentialsFile } = awsFilePaths(env);
  let source: CredentialProvider;
  if (profile !== undefined) {
    const { fromIni } = await import('@aws-sdk/credential-providers');
    source = fromIni({
      profile,
      filepath: credentialsFile,
      configFilepath: configFile,
      // The provider is memoized here; the SDK's own file cache would hide a config edited since the last read.
      ignoreCache: true,
      clientConfig: providerClientConfig(target.region, limits),
    });
  } else if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    const expiration = env.AWS_CREDENTIAL_EXPIRATION ? new Date(env.AWS_CREDENTIAL_EXPIRATION) : undefined;
    const identity: AwsCredentialIdentity = {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
      ...(expiration && !Number.isNaN(expiration.getTime()) ? { expiration } : {}),
    };
    source = () => Promise.resolve(identity);
  } else {
    // Web identity, container and instance credentials: the SDK's chain reads its own variables from the process.
    const { fromNodeProviderChain } = await import('@aws-sdk/credential-providers');
    source = fromNodeProviderChain({
      filepath: credentialsFile,
      configFilepath: configFile,
      ignoreCache: true,
      clientConfig: providerClientConfig(target.region, limits),
    });
  }
  return memoizeCredentials(source);
}

/** Caches resolved credentials until {@link REFRESH_MARGIN_MS} before they expire; concurrent callers share one call. */
export function memoizeCredentials(source: CredentialProvider, now: () => number = Date.now): CredentialProvider {
  let cached: AwsCredentialIdentity | undefined;
  let pending: Promise<AwsCredentialIdentity> | undefined;
  return async () => {
    if (cached && (cached.expiration === undefined || cached.expiration.getTime() - now() > REFRESH_MARGIN_MS)) {
      return cached;
    }
    pending ??= source().then(
      (value) => {
        cached = value;
        pending = undefined;
        return value;
      },
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    );
    return pending;
  };
}

/** Who the credentials belong to (STS GetCallerIdentity). */
export interface CallerIdentity {
  readonly account: string;
  readonly arn: string;
  readonly userId: string;
}

export type PreflightFailureReason =
  /** The SSO session is over, was never started, or its cache is unusable. */
  | 'sso-expired'
  /** The SSO session ends before the command's time budget does. */
  | 'sso-expiring'
  /** No credentials could be resolved (missing profile, provider error). */
  | 'credentials-unavailable'
  /** The resolved credentials expire before the command's time budget does. */
  | 'credentials-expiring'
  /** AWS rejected the credentials (expired, invalid, clock skew). */
  | 'credentials-rejected'
  /** The credentials belong to a different account than `account_id`. */
  | 'wrong-account'
  /** Anything else: network, throttling, an endpoint that does not answer. */
  | 'error';

export type PreflightResult =
  | {
      readonly ok: true;
      readonly identity: CallerIdentity;
      readonly credentialsExpireAt?: Date;
      readonly ssoExpiresAt?: Date;
    }
  | {
      readonly ok: false;
      readonly reason: PreflightFailureReason;
      readonly message: string;
      readonly hint?: string;
    };

export interface PreflightOptions {
  readonly target: AwsTarget;
  /** Refuse unless the caller is in this account. */
  readonly accountId?: string | undefined;
  /** How long the command may run: the SSO session and the credentials must outlive it. */
  readonly budgetMs: number;
  readonly env: EnvVars;
  readonly now: () => number;
  readonly provider: CredentialProvider;
  readonly callerIdentity: () => Promise<CallerIdentity>;
  /**
   * Reads a new-style (`sso_session`) token's expiry, refreshing it the way the SDK would. Injected so tests can
   * stand in for IAM Identity Center; defaults to `@aws-sdk/token-providers`' `fromSso`.
   */
  readonly ssoToken?: (profile: string) => Promise<{ expiration?: Date }>;
  /** Limits for the SSO token refresh the default `ssoToken` may make. */
  readonly providerLimits?: ProviderCallLimits;
}

/**
 * The fail-fast credentials preflight (docs/validate.md, phase 1). Never throws for an expected failure.
 */
export async function preflightCredentials(options: PreflightOptions): Promise<PreflightResult> {
  const { target, env, now, budgetMs } = options;
  const profile = effectiveProfile(target, env);
  const budgetText = formatMinutes(budgetMs);
  let ssoExpiresAt: Date | undefined;

  if (profile !== undefined) {
    const sso = await ssoProfile(profile, env);
    if (sso) {
      // A role_arn profile may get its session from a source_profile: the token provider and `aws sso login` both
      // need the profile that holds the SSO settings (the SDK refuses the role profile: no sso_session).
      const ssoName = sso.profile;
      const expiry = await ssoExpiry(sso.session, sso.cacheKey, ssoName, options);
      if (!expiry.ok) return expiry;
      ssoExpiresAt = expiry.expiresAt;
      const left = expiry.expiresAt.getTime() - now();
      if (left <= 0) {
        return {
          ok: false,
          reason: 'sso-expired',
          message: `the SSO session of profile ${ssoName} expired at ${expiry.expiresAt.toISOString()}`,
          hint: loginHint(ssoName),
        };
      }
      if (left < budgetMs) {
        return {
          ok: false,
          reason: 'sso-expiring',
          message: `the SSO session of profile ${ssoName} ends in ${formatMinutes(left)}, before this command's ${budgetText} budget`,
          hint: loginHint(ssoName),
        };
      }
    }
  }

  let credentials: AwsCredentialIdentity;
  try {
    credentials = await options.provider();
  } catch (error) {
    return credentialFailure(error, profile, 'credentials-unavailable');
  }
  if (credentials.expiration) {
    const left = credentials.expiration.getTime() - now();
    if (left < budgetMs) {
      return {
        ok: false,
        reason: 'credentials-expiring',
        message: `the credentials${profile ? ` of profile ${profile}` : ''} expire ${left <= 0 ? 'now' : `in ${formatMinutes(left)}`}, before this command's ${budgetText} budget`,
        hint: profile ? loginHint(profile) : 'renew the session credentials in the environment',
      };
    }
  }

  let identity: CallerIdentity;
  try {
    identity = await options.callerIdentity();
  } catch (error) {
    return credentialFailure(error, profile, 'error');
  }
  if (options.accountId !== undefined && identity.account !== options.accountId) {
    return {
      ok: false,
      reason: 'wrong-account',
      message: `the credentials${profile ? ` of profile ${profile}` : ''} are for account ${identity.account} (${identity.arn}), not ${options.accountId}`,
      hint: 'check the profile of this environment in .platctl.yaml, or AWS_PROFILE',
    };
  }
  return {
    ok: true,
    identity,
    ...(credentials.expiration ? { credentialsExpireAt: credentials.expiration } : {}),
    ...(ssoExpiresAt ? { ssoExpiresAt } : {}),
  };
}

type SsoExpiry = { ok: true; expiresAt: Date } | (PreflightResult & { ok: false });

async function ssoExpiry(
  session: string | undefined,
  cacheKey: string,
  profile: string,
  options: PreflightOptions,
): Promise<SsoExpiry> {
  if (session !== undefined) {
    // New style: ask the token provider, which refreshes a token near its end the way every later call would.
    try {
      const read = options.ssoToken ?? (await defaultSsoToken(options));
      const token = await read(profile);
      if (token.expiration) return { ok: true, expiresAt: token.expiration };
    } catch (error) {
      return credentialFailure(error, profile, 'sso-expired');
    }
  }
  // Legacy profiles (sso_start_url) have no refresh: the cached token's expiry is the session's end.
  const state = await readSsoToken(cacheKey, options.env);
  switch (state.type) {
    case 'valid':
      return { ok: true, expiresAt: state.expiresAt };
    case 'missing':
      return {
        ok: false,
        reason: 'sso-expired',
        message: `profile ${profile} has no SSO session (no token cache at ${state.file})`,
        hint: loginHint(profile),
      };
    case 'unreadable':
      return {
        ok: false,
        reason: 'sso-expired',
        message: `the SSO token cache of profile ${profile} is unreadable: ${state.message}`,
        hint: loginHint(profile),
      };
  }
}

async function defaultSsoToken(
  options: PreflightOptions,
): Promise<(profile: string) => Promise<{ expiration?: Date }>> {
  const { fromSso } = await import('@aws-sdk/token-providers');
  const { configFile, credentialsFile } = awsFilePaths(options.env);
  return (profile) =>
    fromSso({
      profile,
      filepath: credentialsFile,
      configFilepath: configFile,
      ignoreCache: true,
      clientConfig: providerClientConfig(options.target.region, options.providerLimits),
    })();
}

function credentialFailure(
  error: unknown,
  profile: string | undefined,
  fallback: PreflightFailureReason,
): PreflightResult & { ok: false } {
  const text = describeAwsError(error);
  // The SDK's SSO errors say so; the profile's own name ("corp-sso") must not make any error look like one.
  const sso = error instanceof Error && /sso/i.test(profile ? error.message.split(profile).join('') : error.message);
  if (sso) {
    return { ok: false, reason: 'sso-expired', message: text, hint: loginHint(profile) };
  }
  if (isAuthError(error)) {
    const unresolved = error instanceof Error && error.name === 'CredentialsProviderError';
    return {
      ok: false,
      reason: unresolved ? 'credentials-unavailable' : 'credentials-rejected',
      message: text,
      hint: profile
        ? `check profile ${profile} in the AWS config (or ${loginHint(profile).replace(/^run /, '')})`
        : 'set AWS_PROFILE or configure environments.<env>.aws.profile in .platctl.yaml',
    };
  }
  return { ok: false, reason: fallback, message: text };
}

/** `90s`, `14m`, `2h5m`: coarse on purpose, it is for people. */
export function formatMinutes(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes}m`;
  return `${Math.floor(minutes / 60)}h${minutes % 60 ? `${minutes % 60}m` : ''}`;
}
