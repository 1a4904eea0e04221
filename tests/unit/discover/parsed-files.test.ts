import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HclParserPool } from '../../../discover/hcl2json.js';
import { ParsedFiles } from '../../../discover/parsed-files.js';

const root = mkdtempSync(join(tmpdir(), 'platctl-parsed-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Unit files; `eol: '\r\n'` (Windows line endings) makes the TypeScript file parser decline them, so they go to
 * hcl2json in the worker pool.
 */
function writeUnits(count: number, eol = '\r\n', name = 'u'): string[] {
  return Array.from({ length: count }, (_, i) => {
    const dir = join(root, `${name}${i}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'terragrunt.hcl');
    writeFileSync(file, `dependencies {${eol}  paths = ["../u${i + 1}"]${eol}}${eol}`);
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

  it('parses the files the TypeScript file parser handles at once, and never starts a worker for them', async () => {
    const paths = writeUnits(50, '\n', 'fast');
    const pool = new HclParserPool();
    const files = new ParsedFiles({ cacheDir: false, version: 'test', pool });
    try {
      await files.startParsing(paths);
      expect(paths.every((p) => files.has(p))).toBe(true);
      expect(files.get(paths[3] ?? '')?.outcome).toEqual({ ok: true, json: { dependencies: [{ paths: ['../u4'] }] } });
      expect(files.positions(files.get(paths[3] ?? '') as NonNullable<ReturnType<ParsedFiles['get']>>)).toEqual([
        { type: 'dependencies', labels: [], line: 1, column: 1, attributes: { paths: [2, 3] } },
      ]);
      expect(files.parsedCount).toBe(50);
      expect(pool.running).toBe(0);
    } finally {
      await files.close();
    }
  });

  it('parses a file that was not started ahead of the queue, and remembers a missing one', async () => {
    const paths = writeUnits(120);
    const extra = join(root, 'root.hcl');
    writeFileSync(extra, 'locals { env = "dev" }\r\n');
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

describe('files the TypeScript file parser declines', () => {
  function write(name: string, content: string): string {
    const dir = join(root, 'declined', name);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'terragrunt.hcl');
    writeFileSync(file, content);
    return file;
  }

  it('go to hcl2json: its JSON, its syntax errors, and the mixed-include fallback, as before', async () => {
    const directive = write('directive', 'inputs = {\n  name = "%{if true}on%{endif}"\n}\n');
    const broken = write('broken', 'locals {\n  a = 1\n  a = 2\n}\n');
    const mixed = write(
      'mixed',
      'include {\n  path = "root.hcl"\n}\n\ninclude "env" {\n  path = "env.hcl"\n}\n\ndependency "vpc" {\n  config_path = "../vpc"\n}\n',
    );
    const pool = new HclParserPool();
    const files = new ParsedFiles({ cacheDir: false, version: 'test', pool });
    try {
      await files.ensure([directive, broken, mixed]);
      expect(pool.running).toBeGreaterThan(0);
      expect(files.get(directive)?.outcome).toEqual({ ok: true, json: { inputs: { name: '%{if true}on%{endif}' } } });
      expect(files.get(broken)?.outcome).toMatchObject({
        ok: false,
        message: expect.stringMatching(/^Attribute redefined; The argument "a" was already set/) as unknown,
        location: { file: broken, line: 3, column: 3 },
      });
      expect(files.get(mixed)?.outcome).toEqual({
        ok: true,
        json: {
          include: { '': [{ path: 'root.hcl' }], env: [{ path: 'env.hcl' }] },
          dependency: { vpc: [{ config_path: '../vpc' }] },
        },
      });
      const mixedFile = files.get(mixed) as NonNullable<ReturnType<ParsedFiles['get']>>;
      expect(files.positions(mixedFile).map((b) => [b.type, b.labels, b.line])).toEqual([
        ['include', [], 1],
        ['include', ['env'], 5],
        ['dependency', ['vpc'], 9],
      ]);
    } finally {
      await files.close();
    }
  });
});
