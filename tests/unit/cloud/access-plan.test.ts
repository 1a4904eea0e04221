/**
 * `platctl access`'s listing and reconciliation (cloud/access-plan.ts) against a fake cluster: entries marked as
 * platctl's, a listing that fails, each change's outcome with --dry-run, without --prune, on failure and after an abort.
 */
import { describe, expect, it } from 'vitest';
import type { AccessTarget, ReconcileEvent } from '../../../cloud/access-plan.js';
import {
  MANAGED_TAG,
  accessEnvs,
  applyPlans,
  desiredAccess,
  describeEntry,
  listAccess,
  planTargets,
  reconcileEnding,
} from '../../../cloud/access-plan.js';
import type { AccessEntry, EksAccess } from '../../../cloud/eks-access.js';
import { failure, ok } from '../../../cloud/result.js';

const policy = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy';
const mine: AccessEntry = {
  principalArn: 'arn:aws:iam::1:role/old',
  type: 'STANDARD',
  tags: { [MANAGED_TAG.key]: MANAGED_TAG.value },
  policies: [{ policyArn: policy, scope: 'cluster' }],
};
const node: AccessEntry = { principalArn: 'arn:aws:iam::1:role/node', type: 'EC2_LINUX', tags: {}, policies: [] };

function fakeEks(entries: AccessEntry[] | undefined, fail: string[] = []): EksAccess & { calls: string[] } {
  const calls: string[] = [];
  const act = (what: string) => {
    calls.push(what);
    return Promise.resolve(fail.includes(what) ? failure('forbidden', `${what} failed`, 'try again') : ok(undefined));
  };
  return {
    cluster: 'c1',
    calls,
    list: () => Promise.resolve(entries ? ok(entries) : failure('forbidden', 'cannot list', 'log in')),
    create: (arn) => act(`create ${arn}`),
    associate: (arn) => act(`associate ${arn}`),
    disassociate: (arn) => act(`disassociate ${arn}`),
    remove: (arn) => act(`remove ${arn}`),
  };
}
const target = (eks: EksAccess, env = 'p'): AccessTarget => ({
  env,
  eks,
  desired: [{ principalArn: 'arn:aws:iam::1:role/new', policyArn: policy }],
});
const signal = new AbortController().signal;

describe('listAccess', () => {
  it('marks platctl’s entries, and lists the readable clusters when one fails', async () => {
    const listed = await listAccess([target(fakeEks([mine, node])), target(fakeEks(undefined), 'q')], signal);
    expect(listed.clusters).toEqual([
      {
        env: 'p',
        cluster: 'c1',
        entries: [
          { ...mine, managed: true },
          { ...node, managed: false },
        ],
      },
    ]);
    expect(listed.problems).toEqual([{ env: 'q', message: expect.stringMatching(/cannot list.*\(log in\)$/) }]);
    expect(describeEntry({ ...mine, managed: true })).toBe(
      'arn:aws:iam::1:role/old  STANDARD  platctl  AmazonEKSViewPolicy',
    );
    expect(describeEntry({ ...node, managed: false })).toBe(
      'arn:aws:iam::1:role/node  EC2_LINUX  not platctl  (no policy)',
    );
  });
});

describe('planTargets and applyPlans', () => {
  it('a listing that fails plans nothing', async () => {
    const planned = await planTargets([target(fakeEks([])), target(fakeEks(undefined), 'q')], signal);
    expect(planned).toMatchObject({ ok: false, env: 'q' });
  });

  it('creates what is missing, leaves a prune for --prune, reports a failure', async () => {
    const eks = fakeEks([mine], ['create arn:aws:iam::1:role/new']);
    const planned = await planTargets([target(eks)], signal);
    if (!planned.ok) throw new Error('planned');
    const events: ReconcileEvent[] = [];
    const done = await applyPlans(planned.plans, { dryRun: false, prune: false, signal }, (e) => events.push(e));
    expect(done.failed).toBe(true);
    expect(done.outcomes[0]?.changes.map((c) => c.status)).toEqual(['failed', 'needs-prune']);
    expect(done.outcomes[0]?.changes[0]?.error).toMatch(/create .* failed \(try again\)/);
    expect(events.map((e) => e.type)).toEqual(['cluster', 'change', 'change']);
    expect(eks.calls).toEqual(['create arn:aws:iam::1:role/new']);
  });

  it('--dry-run changes nothing; after an abort the rest is planned and the run failed', async () => {
    const eks = fakeEks([]);
    const planned = await planTargets([target(eks)], signal);
    if (!planned.ok) throw new Error('planned');
    const dry = await applyPlans(planned.plans, { dryRun: true, prune: true, signal }, () => undefined);
    expect(dry).toMatchObject({ failed: false, outcomes: [{ changes: [{ status: 'planned' }] }] });
    const aborted = new AbortController();
    aborted.abort();
    const events: ReconcileEvent[] = [];
    const cut = await applyPlans(planned.plans, { dryRun: false, prune: true, signal: aborted.signal }, (e) =>
      events.push(e),
    );
    expect(cut.failed).toBe(true);
    expect(events[1]).toMatchObject({ type: 'change', interrupted: true });
    expect(eks.calls).toEqual([]);
  });
});

describe('accessEnvs and desiredAccess', () => {
  const settings = {
    environments: { p: { cluster: {}, aws: {} }, q: { aws: {} }, r: { cluster: {} } },
    access: { p: { principals: [{ arn: 'arn:aws-cn:iam::1:role/a', policy: 'AmazonEKSViewPolicy' }] } },
  };

  it('every environment with access, or with a cluster to list, or the named ones, and what stops each', () => {
    expect(accessEnvs(settings, [], false)).toEqual({ envs: ['p'], problems: [] });
    expect(accessEnvs(settings, [], true)).toEqual({
      envs: ['p', 'r'],
      problems: ['environment r has no AWS settings (set environments.r.aws.region)'],
    });
    expect(accessEnvs(settings, ['q'], false).problems).toEqual([
      'environment q has no access.q.principals to reconcile',
      'environment q names no cluster (set environments.q.cluster.name)',
    ]);
    expect(accessEnvs({ environments: {}, access: {} }, [], false).problems).toEqual([
      'no access.<env> in the configuration: nothing to reconcile',
    ]);
  });

  it('a principal’s policy name becomes its ARN in the principal’s partition', () => {
    expect(desiredAccess(settings, 'p')).toEqual([
      {
        principalArn: 'arn:aws-cn:iam::1:role/a',
        policyArn: 'arn:aws-cn:eks::aws:cluster-access-policy/AmazonEKSViewPolicy',
      },
    ]);
    expect(desiredAccess(settings, 'q')).toEqual([]);
  });
});

describe('reconcileEnding', () => {
  it('closes with the JSON summary under --json, a dry run note in words, or nothing', () => {
    expect(reconcileEnding([], { dryRun: true, prune: false, json: true })).toBe(
      '{"dry_run":true,"prune":false,"environments":[]}\n',
    );
    expect(reconcileEnding([], { dryRun: true, prune: false, json: false })).toBe('Dry run: nothing was changed.\n');
    expect(reconcileEnding([], { dryRun: false, prune: true, json: false })).toBe('');
  });
});
