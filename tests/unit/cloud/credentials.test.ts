import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { AUTH_ERROR_NAMES, isAuthError } from '../../../cloud/auth-errors.js';
import {
  createCredentialProvider,
  formatMinutes,
  memoizeCredentials,
  preflightCredentials,
} from '../../../cloud/credentials.js';
import type { PreflightOptions } from '../../../cloud/credentials.js';
import { parseIni, ssoProfile, ssoTokenFile } from '../../../cloud/sso.js';

const home = mkdtempSync(join(tmpdir(), 'platctl-creds-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

const NOW = Date.parse('2026-06-01T12:00:00Z');
const configFile = join(home, 'config');

function writeAwsConfig(text: string): void {
  writeFileSync(configFile, text);
}

function writeSsoCache(key: string, token: Record<string, unknown>): void {
  const file = ssoTokenFile(key, { HOME: home });
  mkdirSync(join(home, '.aws', 'sso', 'cache'), { recursive: true });
  writeFileSync(file, JSON.stringify(token));
}

const env = { HOME: home, AWS_CONFIG_FILE: configFile, AWS_SHARED_CREDENTIALS_FILE: join(home, 'credentials') };

function options(overrides: Partial<PreflightOptions> = {}): PreflightOptions {
  return {
    target: { profile: 'dev', region: 'eu-west-1' },
    accountId: '111111111111',
    budgetMs: 5 * 60_000,
    env,
    now: () => NOW,
    provider: () => Promise.resolve({ accessKeyId: 'AKID', secretAccessKey: 's' }),
    callerIdentity: () =>
      Promise.resolve({ account: '111111111111', arn: 'arn:aws:sts::111111111111:assumed-role/Dev/me', userId: 'x' }),
    ...overrides,
  };
}

describe('isAuthError', () => {
  it('recognises every expired or invalid credential error name of the doc', () => {
    for (const name of [
      'CredentialsProviderError',
      'TokenProviderError',
      'ExpiredToken',
      'ExpiredTokenException',
      'RequestExpired',
      'InvalidClientTokenId',
      'UnrecognizedClientException',
      'AuthFailure',
      'UnauthorizedException',
      'InvalidSignatureException',
      'SignatureDoesNotMatch',
      'RequestTimeTooSkewed',
      'RequestInTheFuture',
    ]) {
      const error = Object.assign(new Error('x'), { name });
      expect(isAuthError(error), name).toBe(true);
      expect(AUTH_ERROR_NAMES.has(name)).toBe(true);
    }
  });

  it('leaves other errors alone, and reads S3 wire codes', () => {
    expect(isAuthError(Object.assign(new Error('x'), { name: 'AccessDenied' }))).toBe(false);
    expect(isAuthError(Object.assign(new Error('x'), { name: 'NotFound' }))).toBe(false);
    expect(isAuthError('ExpiredToken')).toBe(false);
    expect(isAuthError(null)).toBe(false);
    expect(isAuthError(Object.assign(new Error('x'), { name: 'S3ServiceException', Code: 'InvalidAccessKeyId' }))).toBe(
      true,
    );
  });
});

describe('SSO profile detection', () => {
  it('parses the shared config dialect and follows source_profile to the SSO session', async () => {
    writeAwsConfig(
      [
        '# comment',
        '[profile dev]',
        'sso_session = corp',
        'sso_account_id = 111111111111',
        '[sso-session corp]',
        'sso_start_url = https://corp.awsapps.com/start',
        'sso_region = eu-west-1',
        '[profile deployer]',
        'role_arn = arn:aws:iam::111111111111:role/Deployer',
        'source_profile = dev',
        '[profile legacy]',
        'sso_start_url = https://legacy.awsapps.com/start',
        '[profile static]',
        'region = eu-west-1',
        's3 =',
        '  addressing_style = path',
      ].join('\n'),
    );
    expect(parseIni('[a]\nk = v\n  nested = x\n').get('a')).toEqual({ k: 'v' });
    expect(await ssoProfile('dev', env)).toEqual({ profile: 'dev', session: 'corp', cacheKey: 'corp' });
    expect(await ssoProfile('deployer', env)).toEqual({ profile: 'dev', session: 'corp', cacheKey: 'corp' });
    expect(await ssoProfile('legacy', env)).toEqual({
      profile: 'legacy',
      cacheKey: 'https://legacy.awsapps.com/start',
    });
    expect(await ssoProfile('static', env)).toBeUndefined();
    expect(await ssoProfile('unknown', env)).toBeUndefined();
  });
});

describe('preflightCredentials', () => {
  it('passes with valid, long-lived credentials in the right account', async () => {
    writeAwsConfig('[profile dev]\nregion = eu-west-1\n');
    const result = await preflightCredentials(options());
    expect(result).toMatchObject({ ok: true, identity: { account: '111111111111' } });
  });

  it('fails an expired legacy SSO session before calling anything, naming the login command', async () => {
    writeAwsConfig('[profile dev]\nsso_start_url = https://corp.awsapps.com/start\nsso_region = eu-west-1\n');
    writeSsoCache('https://corp.awsapps.com/start', { accessToken: 'secret', expiresAt: '2026-06-01T11:00:00Z' });
    const provider = vi.fn(() => Promise.resolve({ accessKeyId: 'AKID', secretAccessKey: 's' }));
    const result = await preflightCredentials(options({ provider }));
    expect(result).toMatchObject({ ok: false, reason: 'sso-expired', hint: 'run `aws sso login --profile dev`' });
    expect(!result.ok && result.message).toContain('expired at 2026-06-01T11:00:00.000Z');
    expect(provider).not.toHaveBeenCalled();
  });

  it('fails an SSO session that ends inside the time budget', async () => {
    writeAwsConfig('[profile dev]\nsso_start_url = https://corp.awsapps.com/start\n');
    writeSsoCache('https://corp.awsapps.com/start', { accessToken: 'secret', expiresAt: '2026-06-01T12:03:00Z' });
    const result = await preflightCredentials(options());
    expect(result).toMatchObject({ ok: false, reason: 'sso-expiring' });
    expect(!result.ok && result.message).toContain('ends in 3m');
  });

  it('fails a never-started legacy session', async () => {
    writeAwsConfig('[profile dev]\nsso_start_url = https://never.awsapps.com/start\n');
    const result = await preflightCredentials(options());
    expect(result).toMatchObject({ ok: false, reason: 'sso-expired', hint: 'run `aws sso login --profile dev`' });
  });

  it('uses the SDK token provider for sso_session profiles: an expired token it cannot refresh fails', async () => {
    writeAwsConfig(
      '[profile dev]\nsso_session = corp\n[sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\nsso_region = eu-west-1\n',
    );
    writeSsoCache('corp', { accessToken: 'secret', expiresAt: '2020-01-01T00:00:00Z', region: 'eu-west-1' });
    // The SDK reads the token cache below $HOME of the process and may try a refresh against SSO-OIDC.
    vi.stubEnv('HOME', home);
    vi.stubEnv('AWS_ENDPOINT_URL_SSO_OIDC', 'http://127.0.0.1:9');
    const result = await preflightCredentials(options());
    expect(result).toMatchObject({ ok: false, reason: 'sso-expired', hint: 'run `aws sso login --profile dev`' });
    expect(!result.ok && result.message).toContain('TokenProviderError');
  });

  it('measures an sso_session token against the budget', async () => {
    writeAwsConfig('[profile dev]\nsso_session = corp\n');
    const ssoToken = vi.fn(() => Promise.resolve({ expiration: new Date(NOW + 60 * 60_000) }));
    expect(await preflightCredentials(options({ ssoToken }))).toMatchObject({ ok: true });
    expect(ssoToken).toHaveBeenCalledWith('dev');
    const short = await preflightCredentials(
      options({ ssoToken: () => Promise.resolve({ expiration: new Date(NOW + 60_000) }), budgetMs: 30 * 60_000 }),
    );
    expect(short).toMatchObject({ ok: false, reason: 'sso-expiring' });
  });

  it('measures a role_arn profile by the SSO session of its source_profile, and names that profile to log in', async () => {
    writeAwsConfig(
      [
        '[profile dev]',
        'sso_session = corp',
        'sso_account_id = 111111111111',
        'sso_role_name = Admin',
        '[sso-session corp]',
        'sso_start_url = https://corp.awsapps.com/start',
        'sso_region = eu-west-1',
        '[profile deployer]',
        'role_arn = arn:aws:iam::111111111111:role/Deployer',
        'source_profile = dev',
      ].join('\n'),
    );
    // The real token provider, reading a valid cached token (the SDK finds the cache below the process's HOME).
    const expiresAt = new Date(Date.now() + 2 * 60 * 60_000);
    writeSsoCache('corp', {
      accessToken: 'secret',
      expiresAt: expiresAt.toISOString(),
      region: 'eu-west-1',
      startUrl: 'https://corp.awsapps.com/start',
    });
    vi.stubEnv('HOME', home);
    const deployer = { profile: 'deployer', region: 'eu-west-1' };
    const result = await preflightCredentials(options({ target: deployer, now: Date.now }));
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.ssoExpiresAt?.toISOString()).toBe(expiresAt.toISOString());

    const expired = await preflightCredentials(
      options({ target: deployer, ssoToken: () => Promise.resolve({ expiration: new Date(NOW - 60_000) }) }),
    );
    // `aws sso login` needs the profile that holds the SSO settings, not the role profile.
    expect(expired).toMatchObject({ ok: false, reason: 'sso-expired', hint: 'run `aws sso login --profile dev`' });
  });

  it('maps the SDK provider errors of an expired SSO session to one message with the login command', async () => {
    writeAwsConfig('[profile dev]\nregion = eu-west-1\n');
    const error = Object.assign(
      new Error(
        'The SSO session associated with this profile has expired. To refresh this SSO session run aws sso login with the corresponding profile.',
      ),
      { name: 'CredentialsProviderError', tryNextLink: false },
    );
    const result = await preflightCredentials(options({ provider: () => Promise.reject(error) }));
    expect(result).toMatchObject({ ok: false, reason: 'sso-expired', hint: 'run `aws sso login --profile dev`' });
  });

  it('does not take a missing profile for an SSO problem because its name contains "sso"', async () => {
    writeAwsConfig('[profile other]\nregion = eu-west-1\n');
    const missing = Object.assign(
      new Error('Could not resolve credentials using profile: [corp-sso] in configuration/credentials file(s).'),
      { name: 'CredentialsProviderError', tryNextLink: true },
    );
    const result = await preflightCredentials(
      options({ target: { profile: 'corp-sso', region: 'eu-west-1' }, provider: () => Promise.reject(missing) }),
    );
    expect(result).toMatchObject({ ok: false, reason: 'credentials-unavailable' });
    expect(!result.ok && result.hint).toMatch(/^check profile corp-sso in the AWS config/);
  });

  it('fails credentials that expire within the budget', async () => {
    writeAwsConfig('[profile dev]\nregion = eu-west-1\n');
    const result = await preflightCredentials(
      options({
        provider: () =>
          Promise.resolve({ accessKeyId: 'A', secretAccessKey: 's', expiration: new Date(NOW + 2 * 60_000) }),
      }),
    );
    expect(result).toMatchObject({ ok: false, reason: 'credentials-expiring' });
  });

  it('fails an expired session token rejected by STS (ExpiredToken) with a hint', async () => {
    writeAwsConfig('[profile dev]\nregion = eu-west-1\n');
    const expired = Object.assign(new Error('The security token included in the request is expired'), {
      name: 'ExpiredToken',
      $metadata: { httpStatusCode: 403 },
    });
    const result = await preflightCredentials(options({ callerIdentity: () => Promise.reject(expired) }));
    expect(result).toMatchObject({ ok: false, reason: 'credentials-rejected' });
    expect(!result.ok && result.message).toBe(
      'ExpiredToken (HTTP 403): The security token included in the request is expired',
    );
  });

  it('refuses the wrong account', async () => {
    writeAwsConfig('[profile dev]\nregion = eu-west-1\n');
    const result = await preflightCredentials(
      options({
        callerIdentity: () =>
          Promise.resolve({ account: '999999999999', arn: 'arn:aws:iam::999999999999:user/x', userId: 'x' }),
      }),
    );
    expect(result).toMatchObject({ ok: false, reason: 'wrong-account' });
    expect(!result.ok && result.message).toContain('account 999999999999');
  });
});

describe('credential providers', () => {
  it('uses static keys from the injected environment when no profile is set', async () => {
    const provider = await createCredentialProvider(
      { region: 'eu-west-1' },
      { AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'tok' },
    );
    expect(await provider()).toEqual({ accessKeyId: 'AKID', secretAccessKey: 'secret', sessionToken: 'tok' });
  });

  it('resolves a profile from the configured files', async () => {
    writeFileSync(join(home, 'credentials'), '[dev]\naws_access_key_id = AKIDFILE\naws_secret_access_key = s\n');
    writeAwsConfig('[profile dev]\nregion = eu-west-1\n');
    const provider = await createCredentialProvider({ profile: 'dev', region: 'eu-west-1' }, env);
    expect((await provider()).accessKeyId).toBe('AKIDFILE');
  });

  it('memoizes until shortly before expiry and never caches a failure', async () => {
    let clock = NOW;
    let calls = 0;
    const provider = memoizeCredentials(
      () => {
        calls += 1;
        if (calls === 1) return Promise.reject(new Error('first fails'));
        return Promise.resolve({
          accessKeyId: `K${calls}`,
          secretAccessKey: 's',
          expiration: new Date(clock + 10 * 60_000),
        });
      },
      () => clock,
    );
    await expect(provider()).rejects.toThrow('first fails');
    expect((await provider()).accessKeyId).toBe('K2');
    expect((await provider()).accessKeyId).toBe('K2');
    clock += 6 * 60_000;
    expect((await provider()).accessKeyId).toBe('K3');
  });

  it('formats durations for people', () => {
    expect(formatMinutes(45_000)).toBe('45s');
    expect(formatMinutes(30 * 60_000)).toBe('30m');
    expect(formatMinutes(125 * 60_000)).toBe('2h5m');
  });
});
