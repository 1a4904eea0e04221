/** An `output` wait's look: `terragrunt output -json` read, then set / equal / not yet / cannot read. */
import { describe, expect, it } from 'vitest';
import { checkOutput, waitLooks } from '../../../converge/checks.js';
import { readOutputJson } from '../../../engine/terragrunt.js';
import type { OutputsRead } from '../../../engine/terragrunt.js';
import type { ValidateDeps } from '../../../validate/deps.js';

const outputs = (entries: Record<string, { value: unknown; sensitive?: boolean }>): OutputsRead => ({
  type: 'read',
  outputs: new Map(Object.entries(entries).map(([k, v]) => [k, { value: v.value, sensitive: v.sensitive === true }])),
});

describe('readOutputJson', () => {
  it('reads values and sensitivity; nothing printed is no outputs; anything else is a failed read', () => {
    const read = readOutputJson([
      '{"vpc_id": {"sensitive": false, "type": "string", "value": "vpc-1"},',
      ' "token": {"sensitive": true, "type": "string", "value": "s3cret"}}',
    ]);
    expect(read).toEqual(outputs({ vpc_id: { value: 'vpc-1' }, token: { value: 's3cret', sensitive: true } }));
    expect(readOutputJson([])).toEqual(outputs({}));
    expect(readOutputJson(['{}'])).toEqual(outputs({}));
    expect(readOutputJson(['Warning: no outputs'])).toMatchObject({
      type: 'failed',
      message: expect.stringContaining('not JSON'),
    });
    expect(readOutputJson(['[1]'])).toMatchObject({ type: 'failed' });
  });
});

describe('checkOutput', () => {
  const want = { unit: 'platform/eks', name: 'status' } as const;

  it('passes when the output is set, or equals the value asked for', () => {
    expect(checkOutput(want, outputs({ status: { value: 'ACTIVE' } }))).toEqual({
      status: 'pass',
      message: 'output status of platform/eks is "ACTIVE"',
    });
    expect(checkOutput({ ...want, equals: 3 }, outputs({ status: { value: 3 } })).status).toBe('pass');
    expect(checkOutput({ ...want, equals: true }, outputs({ status: { value: true } })).status).toBe('pass');
  });

  it('is not ready while the output is unset, null or another value', () => {
    expect(checkOutput(want, outputs({ other: { value: 1 } }))).toEqual({
      status: 'fail',
      message: 'output status of platform/eks is not set',
      details: ['platform/eks has outputs: other'],
    });
    expect(checkOutput(want, outputs({}))).toMatchObject({ status: 'fail', details: ['platform/eks has no outputs'] });
    expect(checkOutput(want, outputs({ status: { value: null } })).status).toBe('fail');
    expect(checkOutput({ ...want, equals: 'ACTIVE' }, outputs({ status: { value: 'CREATING' } }))).toEqual({
      status: 'fail',
      message: 'output status of platform/eks is "CREATING", not "ACTIVE"',
    });
    // 3 and "3" differ: the value must be the same JSON scalar.
    expect(checkOutput({ ...want, equals: 3 }, outputs({ status: { value: '3' } })).status).toBe('fail');
  });

  it('never shows a sensitive value', () => {
    const secret = outputs({ status: { value: 'hunter2', sensitive: true } });
    const passed = checkOutput(want, secret);
    const failed = checkOutput({ ...want, equals: 'other' }, secret);
    expect(passed).toEqual({ status: 'pass', message: 'output status of platform/eks is (sensitive)' });
    expect(failed).toEqual({
      status: 'fail',
      message: 'output status of platform/eks (sensitive) is not the value expected',
    });
    expect(JSON.stringify([passed, failed])).not.toContain('hunter2');
  });

  it('a read that failed is an error (waiting longer cannot help), with how to see why', () => {
    expect(checkOutput(want, { type: 'failed', message: 'terragrunt output exited 1: Error: no state' })).toEqual({
      status: 'error',
      message: 'cannot read output status of platform/eks: terragrunt output exited 1: Error: no state',
      hint: 'run terragrunt output -json in platform/eks to see why',
    });
  });
});

describe('waitLooks for an output wait', () => {
  it("reads the wait's unit through the reader, with the run's signal and the look's bound", async () => {
    const asked: [string, boolean, number][] = [];
    const look = waitLooks({} as ValidateDeps, 1_234, (unit, signal, timeoutMs) => {
      asked.push([unit, signal.aborted, timeoutMs]);
      return Promise.resolve(outputs({ vpc_cidr: { value: '10.20.0.0/16' } }));
    });
    const wait = {
      id: 'vpc',
      after: [],
      output: { unit: 'preprod/networking', name: 'vpc_cidr', equals: '10.20.0.0/16' },
    };
    const seen = await look(wait, undefined, new AbortController().signal);
    expect(seen.status).toBe('pass');
    expect(asked).toEqual([['preprod/networking', false, 1_234]]);
    const without = await waitLooks({} as ValidateDeps)(wait, undefined, new AbortController().signal);
    expect(without.status).toBe('error');
  });
});
