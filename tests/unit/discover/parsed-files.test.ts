import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ParsedFiles } from '../../../discover/parsed-files.js';

const root = mkdtempSync(join(tmpdir(), 'platctl-parsed-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function writeUnits(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const dir = join(root, `u${i}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'terragrunt.hcl');
    writeFileSync(file, `dependencies {\n  paths = ["../u${i + 1}"]\n}\n`);
    return file;
  });
}

describe('ParsedFiles.startParsing', () => {
  it('hands out files as their batches come back, and ensure() waits for one still parsing', async () => {
    const paths = writeUnits(200);
    const files = new ParsedFiles({ cacheDir: false, version: 'test' });
    try {
      await files.startParsing(paths);
      const last = paths[199] ?? '';
      // Read and hashed at once; parsed later.
      expect(files.hashOf(last)).toMatch(/^[\w-]{43}$/);
      expect(files.has(last)).toBe(false);
      await files.ensure([last]);
      expect(files.get(last)?.outcome).toEqual({ ok: true, json: { dependencies: [{ paths: ['../u200'] }] } });
      await files.ensure(paths);
      expect(paths.every((p) => files.has(p))).toBe(true);
      expect(files.parsedCount).toBe(200);
    } finally {
      await files.close();
    }
  });

  it('parses a file that was not started ahead of the queue, and remembers a missing one', async () => {
    const paths = writeUnits(120);
    const extra = join(root, 'root.hcl');
    writeFileSync(extra, 'locals { env = "dev" }\n');
    const missing = join(root, 'nowhere', 'terragrunt.hcl');
    const files = new ParsedFiles({ cacheDir: false, version: 'test' });
    try {
      await files.startParsing(paths);
      await files.ensure([extra, missing]);
      expect(files.get(extra)?.outcome).toEqual({ ok: true, json: { locals: [{ env: 'dev' }] } });
      expect(files.isMissing(missing)).toBe(true);
      expect(files.has(missing)).toBe(true);
    } finally {
      await files.close();
    }
  });
});
