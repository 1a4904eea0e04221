/** What a down/up command line means before it runs, and what its outcomes mean after (park/command.ts). */
import { describe, expect, it } from 'vitest';
import type { EnvOutcome } from '../../../engine/events.js';
import { chooseParkEnvs, parkEnding, parkNext, parseRestoreSizes } from '../../../park/command.js';

const config = {
  park: { platform: {}, bare: {} },
  environments: {
    platform: { cluster: { name: 'eks' }, aws: { region: 'eu-west-1' } },
    bare: {},
  },
} as unknown as Parameters<typeof chooseParkEnvs>[1];

function outcome(status: EnvOutcome['status'], failed_step?: string): EnvOutcome {
  return { env: 'e', op: 'down', status, done_steps: [], pending_steps: [], ...(failed_step ? { failed_step } : {}) };
}

describe('park command', () => {
  it('chooses --env, else every parked environment, and says what is missing', () => {
    expect(chooseParkEnvs('down', config, ['platform', 'platform'])).toEqual({ envs: ['platform'] });
    expect(chooseParkEnvs('up', config, ['other'])).toEqual({
      error: '--env other: the environment has no park: entry; add park.other to use up',
    });
    expect(chooseParkEnvs('down', config, [])).toEqual({
      error: 'environment bare names no cluster: set environments.bare.cluster.name',
    });
    expect(chooseParkEnvs('down', { park: {}, environments: {} }, [])).toEqual({
      error: 'no environment has a park: entry in the configuration; add park.<env> (docs/park.md) to use down',
    });
  });

  it('reads --restore-size once per group, for one environment, never with --resume', () => {
    const one = { resume: false, envCount: 1 };
    expect(parseRestoreSizes([], { resume: true, envCount: 0 })).toEqual({});
    expect(parseRestoreSizes(['system=2/4/3'], one)).toEqual({ sizes: { system: { min: 2, max: 4, desired: 3 } } });
    expect(parseRestoreSizes(['system=2/4/3', 'system=1/2/1'], one)).toEqual({
      error: '--restore-size system is given twice; give it once',
    });
    expect(parseRestoreSizes(['system=2/4/3'], { resume: false, envCount: 2 })).toMatchObject({
      error: expect.stringContaining('give exactly one --env') as unknown,
    });
    expect(parseRestoreSizes(['system=2/4/3'], { resume: true, envCount: 1 })).toMatchObject({
      error: expect.stringContaining('does not combine with --resume') as unknown,
    });
  });

  it('ends by the worst outcome, and says whether to resume or repeat', () => {
    expect(parkEnding([outcome('completed'), outcome('refused')], false)).toBe('refused');
    expect(parkEnding([outcome('refused'), outcome('failed', 'drain')], false)).toBe('failed');
    expect(parkEnding([outcome('failed', 'drain'), outcome('fenced', 'bastion')], false)).toBe('fenced');
    expect(parkEnding([outcome('fenced', 'bastion'), outcome('interrupted', 'drain')], false)).toBe('interrupted');
    expect(parkEnding([outcome('completed')], true)).toBe('interrupted');
    expect(parkEnding([outcome('planned'), outcome('nothing-to-do')], false)).toBe('ok');
    expect(parkNext([outcome('completed')])).toBeUndefined();
    expect(parkNext([outcome('interrupted', 'preflight')])).toBe('repeat');
    expect(parkNext([outcome('interrupted', 'preflight'), outcome('failed', 'drain')])).toBe('resume');
  });
});
