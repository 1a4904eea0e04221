/**
 * What `down`/`up` show people (engine/reporters/park.ts) and the streams the CLI gives it (cli/park-output.ts): a
 * non-terminal gets the walk's timestamp prefix on every line, a live terminal none, `--json` the events as they are.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parkOutput } from '../../../cli/park-output.js';
import type { CliIo } from '../../../cli/verb.js';
import type { EnvOutcome, ParkEvent } from '../../../engine/events.js';
import { makePaint } from '../../../engine/reporters/paint.js';
import { formatStepDuration, parkText, parkVerdict } from '../../../engine/reporters/park.js';

class Collect extends Writable {
  text = '';
  isTTY?: boolean;
  rows?: number;
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

const at = '2026-01-01T10:00:00.000Z';
const paint = makePaint(false);

const events: ParkEvent[] = [
  { type: 'env-started', at, env: 'platform', op: 'down', dry_run: false, resumed: false, steps: ['drain'] },
  { type: 'step-started', at, env: 'platform', step: 'drain', title: 'Drain the nodes' },
  { type: 'step-completed', at, env: 'platform', step: 'drain', duration_ms: 65_000, detail: 'drained 3 nodes' },
  {
    type: 'env-finished',
    at,
    env: 'platform',
    outcome: { env: 'platform', op: 'down', status: 'completed', done_steps: ['drain'], pending_steps: [] },
  },
];

function io(stdout: Collect, stderr = new Collect()): CliIo {
  return { stdout, stderr, env: {}, cwd: '/', color: false, signal: new AbortController().signal };
}

describe('down/up for people', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-01-01T10:00:07.000Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('a non-terminal gets the timestamp prefix of the walk’s plain lines on every line', () => {
    const stdout = new Collect();
    const output = parkOutput(io(stdout), false, 'down', paint);
    for (const event of events) output.render(event);
    output.human.write('Resume with: platctl down --resume\n');
    output.close();
    expect(stdout.text).toBe(
      '10:00:07 down platform\n' +
        '10:00:07   ✓ drain              drained 3 nodes (1m05s)\n' +
        '10:00:07 platform: parked, and verified through AWS\n' +
        '10:00:07 Resume with: platctl down --resume\n',
    );
  });

  it('a live terminal gets the same lines without timestamps', () => {
    const stdout = Object.assign(new Collect(), { isTTY: true, rows: 24 });
    const output = parkOutput(io(stdout), false, 'down', paint);
    for (const event of events) output.render(event);
    expect(stdout.text).toBe(
      'down platform\n  ✓ drain              drained 3 nodes (1m05s)\nplatform: parked, and verified through AWS\n',
    );
  });

  it('--json: the events as NDJSON on stdout, lines for people on stderr', () => {
    const stdout = new Collect();
    const stderr = new Collect();
    const output = parkOutput(io(stdout, stderr), true, 'down', paint);
    for (const event of events) output.render(event);
    output.human.write('warning: x\n');
    expect(
      stdout.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as ParkEvent),
    ).toEqual(events);
    expect(stderr.text).toBe('10:00:07 warning: x\n');
  });

  it('a stopped environment says what is parked and what is not, and how to go on', () => {
    const failed: EnvOutcome = {
      env: 'platform',
      op: 'down',
      status: 'failed',
      reason: 'auth',
      failed_step: 'karpenter',
      done_steps: ['record', 'argocd-pause'],
      pending_steps: ['karpenter', 'node-groups'],
    };
    expect(parkVerdict(failed, paint)).toBe(
      'platform: down failed at step karpenter (credentials rejected: stopped at once)\n' +
        '  parked: record, argocd-pause\n' +
        '  not parked: karpenter, node-groups\n',
    );
    const fenced: EnvOutcome = { ...failed, op: 'up', status: 'fenced', reason: 'fenced', hint: 'run it again' };
    expect(parkVerdict(fenced, paint)).toBe(
      'platform: up stopped: the environment lock was lost\n' +
        '  brought back: record, argocd-pause\n' +
        '  not brought back: karpenter, node-groups\n' +
        '  hint: run it again\n',
    );
    expect(
      parkText(
        {
          type: 'step-planned',
          env: 'platform',
          step: 'bastion',
          title: 'Stop the bastion',
          touches: ['i-1: running'],
        },
        paint,
        'down',
      ),
    ).toBe(`  bastion            Stop the bastion\n${' '.repeat(23)}i-1: running\n`);
    expect([12_400, 185_000].map(formatStepDuration)).toEqual(['12s', '3m05s']);
  });
});
