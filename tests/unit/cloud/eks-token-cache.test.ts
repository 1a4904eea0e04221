import { chmod, mkdir, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../config/atomic-write.js';
import type { TokenCacheRequest } from '../../../cloud/eks-token-cache.js';
import { MIN_LEFT_MS, cachedExecCredential, keepToken, tokenCacheDir } from '../../../cloud/eks-token-cache.js';
import { EKS_TOKEN_LIFETIME_MS } from '../../../cloud/eks-token.js';
import { tempDir } from '../../helpers/temp.js';

const NOW = Date.parse('2026-12-05T10:00:00Z');
const CONFIG = 'version: 1\nenvironments:\n  platform:\n    dir: live\n    cluster: { name: platform }\n';

/** A request whose home (and so cache) is a fresh directory. */
async function request(overrides: Partial<TokenCacheRequest> = {}): Promise<TokenCacheRequest> {
  const home = await tempDir('platctl-token-cache-');
  return {
    configPath: join(home, '.platctl.yaml'),
    configText: CONFIG,
    envName: 'platform',
    version: '1.2.3',
    env: { HOME: home, AWS_PROFILE: 'deployer' },
    ...overrides,
  };
}

const token = (signedAt: number, name = 'a') => ({
  token: `k8s-aws-v1.${name}`,
  expiresAt: new Date(signedAt + EKS_TOKEN_LIFETIME_MS),
});

const keep = (r: TokenCacheRequest, signedAt = NOW, credentialsExpireAt?: number) =>
  keepToken(r, token(signedAt), credentialsExpireAt, signedAt, writeFileAtomic);

const served = async (r: TokenCacheRequest, now = NOW) => {
  const line = await cachedExecCredential(r, now);
  return line === undefined
    ? undefined
    : (JSON.parse(line) as { status: { token: string; expirationTimestamp: string } }).status;
};

describe('the EKS token cache', () => {
  it('serves a kept token as the ExecCredential kubectl expects, from a 0700 directory and a 0600 file', async () => {
    const r = await request();
    expect(await served(r)).toBeUndefined();
    await keep(r);
    expect(await served(r, NOW + 60_000)).toEqual({
      token: 'k8s-aws-v1.a',
      expirationTimestamp: new Date(NOW + EKS_TOKEN_LIFETIME_MS).toISOString(),
    });
    const dir = tokenCacheDir(r.env)!;
    expect(dir).toBe(join(r.env.HOME!, '.cache', 'platctl', 'eks-tokens'));
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect((await stat(join(dir, files[0]!))).mode & 0o777).toBe(0o600);
  });

  it('is a miss for anything that decides the token: environment, configuration, AWS settings, their files, version', async () => {
    const r = await request();
    const credentials = join(r.env.HOME!, '.aws', 'credentials');
    await mkdir(join(r.env.HOME!, '.aws'));
    await writeFile(credentials, '[deployer]\naws_access_key_id = AKIA1\n');
    await keep(r);
    expect(await served(r)).toBeDefined();
    expect(await served({ ...r, envName: 'preprod' })).toBeUndefined();
    expect(await served({ ...r, configText: `${CONFIG}# edited\n` })).toBeUndefined();
    expect(await served({ ...r, configPath: `${r.configPath}.other` })).toBeUndefined();
    expect(await served({ ...r, version: '1.2.4' })).toBeUndefined();
    expect(await served({ ...r, env: { ...r.env, AWS_PROFILE: 'admin' } })).toBeUndefined();
    expect(await served({ ...r, env: { ...r.env, AWS_ACCESS_KEY_ID: 'AKIA2' } })).toBeUndefined();
    // The SDK's start-up warning switch (set by platctl on one path only) decides nothing.
    expect(
      await served({ ...r, env: { ...r.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } }),
    ).toBeDefined();
    await writeFile(credentials, '[deployer]\naws_access_key_id = AKIA9\n');
    expect(await served(r)).toBeUndefined();
  });

  it('serves an entry only while two minutes of it are left, and never one signed after now (a clock set back)', async () => {
    const r = await request();
    await keep(r);
    const end = NOW + EKS_TOKEN_LIFETIME_MS;
    expect(await served(r, end - MIN_LEFT_MS)).toBeDefined();
    expect(await served(r, end - MIN_LEFT_MS + 1)).toBeUndefined();
    expect(await served(r, NOW - 1)).toBeUndefined();
  });

  it('ends an entry a minute before the credentials that signed it expire, and keeps none that would end too soon', async () => {
    const r = await request();
    await keep(r, NOW, NOW + 5 * 60_000);
    expect((await served(r))?.expirationTimestamp).toBe(new Date(NOW + 4 * 60_000).toISOString());

    const soon = await request();
    await keep(soon, NOW, NOW + 2 * 60_000);
    expect(await served(soon)).toBeUndefined();
    await expect(stat(tokenCacheDir(soon.env)!)).rejects.toThrow(/ENOENT/);
  });

  it('is off with PLATCTL_TOKEN_CACHE=off or without HOME, and follows an absolute XDG_CACHE_HOME', async () => {
    const r = await request();
    const off = { ...r, env: { ...r.env, PLATCTL_TOKEN_CACHE: 'off' } };
    await keep(off);
    expect(await served(off)).toBeUndefined();
    await expect(stat(join(r.env.HOME!, '.cache'))).rejects.toThrow();
    expect(tokenCacheDir({})).toBeUndefined();
    expect(tokenCacheDir({ HOME: '/home/me', XDG_CACHE_HOME: '/var/cache/me' })).toBe(
      '/var/cache/me/platctl/eks-tokens',
    );
    expect(tokenCacheDir({ HOME: '/home/me', XDG_CACHE_HOME: 'relative' })).toBe('/home/me/.cache/platctl/eks-tokens');
  });

  it('neither reads nor writes a directory others can read, and does not serve a file others can read', async () => {
    const r = await request();
    await keep(r);
    const dir = tokenCacheDir(r.env)!;
    const [file] = await readdir(dir);
    await chmod(join(dir, file!), 0o644);
    expect(await served(r)).toBeUndefined();
    await chmod(join(dir, file!), 0o600);
    await chmod(dir, 0o755);
    expect(await served(r)).toBeUndefined();
    await keepToken(r, token(NOW, 'b'), undefined, NOW, writeFileAtomic);
    await chmod(dir, 0o700);
    expect((await served(r))?.token).toBe('k8s-aws-v1.a');
  });

  it('takes a torn or foreign entry for a miss, and replaces it with the next token', async () => {
    const r = await request();
    await keep(r);
    const dir = tokenCacheDir(r.env)!;
    const [file] = await readdir(dir);
    await writeFile(join(dir, file!), '{"format":1,"key":');
    expect(await served(r)).toBeUndefined();
    await writeFile(join(dir, file!), JSON.stringify({ format: 2, token: 'k8s-aws-v1.x' }));
    expect(await served(r)).toBeUndefined();
    await keepToken(r, token(NOW, 'c'), undefined, NOW, writeFileAtomic);
    expect((await served(r))?.token).toBe('k8s-aws-v1.c');
  });

  it('removes entries older than an hour when it keeps one, and nothing that is not an entry', async () => {
    const r = await request();
    const dir = tokenCacheDir(r.env)!;
    await keep({ ...r, envName: 'old' });
    const [old] = await readdir(dir);
    const twoHoursAgo = new Date(NOW - 2 * 3_600_000);
    await utimes(join(dir, old!), twoHoursAgo, twoHoursAgo);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    await utimes(join(dir, 'notes.txt'), twoHoursAgo, twoHoursAgo);
    await keep(r);
    const left = await readdir(dir);
    expect(left).toContain('notes.txt');
    expect(left).not.toContain(old);
    expect(left).toHaveLength(2);
  });
});
