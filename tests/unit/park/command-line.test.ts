/**
 * What a down/up says and exits with (park/command.ts, park/lock.ts, park/rules.ts): the exit code policy, the
 * command lines it prints, the options checked together, and the words of its locks and of a teardown's clears.
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../cli/verb.js';
import type { EnvOutcome } from '../../../engine/events.js';
import { makePaint } from '../../../engine/reporters/paint.js';
import type { ParkCommandLine, ParkEnding } from '../../../park/command.js';
import {
  DOWN_CONFIRM,
  checkParkOptions,
  mustConfirm,
  parkExitCode,
  parkInvocation,
  parkNextLine,
  parkSummary,
} from '../../../park/command.js';
import { checkoutLockRefusal, tookOverWarning } from '../../../park/lock.js';
import { teardownClearLines } from '../../../park/rules.js';

const line: ParkCommandLine = {
  env: ['platform'],
  config: 'my conf.yaml',
  dryRun: false,
  resume: false,
  yes: true,
  breakLock: true,
  restoreSize: [],
};

function outcome(status: EnvOutcome['status'], failed_step?: string): EnvOutcome {
  return { env: 'e', op: 'down', status, done_steps: [], pending_steps: [], ...(failed_step ? { failed_step } : {}) };
}

describe('park exit codes and lines', () => {
  it('exits by the ending with the CLI exit codes; an interruption with its signal code', () => {
    const codes: Record<ParkEnding, number> = {
      ok: EXIT.ok,
      failed: EXIT.failed,
      refused: EXIT.refused,
      fenced: EXIT.refused,
      interrupted: EXIT.sigterm,
    };
    for (const [ending, code] of Object.entries(codes)) {
      expect(parkExitCode(ending as ParkEnding, EXIT.sigterm)).toBe(code);
    }
  });

  it('prints the command line that holds the lock, repeats or resumes a run', () => {
    expect(parkInvocation('down', line, false)).toBe('platctl down --env platform --yes --break-lock');
    expect(parkInvocation('up', { ...line, resume: true }, true)).toBe(
      "platctl up --env platform --config 'my conf.yaml' --resume --yes --break-lock",
    );
    expect(parkNextLine('down', line, [outcome('completed')])).toBeUndefined();
    expect(parkNextLine('down', line, [outcome('failed', 'preflight')])).toBe(
      "Nothing was changed; run it again: platctl down --env platform --config 'my conf.yaml' --yes --break-lock\n",
    );
    expect(parkNextLine('down', line, [outcome('failed', 'drain')])).toBe(
      "Resume with: platctl down --resume --config 'my conf.yaml' --yes\n",
    );
    expect(parkNextLine('up', { ...line, config: undefined }, [outcome('interrupted', 'drain')])).toBe(
      'Resume with: platctl up --resume\n',
    );
    expect(JSON.stringify(parkSummary('up', true, 0, []))).toBe(
      '{"type":"summary","op":"up","dry_run":true,"exit_code":0,"envs":[]}',
    );
  });

  it('checks the options together before the configuration, and confirms only a real down without --yes', () => {
    expect(checkParkOptions({ ...line, resume: true, dryRun: true })).toEqual({
      error: '--dry-run shows the whole sequence; it does not combine with --resume',
    });
    expect(checkParkOptions({ ...line, env: [], restoreSize: ['system=1/2/1'] })).toEqual({
      error: '--restore-size names node groups of one environment: give exactly one --env',
      hint: 'platctl down --help lists its options',
    });
    expect(checkParkOptions({ ...line, restoreSize: ['system=1/2/1'] })).toEqual({
      sizes: { system: { min: 1, max: 2, desired: 1 } },
    });
    expect(mustConfirm('down', { ...line, yes: false })).toBe(true);
    expect(mustConfirm('down', { ...line, yes: false, dryRun: true })).toBe(false);
    expect(mustConfirm('down', line)).toBe(false);
    expect(mustConfirm('up', { ...line, yes: false })).toBe(false);
    expect(DOWN_CONFIRM.intro(makePaint(false), ['a', 'b'])).toBe(
      'down parks a, b: node groups to 0, Karpenter capacity deleted, bastion stopped.\n',
    );
    expect(DOWN_CONFIRM.confirmed(' yes\n')).toBe(true);
    expect(DOWN_CONFIRM.confirmed(undefined)).toBe(false);
  });

  it('says a held checkout lock would be raced, and a taken-over one', () => {
    const holder = { pid: 7, host: 'h', command: 'platctl up', started_at: 'then' };
    const held = checkoutLockRefusal('down', { type: 'held', holder } as never, '/repo', 'h');
    expect(held.message).toMatch(/; down would race it$/);
    expect(tookOverWarning(makePaint(false), { command: 'platctl down', pid: 9 })).toBe(
      'warning: took over the lock of a platctl that died (platctl down, pid 9)\n',
    );
  });

  it('says which records a teardown removed, and what to do when one could not be', () => {
    const cleared = [
      { env: 'a', removed: ['s3://b/park/a.json', '.platctl-park/a.json'] },
      { env: 'b', removed: [] },
    ];
    expect(teardownClearLines({ cleared })).toEqual({
      removed: 'Park record of a removed: s3://b/park/a.json, .platctl-park/a.json\n',
    });
    const failed = { env: 'c', message: 'denied', hint: 'check the role', location: 's3://b/park/c.json' };
    expect(teardownClearLines({ cleared: [], failed }).failure).toBe(
      'teardown of c completed, but its park record could not be removed: denied\n' +
        '  hint: check the role; then delete s3://b/park/c.json and .platctl-park/c.json by hand, ' +
        'or platctl status and bootstrap will still see c as parked\n',
    );
  });
});
