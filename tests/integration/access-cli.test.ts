/**
 * `platctl access` end to end through the CLI's main(), in-process. moto 5.2.1 has no EKS access entries (no
 * CreateAccessEntry, ListAccessEntries, AssociateAccessPolicy, ...), so the EKS client is replaced with
 * aws-sdk-client-mock over an in-memory store of entries; the credentials preflight (STS) runs against moto.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AssociateAccessPolicyCommand,
  CreateAccessEntryCommand,
  DeleteAccessEntryCommand,
  DescribeAccessEntryCommand,
  DisassociateAccessPolicyCommand,
  EKSClient,
  ListAccessEntriesCommand,
  ListAssociatedAccessPoliciesCommand,
} from '@aws-sdk/client-eks';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MANAGED_TAG, planAccess, policyArnFor } from '../../cloud/access-plan.js';
import { MOTO_ACCOUNT_ID, useMoto } from '../helpers/moto.js';
import { runCli } from '../helpers/run-cli.js';

const ADMIN = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy';
const VIEW = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy';
const role = (name: string) => `arn:aws:iam::${MOTO_ACCOUNT_ID}:role/${name}`;

interface StoredEntry {
  type: string;
  tags: Record<string, string>;
  policies: { policyArn: string; accessScope: { type: 'cluster' | 'namespace'; namespaces?: string[] } }[];
}

/** The EKS access entries of cluster `platform`, served through aws-sdk-client-mock. */
function fakeEks() {
  const entries = new Map<string, StoredEntry>();
  const calls: string[] = [];
  const eks = mockClient(EKSClient);
  const entry = (arn: string | undefined) => {
    const found = entries.get(arn ?? '');
    if (!found) {
      throw Object.assign(new Error(`The specified access entry resource can't be found.`), {
        name: 'ResourceNotFoundException',
        $metadata: { httpStatusCode: 404 },
      });
    }
    return found;
  };
  eks.on(ListAccessEntriesCommand).callsFake(() => ({ accessEntries: [...entries.keys()] }));
  eks.on(DescribeAccessEntryCommand).callsFake((input: { principalArn?: string }) => {
    const e = entry(input.principalArn);
    return { accessEntry: { principalArn: input.principalArn, type: e.type, tags: e.tags } };
  });
  eks.on(ListAssociatedAccessPoliciesCommand).callsFake((input: { principalArn?: string }) => ({
    associatedAccessPolicies: entry(input.principalArn).policies,
  }));
  eks.on(CreateAccessEntryCommand).callsFake((input: { principalArn?: string; tags?: Record<string, string> }) => {
    calls.push(`create ${input.principalArn}`);
    entries.set(input.principalArn ?? '', { type: 'STANDARD', tags: input.tags ?? {}, policies: [] });
    return {};
  });
  eks
    .on(AssociateAccessPolicyCommand)
    .callsFake((input: { principalArn?: string; policyArn?: string; accessScope?: { type?: string } }) => {
      calls.push(`associate ${input.principalArn} ${input.policyArn} ${input.accessScope?.type}`);
      const e = entry(input.principalArn);
      e.policies = e.policies.filter((p) => p.policyArn !== input.policyArn);
      e.policies.push({ policyArn: input.policyArn ?? '', accessScope: { type: 'cluster' } });
      return {};
    });
  eks.on(DisassociateAccessPolicyCommand).callsFake((input: { principalArn?: string; policyArn?: string }) => {
    calls.push(`disassociate ${input.principalArn} ${input.policyArn}`);
    const e = entry(input.principalArn);
    e.policies = e.policies.filter((p) => p.policyArn !== input.policyArn);
    return {};
  });
  eks.on(DeleteAccessEntryCommand).callsFake((input: { principalArn?: string }) => {
    calls.push(`delete ${input.principalArn}`);
    entry(input.principalArn);
    entries.delete(input.principalArn ?? '');
    return {};
  });
  return { eks, entries, calls };
}

describe('platctl access', () => {
  const moto = useMoto();
  let dir: string;
  let fake: ReturnType<typeof fakeEks>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'platctl-access-'));
    mkdirSync(join(dir, 'live', 'platform'), { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => {
    fake = fakeEks();
    writeConfig([
      { arn: role('Admins'), policy: 'AmazonEKSClusterAdminPolicy' },
      { arn: role('Developers'), policy: 'AmazonEKSViewPolicy' },
    ]);
    // EKS's own entries: the node role and the cluster creator. platctl must never remove them.
    fake.entries.set(role('NodeRole'), { type: 'EC2_LINUX', tags: {}, policies: [] });
    fake.entries.set(role('Creator'), {
      type: 'STANDARD',
      tags: {},
      policies: [{ policyArn: ADMIN, accessScope: { type: 'cluster' } }],
    });
  });
  afterEach(() => fake.eks.restore());

  function writeConfig(principals: { arn: string; policy: string }[], accountId = MOTO_ACCOUNT_ID): void {
    const list = principals.map((p) => `      - { arn: '${p.arn}', policy: ${p.policy} }`).join('\n');
    writeFileSync(
      join(dir, '.platctl.yaml'),
      `version: 1
environments:
  platform:
    dir: live/platform
    aws: { region: eu-west-1, account_id: '${accountId}' }
    cluster: { name: platform }
access:
  platform:
    principals:
${list || '      []'}
`,
    );
  }
  const cli = (...argv: string[]) => runCli(['access', ...argv], { cwd: dir, env: moto.env });

  it('creates the missing entries, tagged as platctl, with their policy at cluster scope', async () => {
    const run = await cli();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(fake.calls).toEqual([
      `create ${role('Admins')}`,
      `associate ${role('Admins')} ${ADMIN} cluster`,
      `create ${role('Developers')}`,
      `associate ${role('Developers')} ${VIEW} cluster`,
    ]);
    expect(fake.entries.get(role('Admins'))?.tags).toEqual({ [MANAGED_TAG.key]: MANAGED_TAG.value });
    expect(run.stdout).toContain(`+ ${role('Admins')}: create the entry, associate AmazonEKSClusterAdminPolicy: done`);

    const again = await cli();
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('platform (cluster platform): up to date\n');
    expect(fake.calls).toHaveLength(4);
  });

  it('--dry-run shows the diff and changes nothing', async () => {
    const run = await cli('--dry-run');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'platform (cluster platform):',
        `  + ${role('Admins')}: create the entry, associate AmazonEKSClusterAdminPolicy`,
        `  + ${role('Developers')}: create the entry, associate AmazonEKSViewPolicy`,
        'Dry run: nothing was changed.',
        '',
      ].join('\n'),
    );
    expect(fake.calls).toEqual([]);
  });

  it('--prune removes only what platctl made and config dropped; never EKS entries', async () => {
    await cli();
    writeConfig([{ arn: role('Admins'), policy: 'AmazonEKSViewPolicy' }]);
    const without = await cli();
    expect(without.stdout).toContain(`- ${role('Developers')}: delete the entry platctl made (with --prune)`);
    expect(without.stdout).toContain(`- ${role('Admins')}: disassociate AmazonEKSClusterAdminPolicy (with --prune)`);
    expect(fake.entries.has(role('Developers'))).toBe(true);

    const pruned = await cli('--prune', '--json');
    expect(pruned.code).toBe(0);
    const report = JSON.parse(pruned.stdout) as { environments: { changes: { action: string; status: string }[] }[] };
    expect(report.environments[0]?.changes.map((c) => `${c.action}:${c.status}`)).toEqual([
      'disassociate:applied',
      'delete:applied',
    ]);
    expect([...fake.entries.keys()].sort()).toEqual([role('Admins'), role('Creator'), role('NodeRole')].sort());
    expect(fake.entries.get(role('Admins'))?.policies.map((p) => p.policyArn)).toEqual([VIEW]);

    writeConfig([]);
    await cli('--prune');
    expect([...fake.entries.keys()].sort()).toEqual([role('Creator'), role('NodeRole')].sort());
    expect(fake.entries.get(role('Creator'))?.policies).toHaveLength(1);
  });

  it('adds a policy to an entry platctl did not make, and never takes one away from it', async () => {
    writeConfig([{ arn: role('Creator'), policy: 'AmazonEKSViewPolicy' }]);
    const run = await cli('--prune');
    expect(run.code).toBe(0);
    expect(fake.calls).toEqual([`associate ${role('Creator')} ${VIEW} cluster`]);
    expect(fake.entries.get(role('Creator'))?.policies.map((p) => p.policyArn)).toEqual([ADMIN, VIEW]);
  });

  it('list shows every entry, who made it and its policies', async () => {
    await cli();
    const run = await cli('list');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('platform (cluster platform): 4 access entries');
    expect(run.stdout).toContain(`  ${role('Admins')}  STANDARD  platctl  AmazonEKSClusterAdminPolicy`);
    expect(run.stdout).toContain(`  ${role('NodeRole')}  EC2_LINUX  not platctl  (no policy)`);
    const json = JSON.parse((await cli('list', '--json')).stdout) as {
      environments: { entries: { principalArn: string; managed: boolean }[] }[];
    };
    expect(json.environments[0]?.entries.filter((e) => e.managed).map((e) => e.principalArn)).toEqual([
      role('Admins'),
      role('Developers'),
    ]);
  });

  it('refuses before any change when the credentials are for another account', async () => {
    writeConfig(
      [{ arn: 'arn:aws:iam::111111111111:role/Admins', policy: 'AmazonEKSClusterAdminPolicy' }],
      '111111111111',
    );
    const run = await cli();
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      `platctl access: platform: credentials preflight failed: the credentials are for account ${MOTO_ACCOUNT_ID}`,
    );
    expect(fake.calls).toEqual([]);
  });

  it('reports a failed call, keeps going, and exits 1', async () => {
    fake.eks.on(CreateAccessEntryCommand, { principalArn: role('Admins') }).rejects(
      Object.assign(new Error('User is not authorized to perform eks:CreateAccessEntry'), {
        name: 'AccessDeniedException',
      }),
    );
    const run = await cli();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `+ ${role('Admins')}: create the entry, associate AmazonEKSClusterAdminPolicy: FAILED`,
    );
    expect(run.stderr).toContain(
      `platctl access: platform: creating an access entry for ${role('Admins')} on cluster platform (environment platform): AccessDeniedException`,
    );
    expect(fake.entries.has(role('Developers'))).toBe(true);
  });

  it('is a usage error for an environment without a cluster or access settings', async () => {
    writeFileSync(
      join(dir, '.platctl.yaml'),
      `version: 1\nenvironments:\n  platform:\n    dir: live/platform\n    aws: { region: eu-west-1 }\n`,
    );
    const run = await cli('--env', 'platform');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('environment platform has no access.platform.principals to reconcile');
    expect(run.stderr).toContain('environment platform names no cluster (set environments.platform.cluster.name)');
    const list = await cli('list', '--prune');
    expect(list.code).toBe(2);
  });
});

describe('planAccess', () => {
  it('maps policy names to ARNs in the principal partition', () => {
    expect(policyArnFor('AmazonEKSViewPolicy', 'arn:aws-cn:iam::111111111111:role/x')).toBe(
      'arn:aws-cn:eks::aws:cluster-access-policy/AmazonEKSViewPolicy',
    );
    expect(policyArnFor(VIEW, role('x'))).toBe(VIEW);
  });

  it('creates an entry once for a principal listed with two policies', () => {
    const plan = planAccess(
      [
        { principalArn: role('A'), policyArn: ADMIN },
        { principalArn: role('A'), policyArn: VIEW },
      ],
      [],
    );
    expect(plan.map((c) => c.action)).toEqual(['create', 'associate']);
  });
});
