import { describe, expect, it } from 'vitest';
import { checkerFor, planChecks, prefixNeedsUnits, stateLocation } from '../../../validate/plan.js';
import { makeConfig, s3State, unit, unitMap } from './fakes.js';

const units = unitMap(
  unit('platform/eks', s3State('platform/eks')),
  unit('platform/cilium', s3State('platform/cilium')),
  unit('platform/argocd', s3State('platform/argocd')),
  unit('platform/vpc', s3State('platform/vpc')),
  unit('platform/network/eks-addons', s3State('platform/network/eks-addons')),
);

describe('checkerFor', () => {
  const checkers = { eks: 'eks_cluster', cilium: 'cilium_agent', argocd: 'argocd_apps' } as const;

  it('matches the whole last path element, not a prefix of it', () => {
    expect(checkerFor('platform/eks', checkers)).toBe('eks_cluster');
    expect(checkerFor('platform/network/eks', checkers)).toBe('eks_cluster');
    // eks-addons is not the cluster: it gets the generic state check.
    expect(checkerFor('platform/network/eks-addons', checkers)).toBeUndefined();
    expect(checkerFor('platform/cilium-agent', checkers)).toBeUndefined();
    expect(checkerFor('platform/eks/vpc', checkers)).toBeUndefined();
    expect(checkerFor('platform/vpc', checkers)).toBeUndefined();
  });

  it('takes globs on the last element and whole unit ids, first match in file order', () => {
    expect(checkerFor('platform/eks-main', { 'eks-*': 'argocd_apps', eks: 'eks_cluster' })).toBe('argocd_apps');
    expect(checkerFor('platform/eks', { 'eks-*': 'argocd_apps', eks: 'eks_cluster' })).toBe('eks_cluster');
    expect(checkerFor('preprod/k8s/cluster', { 'preprod/k8s/cluster': 'eks_cluster' })).toBe('eks_cluster');
    expect(checkerFor('platform/k8s/cluster', { 'preprod/k8s/cluster': 'eks_cluster' })).toBeUndefined();
    expect(checkerFor('platform/a/b/cilium', { 'platform/**': 'cilium_agent' })).toBe('cilium_agent');
  });
});

describe('stateLocation', () => {
  it('takes bucket, key and region from the evaluated remote_state, falling back to aws.state_bucket', () => {
    expect(stateLocation(unit('platform/vpc', s3State('platform/vpc', 'other')), 'fallback')).toEqual({
      type: 's3',
      bucket: 'other',
      key: 'vpc/terraform.tfstate',
      region: 'eu-west-1',
    });
    expect(stateLocation(unit('platform/vpc', { backend: 's3', config: { key: 'k' } }), 'fallback')).toEqual({
      type: 's3',
      bucket: 'fallback',
      key: 'k',
    });
  });

  it('says why a state cannot be checked', () => {
    expect(stateLocation(unit('platform/vpc'), 'b')).toMatchObject({ type: 'unchecked' });
    expect(stateLocation(unit('platform/vpc', { backend: 'gcs', config: {} }), 'b')).toMatchObject({
      type: 'unchecked',
    });
    expect(stateLocation(unit('platform/vpc', { backend: 's3', config: { bucket: 'b' } }), undefined)).toMatchObject({
      type: 'unresolved',
      reason: 'remote_state has no key that evaluates offline',
    });
    expect(stateLocation(unit('platform/vpc', { backend: 's3', config: { key: 'k' } }), undefined)).toMatchObject({
      type: 'unresolved',
    });
  });
});

describe('planChecks', () => {
  const config = makeConfig({
    validate: {
      endpoints: [{ url: 'https://argocd.example.com', expect: [200, 302], timeout: '3s' }],
      dns_delegation: [{ zone: 'platform.example.com' }],
      gateway: { namespace: 'gateway', name: 'public' },
      tailscale: { peers: ['bastion'] },
      timeout: '4s',
    },
  });

  it('plans phase 1, the cluster gate, per-unit checks and cross-cutting checks with their dependencies', () => {
    const plan = planChecks({ config, units });
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.checks.map((c) => [c.id, c.phase])).toEqual([
      ['iam/credentials:platform', 'iam'],
      ['iam/deployer_role:platform', 'iam'],
      ['iam/state_bucket:platform', 'iam'],
      ['cluster/api:platform', 'cluster'],
      ['unit/argocd_apps:platform/argocd', 'units'],
      ['unit/cilium_agent:platform/cilium', 'units'],
      ['unit/eks_cluster:platform/eks', 'units'],
      ['unit/state:platform/network/eks-addons', 'units'],
      ['unit/state:platform/vpc', 'units'],
      ['http/endpoint:https://argocd.example.com', 'cross'],
      ['dns/delegation:platform.example.com', 'cross'],
      ['gateway/status:gateway/public', 'cross'],
      ['tailscale/status:local', 'cross'],
    ]);
    const byId = new Map(plan.checks.map((c) => [c.id, c]));
    const iam = ['iam/credentials:platform', 'iam/deployer_role:platform', 'iam/state_bucket:platform'];
    expect(byId.get('iam/deployer_role:platform')?.requires).toEqual(['iam/credentials:platform']);
    expect(byId.get('cluster/api:platform')?.requires).toEqual(iam);
    expect(byId.get('unit/eks_cluster:platform/eks')?.requires).toEqual([...iam, 'cluster/api:platform']);
    expect(byId.get('unit/state:platform/vpc')?.requires).toEqual(iam);
    expect(byId.get('gateway/status:gateway/public')?.requires).toEqual([...iam, 'cluster/api:platform']);
    expect(byId.get('http/endpoint:https://argocd.example.com')).toMatchObject({
      requires: [],
      timeoutMs: 3000,
      timeoutIsFailure: true,
    });
    expect(byId.get('unit/state:platform/vpc')?.timeoutMs).toBe(4000);
    expect(byId.get('unit/state:platform/vpc')?.spec).toMatchObject({
      kind: 'unit-state',
      state: { type: 's3', key: 'vpc/terraform.tfstate' },
    });
  });

  it('selects by prefix and keeps what the selection depends on', () => {
    const only = (prefix: string) => {
      const plan = planChecks({ config, units, checkPrefix: prefix });
      return plan.ok ? plan.checks.map((c) => c.id) : plan.message;
    };
    expect(only('tailscale')).toEqual(['tailscale/status:local']);
    expect(only('unit/cilium')).toEqual([
      'iam/credentials:platform',
      'iam/deployer_role:platform',
      'iam/state_bucket:platform',
      'cluster/api:platform',
      'unit/cilium_agent:platform/cilium',
    ]);
    expect(only('iam/state')).toEqual(['iam/credentials:platform', 'iam/state_bucket:platform']);
    expect(only('nope')).toContain('--check nope: no check id starts with it (checks here: iam/credentials');
  });

  it('keeps to the selected environments', () => {
    const twoEnvs = makeConfig({
      environments: {
        platform: { dir: 'live/platform', aws: { region: 'eu-west-1' }, cluster: { name: 'platform' } },
        preprod: { dir: 'live/preprod', aws: { region: 'eu-west-1' } },
      },
      validate: { dns_delegation: [{ zone: 'example.com' }, { zone: 'preprod.example.com', env: 'preprod' }] },
    });
    const plan = planChecks({
      config: twoEnvs,
      units: unitMap(unit('platform/vpc', s3State('platform/vpc')), unit('preprod/vpc', s3State('preprod/vpc'))),
      envs: ['preprod'],
    });
    expect(plan.ok && plan.checks.map((c) => c.id)).toEqual([
      'iam/credentials:preprod',
      'unit/state:preprod/vpc',
      'dns/delegation:preprod.example.com',
    ]);
  });

  it('knows which prefixes need discovery', () => {
    expect(prefixNeedsUnits(undefined)).toBe(true);
    expect(prefixNeedsUnits('u')).toBe(true);
    expect(prefixNeedsUnits('unit/eks')).toBe(true);
    expect(prefixNeedsUnits('tailscale')).toBe(false);
    expect(prefixNeedsUnits('iam')).toBe(false);
    expect(prefixNeedsUnits('cluster/api')).toBe(true);
    expect(prefixNeedsUnits('c')).toBe(true);
    expect(prefixNeedsUnits('http/')).toBe(false);
  });
});
