/**
 * What `platctl kubeconfig` asks of AWS and of the file it merges into (cloud/kubeconfig-access.ts): a cluster's
 * entry, the existing kubeconfig, and a token whose credentials cannot be resolved.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  asKubeconfig,
  clusterEntry,
  kubeconfigEnvs,
  readKubeconfig,
  signEksToken,
  tokenTarget,
} from '../../../cloud/kubeconfig-access.js';
import { failure, ok } from '../../../cloud/result.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'platctl-kubeconfig-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));
const signal = new AbortController().signal;

describe('clusterEntry', () => {
  it('an endpoint and CA make an entry; a cluster without them, or not described, says why', async () => {
    const described = (value: { status: string; endpoint?: string; caData?: string }) => ({
      describeCluster: () => Promise.resolve(ok({ name: 'c', ...value })),
    });
    expect(
      await clusterEntry('p', described({ status: 'ACTIVE', endpoint: 'https://e', caData: 'Q0E=' }), signal),
    ).toEqual({ ok: true, value: { env: 'p', endpoint: 'https://e', caData: 'Q0E=' } });
    expect(await clusterEntry('p', described({ status: 'CREATING' }), signal)).toEqual({
      ok: false,
      message: 'p: cluster c has no endpoint yet (status CREATING)',
    });
    const denied = { describeCluster: () => Promise.resolve(failure('forbidden', 'denied', 'ask')) };
    expect(await clusterEntry('p', denied, signal)).toEqual({ ok: false, message: 'p: denied (ask)' });
  });
});

describe('readKubeconfig', () => {
  it('absent or empty is an empty document; a mapping is kept; anything else is not a kubeconfig', async () => {
    expect(await readKubeconfig(join(dir, 'none'))).toEqual({ ok: true, value: {} });
    await writeFile(join(dir, 'empty'), '');
    expect(await readKubeconfig(join(dir, 'empty'))).toEqual({ ok: true, value: {} });
    await writeFile(join(dir, 'config'), 'kind: Config\nclusters: []\n');
    expect(await readKubeconfig(join(dir, 'config'))).toEqual({ ok: true, value: { kind: 'Config', clusters: [] } });
    await writeFile(join(dir, 'list'), '- a\n');
    expect(await readKubeconfig(join(dir, 'list'))).toEqual({ ok: false, message: 'not a mapping' });
    await writeFile(join(dir, 'bad'), 'a: [\n');
    expect((await readKubeconfig(join(dir, 'bad'))).ok).toBe(false);
    expect(asKubeconfig(null)).toEqual({ ok: true, value: {} });
  });
});

describe('signEksToken', () => {
  it('credentials that cannot be resolved are a login problem, with the profile’s hint', async () => {
    const expired = () => Promise.reject(new Error('the SSO session has expired'));
    const signed = await signEksToken('c', 'eu-west-1', expired, 'dev');
    expect(signed.ok).toBe(false);
    expect(!signed.ok && signed.message).toMatch(/^cannot sign an EKS token for c: .*the SSO session has expired.*dev/);
  });
});

describe('what kubeconfig works on', () => {
  it('writes the environments --env names, else every one', () => {
    expect(kubeconfigEnvs(['a', 'b'], [])).toEqual(['a', 'b']);
    expect(kubeconfigEnvs(['a', 'b'], ['b'])).toEqual(['b']);
  });
  it('signs a token for a cluster and region, or says which setting is missing', () => {
    const settings = { cluster: { name: 'c' }, aws: { region: 'r', profile: 'p' } };
    expect(tokenTarget('e', settings)).toEqual({
      ok: true,
      value: { cluster: 'c', region: 'r', profile: 'p', settings },
    });
    const missing = { ok: false, message: 'environment e needs cluster.name and aws.region for a token' };
    expect(tokenTarget('e', { aws: { region: 'r' } })).toEqual(missing);
    expect(tokenTarget('e', undefined)).toEqual(missing);
  });
});
