/**
 * `platctl up` judges the bastion by SSM, as operators reach it: once the instance runs, up waits (bounded by
 * park.<env>.bastion_ready_timeout) until its SSM agent reports Online. EC2, EKS and S3 are moto's; moto does not
 * implement SSM DescribeInstanceInformation, so the recording proxy in front of it answers that one call with the
 * loopback stub of tests/helpers/ssm-agents.ts, which answers exactly AWS's documented JSON.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useAwsProxy } from '../helpers/aws-proxy.js';
import { useMoto } from '../helpers/moto.js';
import { useParkEnv } from '../helpers/park-env.js';
import { instanceState, parkConfig } from '../helpers/park-fixture.js';
import type { PingStatus } from '../helpers/ssm-agents.js';

// Each test runs platctl down and up (two or three times) against moto: a minute on a loaded 2-core machine.
describe('platctl up: the bastion is ready when its SSM agent is Online', { timeout: 180_000 }, () => {
  const moto = useMoto();
  const proxy = useAwsProxy(moto);
  const park = useParkEnv(moto, {
    prefix: 'platctl-park-ssm-',
    config: parkConfig('    bastion_ready_timeout: 3s\n'),
    proxy,
  });
  const { cli } = park;
  beforeEach(() => {
    proxy.agents = undefined;
  });
  afterEach(() => {
    proxy.agents = undefined;
  });

  /** The DescribeInstanceInformation calls made so far. */
  const agentCalls = () => proxy.calls.filter((c) => c.action === 'DescribeInstanceInformation');

  it('waits while the agent reconnects after the start, and succeeds once it is Online', async () => {
    expect((await cli(['down', '--yes'])).code).toBe(0);
    // The agent of a freshly started instance reports ConnectionLost for a while before it is Online again.
    let polls = 0;
    proxy.agents = (id) => (id !== park.bastionId ? undefined : (polls += 1) < 3 ? 'ConnectionLost' : 'Online');
    proxy.calls.length = 0;

    const up = await cli(['up']);
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    expect(await instanceState(moto.endpoint, park.bastionId)).toBe('running');
    expect(up.stdout).toMatch(new RegExp(`bastion +.*started ${park.bastionId}; SSM agent Online after \\d+s`));
    expect(agentCalls().length).toBeGreaterThanOrEqual(3);
  });

  it('an agent that never comes Online fails up after bastion_ready_timeout, naming it; --resume finishes once it is', async () => {
    expect((await cli(['down', '--yes'])).code).toBe(0);
    const status: { now: PingStatus | undefined } = { now: 'ConnectionLost' };
    proxy.agents = (id) => (id === park.bastionId ? status.now : undefined);

    const stuck = await cli(['up']);
    expect(stuck.code).toBe(1);
    expect(stuck.stdout).toContain(
      `the bastion runs, but its SSM agent is not Online after 3s (bastion_ready_timeout): ${park.bastionId}: SSM agent ConnectionLost, last ping`,
    );
    expect(stuck.stdout).toContain('AmazonSSMManagedInstanceCore');
    expect(stuck.stdout).toContain('Resume with: platctl up --resume');
    expect(await instanceState(moto.endpoint, park.bastionId)).toBe('running');

    status.now = undefined;
    const unregistered = await cli(['up', '--resume']);
    expect(unregistered.code).toBe(1);
    expect(unregistered.stdout).toContain(`${park.bastionId}: no SSM agent has registered`);

    status.now = 'Online';
    const resumed = await cli(['up', '--resume']);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`already running: ${park.bastionId}; SSM agent Online after`));
  });

  it('validate --check bastion: parked after down (healthy), running and Online after up', async () => {
    expect((await cli(['down', '--yes'])).code).toBe(0);
    const parked = await cli(['validate', '--check', 'bastion', '--json']);
    expect(parked.code).toBe(0);
    const parkedChecks = (JSON.parse(parked.stdout) as { checks: { id: string; status: string; message: string }[] })
      .checks;
    expect(parkedChecks.find((c) => c.id === 'bastion/ready:platform')).toMatchObject({
      status: 'skip',
      message: expect.stringMatching(
        new RegExp(`^parked: platform is parked \\(since .*\\), bastion ${park.bastionId} stopped`),
      ),
    });

    expect((await cli(['up'])).code).toBe(0);
    const ready = await cli(['validate', '--check', 'bastion']);
    expect(ready.code).toBe(0);
    expect(ready.stdout).toContain(`${park.bastionId} running, SSM agent Online`);
  });

  it('up --dry-run says it will wait for the agent, and asks SSM nothing', async () => {
    expect((await cli(['down', '--yes'])).code).toBe(0);
    proxy.calls.length = 0;
    const dry = await cli(['up', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`start ${park.bastionId}`);
    expect(dry.stdout).toContain('then wait for its SSM agent to report Online (at most 3s)');
    expect(agentCalls()).toEqual([]);
  });
});
