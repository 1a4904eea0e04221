import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { exitCodeForSignal, handleInterruptions, installSignalHandlers } from '../../../cli/signals.js';
import { confirmTeardown } from '../../../cli/teardown.js';
import { makePaint } from '../../../engine/reporters/paint.js';

class FakeProcess extends EventEmitter {
  exits: number[] = [];
  exit(code: number): void {
    this.exits.push(code);
  }
}

describe('signal handling', () => {
  // Order matters: handleInterruptions() flips module state for the rest of the process.
  it('exits at once on a signal while no verb handles interruptions (Node default)', () => {
    const target = new FakeProcess();
    const handling = installSignalHandlers(target as unknown as NodeJS.Process);
    target.emit('SIGTERM');
    expect(target.exits).toEqual([143]);
    expect(handling.signal.aborted).toBe(false);
    handling.dispose();
    expect(target.listenerCount('SIGINT')).toBe(0);
  });

  it('aborts on the first signal of an interruptible verb, escalates on the second, exits on the third', () => {
    handleInterruptions();
    const target = new FakeProcess();
    const handling = installSignalHandlers(target as unknown as NodeJS.Process);
    target.emit('SIGINT');
    expect(handling.signal.aborted).toBe(true);
    expect(handling.signal.reason).toBe('SIGINT');
    expect(target.exits).toEqual([]);
    target.emit('SIGINT');
    expect(target.exits).toEqual([]);
    target.emit('SIGINT');
    expect(target.exits).toEqual([130]);
    handling.dispose();
  });

  it('maps the signal to the exit code', () => {
    expect([
      exitCodeForSignal('SIGINT'),
      exitCodeForSignal('SIGTERM'),
      exitCodeForSignal('SIGHUP'),
      exitCodeForSignal(undefined),
    ]).toEqual([130, 143, 129, 130]);
  });
});

describe('teardown confirmation', () => {
  const request = {
    command: 'teardown' as const,
    toRun: ['p/b', 'p/a'],
    kept: ['p/floor'],
    excluded: ['p/legacy'],
    envs: ['p'],
  };

  it('shows what will be destroyed and accepts only "yes"', async () => {
    for (const [answer, expected] of [
      ['yes\n', true],
      ['y\n', false],
      ['\n', false],
    ] as const) {
      const input = new PassThrough();
      const output = new PassThrough();
      let shown = '';
      output.on('data', (c: Buffer) => (shown += c.toString()));
      const pending = confirmTeardown(request, input, output, makePaint(false));
      input.end(answer);
      expect(await pending).toBe(expected);
      expect(shown).toContain('this destroys 2 units in p, dependents first:');
      expect(shown).toContain('  - p/b\n  - p/a\n');
      expect(shown).toContain('Kept (teardown floor, never destroyed): p/floor');
      expect(shown).toContain('Excluded (a Terragrunt exclude block, never destroyed): p/legacy');
    }
  });

  it('treats a closed input as no', async () => {
    const input = new PassThrough();
    const pending = confirmTeardown(request, input, new PassThrough(), makePaint(false));
    input.end();
    expect(await pending).toBe(false);
  });
});
