/**
 * `platctl validate` from cron or CI (a non-terminal) says what is still running while a check hangs, like the walk
 * and down/up do: a still-running line on stderr every PLATCTL_PROGRESS_INTERVAL, while stdout stays the table (or,
 * with `--json`, the one JSON document) it always was. The built binary runs against a loopback HTTP server that
 * accepts requests and never answers, so the endpoint check runs until its timeout.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValidateJson } from '../../engine/reporters/validate.js';
import { PLATCTL } from './engine-helpers.js';

let root: string;
let server: Server;
let url: string;
const open = new Set<Socket>();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'platctl-validate-heartbeat-'));
  server = createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    // Read the request, never answer.
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hang`;
  mkdirSync(join(root, 'live/platform'), { recursive: true });
  writeFileSync(
    join(root, '.platctl.yaml'),
    `version: 1\nenvironments:\n  platform:\n    dir: live/platform\nvalidate:\n  endpoints:\n    - url: ${url}\n  timeout: 2s\n`,
  );
});

afterAll(async () => {
  for (const socket of open) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
});

/** validate of the hanging endpoint, its output piped (not a terminal), still-running lines every 0.2 s. */
function validate(...args: string[]) {
  return execa('node', [PLATCTL, 'validate', '--check', 'http', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: root, PLATCTL_PROGRESS_INTERVAL: '0.2' },
    extendEnv: false,
    stripFinalNewline: false,
    reject: false,
    stdin: 'ignore',
  });
}

describe('platctl validate on a non-terminal while a check hangs', () => {
  it('prints still-running lines naming the check on stderr; stdout is only the table and the verdict', async () => {
    const run = await validate();
    expect(run.exitCode).toBe(1);
    const id = `http/endpoint:${url}`;
    const beats = run.stderr.split('\n').filter((line) => line.includes('still running'));
    expect(beats.length).toBeGreaterThan(0);
    for (const line of beats) {
      expect(line).toMatch(/^\d\d:\d\d:\d\d still running: \S+ (\d+ms|\d+\.\ds)$/);
      expect(line).toContain(` still running: ${id} `);
    }
    expect(run.stderr.replaceAll(/^.*still running.*\n/gm, '')).toBe('');
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^CHECK +TARGET +RESULT +TIME +MESSAGE$/);
    expect(lines[1]).toMatch(
      new RegExp(`^http/endpoint +${url.replaceAll('.', '\\.')} +FAIL +\\d\\.\\ds +no answer within 2s$`),
    );
    expect(lines.slice(2)).toEqual([
      expect.stringMatching(/^UNHEALTHY: 1 failed, 0 passed of 1 checks \(\d\.\ds\)$/),
      '',
    ]);
  });

  it('prints none with --json: stdout is one JSON document, stderr only the verdict', async () => {
    const run = await validate('--json');
    expect(run.exitCode).toBe(1);
    const report = JSON.parse(run.stdout) as ValidateJson;
    expect(report.checks.map((c) => [c.id, c.status, c.message])).toEqual([
      [`http/endpoint:${url}`, 'fail', 'no answer within 2s'],
    ]);
    expect(run.stderr).toMatch(/^UNHEALTHY: 1 failed, 0 passed of 1 checks \(\d\.\ds\)\n$/);
  });
});
