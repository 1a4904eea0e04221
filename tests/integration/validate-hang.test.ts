/**
 * `platctl validate` from cron must end: a check that times out must not leave a request behind that keeps the
 * process alive. A loopback TCP server accepts connections and never answers (a black-holed AWS endpoint); after
 * validate returns, every connection it accepted must have been closed by platctl.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ValidateJson } from '../../engine/reporters/validate.js';
import { runCli } from '../helpers/run-cli.js';
import { until } from '../helpers/wait.js';
import { PLATCTL } from './engine-helpers.js';

let root: string;
let server: Server;
let endpoint: string;
const open = new Set<Socket>();
let accepted = 0;
/** The first line of every request received. */
const requested: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'platctl-validate-hang-'));
  mkdirSync(join(root, 'live/platform'), { recursive: true });
  writeFileSync(
    join(root, '.platctl.yaml'),
    'version: 1\nenvironments:\n  platform:\n    dir: live/platform\n    aws:\n      region: eu-west-1\nvalidate:\n  timeout: 2s\n',
  );
  server = createServer((socket) => {
    accepted += 1;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    // Read the request, never answer.
    socket.once('data', (chunk: Buffer) => requested.push(chunk.toString('latin1').split('\r\n', 1)[0] ?? ''));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  for (const socket of open) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
});

async function allClosed(withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (open.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return open.size === 0;
}

describe('a black-holed AWS endpoint', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('times out the credentials check and leaves no request open behind it', async () => {
    accepted = 0;
    const run = await runCli(['validate', '--json', '--check', 'iam'], {
      cwd: root,
      env: {
        AWS_ACCESS_KEY_ID: 'AKID',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_ENDPOINT_URL_STS: endpoint,
        AWS_EC2_METADATA_DISABLED: 'true',
        HOME: root,
      },
    });
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as ValidateJson;
    expect(report.checks.map((c) => [c.id, c.status, c.message])).toEqual([
      ['iam/credentials:platform', 'error', 'timed out: no answer within 2s'],
    ]);
    expect(accepted).toBeGreaterThan(0);
    // An open socket keeps a cron run of platctl alive after it printed its verdict.
    expect(await allClosed(2000)).toBe(true);
  });

  it('also when the hung call is made while resolving a role_arn profile', async () => {
    accepted = 0;
    const aws = join(root, 'aws');
    mkdirSync(aws, { recursive: true });
    writeFileSync(
      join(aws, 'config'),
      '[profile deployer]\nrole_arn = arn:aws:iam::123456789012:role/Deployer\nsource_profile = base\nregion = eu-west-1\n',
    );
    writeFileSync(join(aws, 'credentials'), '[base]\naws_access_key_id = AKID\naws_secret_access_key = secret\n');
    // The SDK's credential providers read endpoint overrides from the process, not from platctl's injected map.
    vi.stubEnv('AWS_ENDPOINT_URL_STS', endpoint);
    const run = await runCli(['validate', '--json', '--check', 'iam'], {
      cwd: root,
      env: {
        AWS_PROFILE: 'deployer',
        AWS_CONFIG_FILE: join(aws, 'config'),
        AWS_SHARED_CREDENTIALS_FILE: join(aws, 'credentials'),
        AWS_ENDPOINT_URL_STS: endpoint,
        AWS_EC2_METADATA_DISABLED: 'true',
        HOME: root,
      },
    });
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as ValidateJson;
    expect(report.checks.map((c) => [c.id, c.status, c.message])).toEqual([
      ['iam/credentials:platform', 'error', 'timed out: no answer within 2s'],
    ]);
    expect(accepted).toBeGreaterThan(0);
    // The SDK's own call cannot be aborted: it is dropped after the check timeout (2 attempts).
    expect(await allClosed(4000)).toBe(true);
  });
});

describe('interrupting platctl validate (built CLI, real signal)', () => {
  it("SIGTERM (cron's timeout) still prints the report: unhealthy, the unfinished checks marked interrupted", async () => {
    const dir = join(root, 'interrupt');
    mkdirSync(join(dir, 'live/platform'), { recursive: true });
    writeFileSync(
      join(dir, '.platctl.yaml'),
      `version: 1\nenvironments:\n  platform:\n    dir: live/platform\nvalidate:\n  endpoints:\n    - url: ${endpoint}/a\n    - url: ${endpoint}/b\n  timeout: 20s\n`,
    );

    const child = execa('node', [PLATCTL, 'validate', '--json', '--check', 'http', '--concurrency', '1'], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir },
      extendEnv: false,
      reject: false,
    });
    // Wait until the first endpoint is being asked (and hangs), then stop the run the way `timeout` does.
    await until(() => requested.includes('GET /a HTTP/1.1'), 15_000, 'the first endpoint to be asked');
    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(143);
    const report = JSON.parse(result.stdout) as ValidateJson;
    expect(report.healthy).toBe(false);
    expect(report.checks.map((c) => [c.id, c.status, c.message])).toEqual([
      [`http/endpoint:${endpoint}/a`, 'skip', 'skipped: interrupted while running'],
      [`http/endpoint:${endpoint}/b`, 'skip', 'skipped: interrupted'],
    ]);
  });
});
