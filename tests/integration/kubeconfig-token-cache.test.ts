/**
 * `platctl kubeconfig token` as kubectl runs it, a whole process each time: the first call signs and keeps the token,
 * the next ones are answered from the token cache, and anything that decides the token signs afresh.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const PLATCTL_BIN = join(import.meta.dirname, '../../bin/platctl.js');

interface Credential {
  status: { token: string; expirationTimestamp: string };
}

describe('kubeconfig token and its cache', () => {
  let dir: string;
  let home: string;

  beforeAll(async () => {
    dir = await tempDir('platctl-token-cache-');
    home = join(dir, 'home');
    mkdirSync(join(dir, 'live'));
    mkdirSync(home);
    writeFileSync(
      join(dir, '.platctl.yaml'),
      'version: 1\nenvironments:\n  platform:\n    dir: live\n    aws: { region: eu-west-1 }\n    cluster: { name: platform }\n',
    );
  });

  const token = (args: string[], env: Record<string, string> = {}) => {
    const run = spawnSync(process.execPath, [PLATCTL_BIN, 'kubeconfig', 'token', ...args], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        AWS_ACCESS_KEY_ID: 'AKIAFIRST',
        AWS_SECRET_ACCESS_KEY: 'secret',
        ...env,
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  };
  const credentialOf = (stdout: string) => {
    const { status } = JSON.parse(stdout) as Credential;
    const url = new URL(Buffer.from(status.token.slice('k8s-aws-v1.'.length), 'base64url').toString());
    return { ...status, keyId: url.searchParams.get('X-Amz-Credential')?.split('/')[0] };
  };

  it('signs once, then answers from the cache until something that decides the token changes', () => {
    const first = token(['--env', 'platform']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const cache = join(home, '.cache', 'platctl', 'eks-tokens');
    const files = readdirSync(cache);
    expect(files).toHaveLength(1);
    expect(statSync(join(cache, files[0]!)).mode & 0o777).toBe(0o600);
    expect(statSync(cache).mode & 0o777).toBe(0o700);

    // The same token to the millisecond of its expiry: a second signing would have a later one.
    expect(token(['--env', 'platform']).stdout).toBe(first.stdout);
    expect(token(['--config', join(dir, '.platctl.yaml'), '--env=platform']).stdout).toBe(first.stdout);

    const otherKey = token(['--env', 'platform'], { AWS_ACCESS_KEY_ID: 'AKIASECOND' });
    expect(otherKey.code).toBe(0);
    expect(credentialOf(otherKey.stdout).keyId).toBe('AKIASECOND');
    expect(credentialOf(first.stdout).keyId).toBe('AKIAFIRST');

    const off = token(['--env', 'platform'], { PLATCTL_TOKEN_CACHE: 'off' });
    expect(off.code).toBe(0);
    expect(off.stdout).not.toBe(first.stdout);

    appendFileSync(join(dir, '.platctl.yaml'), '# edited\n');
    const edited = token(['--env', 'platform']);
    expect(edited.code).toBe(0);
    expect(edited.stdout).not.toBe(first.stdout);
    expect(token(['--env', 'platform']).stdout).toBe(edited.stdout);
  });

  it('never answers for an environment the configuration does not have', () => {
    expect(token(['--env', 'platform']).code).toBe(0);
    const unknown = token(['--env', 'platfrom']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--env platfrom: no such environment');
    expect(unknown.stdout).toBe('');
  });

  it('refuses a setting it does not understand even when a token is kept', () => {
    expect(token(['--env', 'platform']).code).toBe(0);
    const refused = token(['--env', 'platform'], { PLATCTL_REQUEST_TIMEOUT: 'soon' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('PLATCTL_REQUEST_TIMEOUT="soon" is not a number of seconds');
    expect(refused.stdout).toBe('');
  });
});
