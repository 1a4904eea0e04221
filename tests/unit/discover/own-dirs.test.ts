/**
 * platctl's own directories (.platctl-cache, .platctl-logs) are not walked: with an environment at the repository
 * root, walking the cache would make every run see a directory changed by the run before, and the discovery
 * snapshot would never answer.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { discover } from '../../../discover/index.js';

const root = mkdtempSync(join(tmpdir(), 'platctl-own-dirs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, content: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

const run = () =>
  discover(
    { root, config: configSchema.parse({ version: 1, environments: { dev: { dir: '.' } } }), env: {} },
    // Trust files written just now (the tests write them within the snapshot's racy window).
    { version: 'test', snapshotRacyWindowMs: -60_000 },
  );

describe('an environment at the repository root', () => {
  write('app/terragrunt.hcl', 'dependency "db" {\n  config_path = "../db"\n}\n');
  write('db/terragrunt.hcl', '');
  write('.platctl-logs/dev/db.log', 'applied\n');

  it('is answered by the snapshot when asked again, though each run writes into .platctl-cache', async () => {
    const first = await run();
    expect(first.stats.fromSnapshot).toBe(false);
    const second = await run();
    expect(second.stats.fromSnapshot).toBe(true);
    expect([...second.graph.ids()].sort()).toEqual(['dev/app', 'dev/db']);
    // Logs written by a later run (bootstrap writes a log per unit) do not change what the walk sees either.
    write('.platctl-logs/dev/app.log', 'applied\n');
    expect((await run()).stats.fromSnapshot).toBe(true);
  });

  it('never discovers anything inside platctl directories', async () => {
    write('.platctl-cache/stray/terragrunt.hcl', '');
    write('.platctl-logs/stray/terragrunt.hcl', '');
    write('.hidden/unit/terragrunt.hcl', '');
    const result = await run();
    expect([...result.graph.ids()].sort()).toEqual(['dev/.hidden/unit', 'dev/app', 'dev/db']);
  });
});
