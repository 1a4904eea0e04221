/**
 * validate's `bastion/ready` check: every instance tagged `park.<env>.bastion.tags` runs and its SSM agent is
 * Online; a parked environment's stopped bastion is reported as parked. EC2 is moto's over real HTTP; moto does not
 * implement SSM DescribeInstanceInformation, so that call goes to the loopback stub of tests/helpers/ssm-agents.ts,
 * which answers exactly AWS's documented JSON.
 */
import { StopInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParkState } from '../../../validate/deps.js';
import { createValidateDeps, validate } from '../../../validate/index.js';
import { planChecks } from '../../../validate/plan.js';
import { MOTO_ACCOUNT_ID, useMoto } from '../../helpers/moto.js';
import { awsClientConfig, runInstance } from '../../helpers/park-fixture.js';
import type { SsmAgentStub } from '../../helpers/ssm-agents.js';
import { startSsmAgentStub } from '../../helpers/ssm-agents.js';
import { makeConfig, unitMap } from './fakes.js';

const config = makeConfig({
  environments: {
    platform: { dir: 'live/platform', aws: { region: 'eu-west-1', account_id: MOTO_ACCOUNT_ID } },
    preprod: { dir: 'live/preprod', aws: { region: 'eu-west-1', account_id: MOTO_ACCOUNT_ID } },
  },
  park: { platform: { bastion: { tags: { Role: 'bastion' } } } },
});

describe('validate bastion/ready (moto EC2, the DescribeInstanceInformation stub)', () => {
  const moto = useMoto();
  let stub: SsmAgentStub;
  beforeAll(async () => {
    stub = await startSsmAgentStub();
  });
  afterAll(async () => {
    await stub.close();
  });

  async function run(parkState?: ParkState) {
    const deps = createValidateDeps({
      config,
      env: { ...moto.env, AWS_ENDPOINT_URL_SSM: stub.endpoint },
      ...(parkState ? { parkState: () => Promise.resolve(parkState) } : {}),
    });
    const outcome = await validate({ config, units: unitMap(), checkPrefix: 'bastion', concurrency: 2 }, deps);
    if (!outcome.ok) throw new Error(outcome.message);
    const check = outcome.report.checks.find((c) => c.check === 'bastion/ready');
    return { check, healthy: outcome.report.healthy };
  }

  it('is planned per environment with park.<env>.bastion, after its credentials', () => {
    const plan = planChecks({ config, units: unitMap() });
    const bastion = plan.ok ? plan.checks.filter((c) => c.check === 'bastion/ready') : [];
    expect(bastion.map((c) => [c.id, c.phase, c.requires])).toEqual([
      ['bastion/ready:platform', 'cross', ['iam/credentials:platform']],
    ]);
  });

  it('passes when the bastion runs and its agent is Online; fails naming an agent that is not', async () => {
    const id = await runInstance(moto.endpoint, { Role: 'bastion' });
    stub.agents.clear();
    stub.agents.set(id, 'Online');
    expect(await run()).toMatchObject({
      check: { status: 'pass', message: `${id} running, SSM agent Online` },
      healthy: true,
    });
    stub.agents.set(id, 'ConnectionLost');
    expect(await run()).toMatchObject({
      check: {
        status: 'fail',
        message: `bastion running, but not reachable through SSM: ${id}: SSM agent ConnectionLost`,
        hint: expect.stringContaining('AmazonSSMManagedInstanceCore') as unknown,
      },
      healthy: false,
    });
    stub.agents.clear();
    expect((await run()).check?.message).toContain(`${id}: no SSM agent has registered`);
  });

  it('a stopped bastion fails, unless the environment is parked: then it is reported as parked', async () => {
    const id = await runInstance(moto.endpoint, { Role: 'bastion' });
    await new EC2Client(awsClientConfig(moto.endpoint)).send(new StopInstancesCommand({ InstanceIds: [id] }));
    stub.agents.clear();
    stub.agents.set(id, 'ConnectionLost');
    expect(await run()).toMatchObject({
      check: { status: 'fail', message: `bastion ${id} is stopped` },
      healthy: false,
    });
    expect(await run({ state: 'parked', since: '2026-12-04T18:00:00.000Z' })).toMatchObject({
      check: {
        status: 'skip',
        message: `parked: platform is parked (since 2026-12-04T18:00:00.000Z), bastion ${id} stopped; platctl up brings it back`,
      },
      healthy: true,
    });
    expect(await run({ state: 'unknown', message: 's3://b/platctl/park/platform.json: AccessDenied' })).toMatchObject({
      check: { status: 'error', message: expect.stringContaining('the park state of platform is unknown') as unknown },
    });
  });

  it('a parked environment whose bastion runs anyway fails; no tagged instance fails naming the tags', async () => {
    expect(await run()).toMatchObject({
      check: {
        status: 'fail',
        message: 'no instance is tagged Role=bastion',
        hint: expect.stringContaining('park.platform.bastion.tags') as unknown,
      },
    });
    const id = await runInstance(moto.endpoint, { Role: 'bastion' });
    expect(await run({ state: 'parked', since: '2026-12-04T18:00:00.000Z' })).toMatchObject({
      check: {
        status: 'fail',
        message: `platform is parked (since 2026-12-04T18:00:00.000Z), yet bastion ${id} is running`,
      },
    });
  });
});
