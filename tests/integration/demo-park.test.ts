/** `npm run demo:park` stays green: the built demo driver runs down and up against moto and the loopback API. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, expect, it } from 'vitest';
import { REPO_ROOT } from './engine-helpers.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('the park demo parks, shows the state and brings the environment back (exit 0)', { timeout: 300_000 }, async () => {
  dir = mkdtempSync(join(tmpdir(), 'platctl-demo-park-'));
  const demo = await execa(process.execPath, [join(REPO_ROOT, 'dist', 'scripts', 'demo-park.js')], {
    env: { PLATCTL_DEMO_DIR: join(dir, 'park'), NO_COLOR: '1' },
    reject: false,
    all: true,
    timeout: 280_000,
  });
  expect(demo.all).toContain('platform: dry run, nothing was changed');
  expect(demo.all).toContain('platform: parked, and verified through AWS');
  expect(demo.all).toContain('platform: PARKED since');
  expect(demo.all).toContain('platform: up and ready');
  expect(demo.all).toContain('platform: not parked (last parked');
  expect(demo.all).toContain('stopped moto and the Kubernetes API');
  expect(demo.all).not.toContain('NodeVersionSupportWarning');
  expect(demo.exitCode).toBe(0);
});
