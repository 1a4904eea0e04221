/**
 * `platctl bootstrap` never waits forever, and its first Ctrl-C ends every wait: the `eni_ip_validation` hook against
 * a black-holed EC2 endpoint (a loopback server that accepts and never answers), and a manual step's check that is
 * still running. The built CLI with the fake terragrunt.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlackHole } from '../helpers/black-hole.js';
import { startBlackHole } from '../helpers/black-hole.js';
import { sandbox, until } from './engine-helpers.js';
import type { Sandbox, Started } from './engine-helpers.js';

/** A Ctrl-C must end platctl this fast, however long the wait it interrupts (generous for a loaded 2-core box). */
const PROMPT_MS = 15_000;

async function interrupt(child: Started) {
  const sentAt = Date.now();
  child.kill('SIGINT');
  const result = await child;
  return {
    exitCode: result.exitCode,
    afterMs: Date.now() - sentAt,
    out: `${String(result.stdout)}${String(result.stderr)}`,
  };
}

describe('bootstrap: bounded AWS calls and prompt interrupts', { timeout: 120_000 }, () => {
  let hole: BlackHole;
  let box: Sandbox;
  let awsEnv: Record<string, string>;

  /** The sandbox's platform, in an AWS region, with `extra` appended to its .platctl.yaml. */
  async function configure(extra: string): Promise<void> {
    const path = join(box.root, '.platctl.yaml');
    const config = (await readFile(path, 'utf8')).replace(
      '    dir: live/platform\n',
      '    dir: live/platform\n    aws: { region: eu-west-1 }\n',
    );
    await writeFile(path, `${config}\n${extra}`);
  }

  beforeEach(async () => {
    hole = await startBlackHole();
    box = await sandbox();
    awsEnv = {
      AWS_ACCESS_KEY_ID: 'AKID',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_ENDPOINT_URL_EC2: hole.endpoint,
    };
  });
  afterEach(async () => {
    await hole.close();
  });

  const ENI_HOOK = `hooks:
  - type: eni_ip_validation
    units: [platform/eks]
    min_free_ips: 10
    subnets:
      tags: { Name: platform-private-* }
`;

  it('eni_ip_validation against a black-holed EC2 endpoint fails its unit within the request timeout, naming the call', async () => {
    await configure(ENI_HOOK);
    const startedAt = Date.now();
    const run = await box.run(['bootstrap'], { ...awsEnv, PLATCTL_REQUEST_TIMEOUT: '1' });
    const out = `${run.stdout}${run.stderr}`;
    expect(run.exitCode).toBe(1);
    expect(out).toContain('eni_ip_validation');
    expect(out).toContain('no answer from AWS describing subnets tagged Name=platform-private-*');
    expect(hole.requests.length).toBeGreaterThan(0);
    expect(Date.now() - startedAt).toBeLessThan(60_000);
    expect((await box.state()).units['platform/eks']?.status).toBe('failed');
  });

  it('SIGINT while eni_ip_validation waits on a black-holed EC2 endpoint exits 130 promptly with the resume command', async () => {
    await configure(ENI_HOOK);
    const child = box.start(['bootstrap'], awsEnv);
    await until(() => hole.requests.length > 0 || child.exitCode !== null, 60_000, 'a request to the black hole');
    expect(hole.requests.length).toBeGreaterThan(0);
    const { exitCode, afterMs, out } = await interrupt(child);
    expect(exitCode).toBe(130);
    expect(afterMs).toBeLessThan(PROMPT_MS);
    expect(out).toContain('Resume with: platctl bootstrap --resume');
    expect((await box.state()).status).toBe('interrupted');
    expect(existsSync(join(box.root, '.platctl.lock'))).toBe(false);
  });

  it('SIGINT while a manual step check runs exits 130 (interrupted), not 3 (refused); nothing was run', async () => {
    const marker = join(box.root, 'check-started');
    await configure(`manual_steps:
  - id: token
    description: Export the API token
    check: ["sh", "-c", "touch '${marker}'; sleep 30"]
`);
    const child = box.start(['bootstrap']);
    await until(() => existsSync(marker) || child.exitCode !== null, 60_000, 'the check to start');
    const { exitCode, afterMs, out } = await interrupt(child);
    expect(exitCode).toBe(130);
    expect(afterMs).toBeLessThan(PROMPT_MS);
    expect(out).toContain('bootstrap cancelled; nothing was changed');
    expect(out).not.toContain('refused');
    expect(await box.calls()).toEqual([]);
  });
});
