import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runChild } from '../../engine/child.js';
import { tempDir } from '../unit/engine/helpers.js';
import { SCRIPTS, baseEnv, gone, readPid, realGroups } from './helpers.js';

describe('runChild (real processes)', () => {
  it('delivers stdout and stderr line by line, in the given cwd, with only the given environment', async () => {
    const cwd = await tempDir();
    const lines: string[] = [];
    process.env.PLATCTL_TEST_INHERITED = 'leaked';
    const groups = realGroups();
    const result = await runChild(
      {
        file: join(SCRIPTS, 'lines-and-exit.sh'),
        args: ['hello', '3'],
        cwd,
        env: baseEnv({ FOO: 'bar' }),
        graceMs: 1000,
        onLine: (line) => lines.push(line),
      },
      groups,
    );
    delete process.env.PLATCTL_TEST_INHERITED;
    expect(result).toEqual({ type: 'exited', exitCode: 3 });
    expect(lines).toContain('out hello');
    expect(lines).toContain('err line');
    expect(lines).toContain(`cwd=${cwd}`);
    expect(lines).toContain('FOO=bar INHERITED=unset');
    expect(lines).toContain('no trailing newline');
    expect(groups.size).toBe(0);
  });

  it('on timeout sends SIGINT to the group and lets the child clean up (terraform releases its lock)', async () => {
    const dir = await tempDir();
    const lines: string[] = [];
    const started = Date.now();
    const result = await runChild(
      {
        file: join(SCRIPTS, 'graceful.sh'),
        args: [join(dir, 'pid')],
        cwd: dir,
        env: baseEnv(),
        timeoutMs: 300,
        graceMs: 5000,
        onLine: (line) => lines.push(line),
      },
      realGroups(),
    );
    expect(result.type).toBe('timeout');
    expect(lines).toContain('Interrupt received. Gracefully shutting down...');
    // It exited by itself well before the 5 s grace ran out.
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await gone(await readPid(join(dir, 'pid')))).toBe(true);
  });

  it('a time limit past the longest timer Node keeps (600h) does not end the child at once', async () => {
    const dir = await tempDir();
    const result = await runChild(
      {
        file: '/bin/sh',
        args: ['-c', 'sleep 0.5; echo done'],
        cwd: dir,
        env: baseEnv(),
        timeoutMs: 600 * 3_600_000,
        graceMs: 600 * 3_600_000,
        onLine: () => undefined,
      },
      realGroups(),
    );
    // Unguarded, Node fires a 2^31 ms timer after 1 ms: the child was interrupted as "timeout".
    expect(result).toEqual({ type: 'exited', exitCode: 0 });
  });

  it('kills a child that ignores SIGINT and SIGTERM once the grace period is over', async () => {
    const dir = await tempDir();
    const started = Date.now();
    const result = await runChild(
      {
        file: join(SCRIPTS, 'ignore-signals.sh'),
        args: [join(dir, 'pid')],
        cwd: dir,
        env: baseEnv(),
        timeoutMs: 200,
        graceMs: 300,
        onLine: () => undefined,
      },
      realGroups(),
    );
    expect(result).toMatchObject({ type: 'timeout', signal: 'SIGKILL' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(await gone(await readPid(join(dir, 'pid')))).toBe(true);
  });

  it('leaves no grandchild behind when the child exits normally, and does not wait for it', async () => {
    const dir = await tempDir();
    const started = Date.now();
    const result = await runChild(
      {
        file: join(SCRIPTS, 'grandchild.sh'),
        args: [join(dir, 'pid'), '0.2'],
        cwd: dir,
        env: baseEnv(),
        graceMs: 1000,
        onLine: () => undefined,
      },
      realGroups(),
    );
    expect(result).toEqual({ type: 'exited', exitCode: 0 });
    // The grandchild holds our pipe for 300 s; we are done long before.
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await gone(await readPid(join(dir, 'pid')))).toBe(true);
  });

  it('kills the grandchild too when the child times out', async () => {
    const dir = await tempDir();
    const result = await runChild(
      {
        file: join(SCRIPTS, 'grandchild.sh'),
        args: [join(dir, 'pid'), '30'],
        cwd: dir,
        env: baseEnv(),
        timeoutMs: 200,
        graceMs: 500,
        onLine: () => undefined,
      },
      realGroups(),
    );
    expect(result.type).toBe('timeout');
    expect(await gone(await readPid(join(dir, 'pid')))).toBe(true);
  });

  it('interrupts on abort (Ctrl-C forwarded) and reports it as an interruption, not a failure', async () => {
    const dir = await tempDir();
    const controller = new AbortController();
    const lines: string[] = [];
    const running = runChild(
      {
        file: join(SCRIPTS, 'graceful.sh'),
        args: [join(dir, 'pid')],
        cwd: dir,
        env: baseEnv(),
        graceMs: 5000,
        signal: controller.signal,
        onLine: (line) => {
          lines.push(line);
          if (line === 'ready') controller.abort('SIGINT');
        },
      },
      realGroups(),
    );
    const result = await running;
    expect(result).toMatchObject({ type: 'interrupted', exitCode: 1 });
    expect(lines).toContain('Interrupt received. Gracefully shutting down...');
  });

  it('lets the registry kill every group at once (second Ctrl-C, platctl exiting)', async () => {
    const dir = await tempDir();
    const groups = realGroups();
    const spawned: number[] = [];
    const runs = [0, 1].map((i) =>
      runChild(
        {
          file: join(SCRIPTS, 'ignore-signals.sh'),
          args: [join(dir, `pid${i}`)],
          cwd: dir,
          env: baseEnv(),
          graceMs: 60_000,
          onLine: () => undefined,
          onSpawn: (pid) => spawned.push(pid),
        },
        groups,
      ),
    );
    const pids = [await readPid(join(dir, 'pid0')), await readPid(join(dir, 'pid1'))];
    expect(groups.size).toBe(2);
    expect(groups.signalAll('SIGKILL')).toBe(2);
    const results = await Promise.all(runs);
    expect(results.map((r) => r.type)).toEqual(['killed', 'killed']);
    for (const pid of [...pids, ...spawned]) expect(await gone(pid)).toBe(true);
    expect(groups.size).toBe(0);
  });

  it('reports a missing executable as a spawn error', async () => {
    const result = await runChild(
      {
        file: '/nonexistent/terragrunt',
        args: [],
        cwd: await tempDir(),
        env: baseEnv(),
        graceMs: 100,
        onLine: () => undefined,
      },
      realGroups(),
    );
    expect(result.type).toBe('spawn-error');
  });
});
