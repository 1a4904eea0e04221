/**
 * Plain (non-terminal) output shared by every verb: child escape codes stripped, one timestamp format, and the
 * still-running heartbeat (with a short interval: the tests wait for the line, not for a clock).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ParkEvent, WalkEvent } from '../../../engine/events.js';
import { Heartbeat, lineStamp, plainText, stampedStream } from '../../../engine/reporters/lines.js';
import { makePaint } from '../../../engine/reporters/paint.js';
import { parkHeartbeat } from '../../../engine/reporters/park.js';
import { PlainReporter } from '../../../engine/reporters/plain.js';

const at = '2026-01-01T10:00:00.000Z';
const T0 = Date.parse(at);

function collect(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

/** Resolves once `check` holds, polling every few milliseconds; fails the test after 10 s. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('plain lines', () => {
  it('strips colour and control codes from child text in lockdown, failure, hook and warning lines', () => {
    const out = collect();
    const reporter = new PlainReporter(out.stream, makePaint(false));
    const red = (text: string) => `\u001b[31m\u001b[1m${text}\u001b[0m`;
    const events: WalkEvent[] = [
      {
        type: 'lockdown-step-finished',
        at,
        direction: 'lock',
        step: 'private-endpoint',
        unit: 'p/eks',
        attempt: 1,
        result: 'retrying',
        message: `${red('Error:')} ResourceInUseException\r; trying again in 45s (attempt 2 of 3)`,
        duration_ms: 1000,
        log: 'l/eks',
      },
      {
        type: 'unit-failed',
        at,
        unit: 'p/b',
        reason: 'exit-non-zero',
        error: `exit code 1: ${red('Error: boom')}`,
        duration_ms: 1500,
        log: 'l/b',
        last_lines: [],
      },
      {
        type: 'hook-finished',
        at,
        unit: 'p/b',
        hook: 'h',
        point: 'after-unit',
        ok: false,
        detail: red('no'),
        duration_ms: 1,
      },
      { type: 'warning', at, message: `\u001b]8;;http://x\u0007link\u001b]8;;\u0007 ${red('careful')}` },
    ];
    for (const event of events) reporter.event(event);
    reporter.close();
    // eslint-disable-next-line no-control-regex -- no control character may be left
    expect(out.text()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(out.text().split('\n').filter(Boolean)).toEqual([
      '10:00:00 retry   lockdown step private-endpoint: Error: ResourceInUseException; trying again in 45s (attempt 2 of 3)',
      '10:00:00 FAILED  p/b 1.5s: exit code 1: Error: boom [1/0]',
      '         log: l/b',
      '10:00:00 HOOK FAILED p/b: h (after-unit): no',
      '10:00:00 warning: link careful',
    ]);
  });

  it('keeps its own colour when colour is forced, and only strips what came from the child', () => {
    expect(plainText('\u001b[32mApply complete!\u001b[0m\ttab')).toBe('Apply complete!\ttab');
    const out = collect();
    const reporter = new PlainReporter(out.stream, makePaint(true));
    reporter.event({ type: 'warning', at, message: '\u001b[35mchild\u001b[0m' });
    expect(out.text()).toBe('10:00:00 \u001b[33mwarning:\u001b[39m child\n');
  });

  it('one timestamp format for every verb: stamped streams prefix each line once, however it is written', () => {
    expect(lineStamp(at)).toBe('10:00:00');
    expect(lineStamp(T0 + 61_000)).toBe('10:01:01');
    const out = collect();
    let now = T0;
    const stamped = stampedStream(out.stream, () => now);
    stamped.write('down platform\n  ✓ one');
    now += 5000;
    stamped.write(' (1.0s)\n  ✗ two\n');
    expect(out.text()).toBe('10:00:00 down platform\n10:00:00   ✓ one (1.0s)\n10:00:05   ✗ two\n');
  });

  it('the walk prints a still-running line per interval while a unit runs, and none once it is done', async () => {
    const out = collect();
    const reporter = new PlainReporter(out.stream, makePaint(false), {
      heartbeat: { everyMs: 10, now: () => T0 + 272_000 },
    });
    onTestFinished(() => reporter.close());
    reporter.event({ type: 'unit-started', at, unit: 'p/eks', wave: 0, attempt: 1, log: 'l' });
    reporter.event({
      type: 'unit-started',
      at: '2026-01-01T10:03:00.000Z',
      unit: 'p/vpc',
      wave: 0,
      attempt: 1,
      log: 'l',
    });
    await eventually(() => out.text().includes('still running'), 'a heartbeat line');
    expect(out.text()).toContain('10:04:32 still running: p/eks 4m32s, p/vpc 1m32s\n');
    reporter.event({ type: 'unit-completed', at, unit: 'p/eks', duration_ms: 1, log: 'l' });
    reporter.event({ type: 'unit-completed', at, unit: 'p/vpc', duration_ms: 1, log: 'l' });
    reporter.event({
      type: 'lockdown-step-started',
      at,
      direction: 'lock',
      step: 'private-endpoint',
      unit: 'p/eks',
      attempt: 1,
      attempts: 3,
      log: 'l',
    });
    await eventually(
      () => out.text().includes('still running: lockdown step private-endpoint (p/eks) 4m32s'),
      'lockdown',
    );
    reporter.event({
      type: 'lockdown-step-finished',
      at,
      direction: 'lock',
      step: 'private-endpoint',
      unit: 'p/eks',
      attempt: 1,
      result: 'completed',
      duration_ms: 1,
      log: 'l',
    });
    const before = out.text();
    // Nothing runs: the timer is stopped, so no new line can come; a later start brings it back.
    const probe = new Heartbeat((line) => out.stream.write(line), { everyMs: 10, now: () => T0 });
    probe.begin('x', 'probe', T0);
    await eventually(() => out.text().includes('probe'), 'the probe');
    probe.close();
    expect(out.text().slice(before.length)).not.toContain('lockdown step');
  });

  it('down/up: a still-running line names the environment and the step while it runs', async () => {
    const out = collect();
    const beat = new Heartbeat((line) => out.stream.write(line), { everyMs: 10, now: () => T0 + 90_000 });
    onTestFinished(() => beat.close());
    const rendered: string[] = [];
    const emit = parkHeartbeat(beat, 'down', (event: ParkEvent) => rendered.push(event.type));
    emit({ type: 'step-started', at, env: 'platform', step: 'drain', title: 'Drain the nodes' });
    await eventually(() => out.text().includes('still running'), 'a heartbeat line');
    expect(out.text()).toContain('10:01:30 still running: down platform: drain (Drain the nodes) 1m30s\n');
    emit({ type: 'step-completed', at, env: 'platform', step: 'drain', duration_ms: 1, detail: 'drained' });
    expect(rendered).toEqual(['step-started', 'step-completed']);
  });
});
