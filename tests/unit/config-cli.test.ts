import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { configVerb } from '../../cli/config.js';
import type { CliIo } from '../../cli/verb.js';
import { runCli } from '../helpers/run-cli.js';
import { parseConfig } from '../../config/load.js';
import { configSchema } from '../../config/schema.js';
import { schemaKeyPaths } from '../../config/schema-walk.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const FIXTURES = path.join(REPO, 'tests/fixtures/config');
const EXAMPLE = path.join(REPO, '.platctl.example.yaml');

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

function io(cwd: string): CliIo & { stdout: Collect; stderr: Collect } {
  return {
    stdout: new Collect(),
    stderr: new Collect(),
    env: {},
    cwd,
    color: false,
    signal: new AbortController().signal,
  };
}

/** Whether `data` has `keyPath`, where `*` is any map key and `[]` any list item. */
function hasPath(data: unknown, keyPath: readonly string[]): boolean {
  if (keyPath.length === 0) return true;
  const [part, ...rest] = keyPath;
  if (part === '[]') return Array.isArray(data) && data.some((item) => hasPath(item, rest));
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
  const map = data as Record<string, unknown>;
  if (part === '*') return Object.values(map).some((value) => hasPath(value, rest));
  return part !== undefined && part in map && hasPath(map[part], rest);
}

describe('platctl config schema', () => {
  it('prints the JSON Schema of the file as written', async () => {
    const streams = io(REPO);
    expect(await configVerb.run({ action: 'schema' }, streams)).toBe(0);
    const schema = JSON.parse(streams.stdout.text) as {
      properties: Record<string, { default?: unknown; anyOf?: { type: string }[]; description?: string }>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(Object.keys(schema.properties)).toContain('environments');
    expect(schema.required).toEqual(['version', 'environments']);
    expect(schema.additionalProperties).toBe(false);
    // The input side: a duration is written as a string (or seconds), and its default as written.
    expect(schema.properties.unit_timeout?.anyOf?.map((option) => option.type)).toEqual(['string', 'number']);
    expect(schema.properties.unit_timeout?.default).toBe('60m');
    expect(schema.properties.environments?.description).toMatch(/environments/);
    expect(streams.stderr.text).toBe('');
  });

  it('runs from the command line, and refuses an unknown action with a did-you-mean', async () => {
    const schema = await runCli(['config', 'schema'], { cwd: REPO });
    expect(schema.code).toBe(0);
    expect(JSON.parse(schema.stdout)).toHaveProperty('properties.environments');
    const bad = await runCli(['config', 'chek'], { cwd: REPO });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown action "chek" for platctl config; did you mean check?');
    expect(bad.stdout).toBe('');
  });
});

describe('platctl config check', () => {
  it('says ok with the path of a valid file, exit 0', async () => {
    const streams = io(path.join(FIXTURES, 'repo/live/preprod'));
    expect(await configVerb.run({ action: 'check' }, streams)).toBe(0);
    expect(streams.stdout.text).toBe(`ok: ${path.join(FIXTURES, 'repo/.platctl.yaml')}\n`);
  });

  it('prints every error as file:line:col with its key and hint, exit 2', async () => {
    const streams = io(FIXTURES);
    expect(await configVerb.run({ action: 'check', config: 'broken.yaml' }, streams)).toBe(2);
    const lines = streams.stderr.text.split('\n');
    expect(lines[0]).toBe('broken.yaml:3:1: error: unknown key "unit_timout" (at unit_timout)');
    expect(lines[1]).toBe('  hint: did you mean "unit_timeout"?');
    expect(streams.stderr.text).toContain(
      'broken.yaml:11:10: error: apply must be a number, not the string "four" (at parallelism.apply)',
    );
    // The fixture's environment dir does not exist either: the filesystem check runs alongside the others.
    expect(streams.stderr.text).toContain(`broken.yaml:6:10: error: environment platform: dir ${FIXTURES}/live`);
    expect(lines.at(-2)).toBe('6 errors in the configuration');
    expect(streams.stdout.text).toBe('');
  });

  it('reports missing environment dirs', async () => {
    const streams = io(path.join(FIXTURES, 'missing-dir'));
    expect(await configVerb.run({ action: 'check' }, streams)).toBe(2);
    expect(streams.stderr.text).toMatch(/^\.platctl\.yaml:7:10: error: environment preprod: dir .* does not exist/);
  });

  it('answers in JSON with --json', async () => {
    const streams = io(FIXTURES);
    expect(await configVerb.run({ action: 'check', config: 'broken.yaml', json: true }, streams)).toBe(2);
    const body = JSON.parse(streams.stdout.text) as { ok: boolean; errors: { reason: string; keyPath: string }[] };
    expect(body.ok).toBe(false);
    expect(body.errors.map((e) => e.reason)).toEqual([
      'unknown-key',
      'bad-env-dir',
      'placeholder',
      'invalid-type',
      'unknown-environment',
      'invalid-value',
    ]);
  });
});

describe('.platctl.example.yaml', () => {
  it('passes the schema and every check that does not need its repository', async () => {
    const result = parseConfig(await readFile(EXAMPLE, 'utf8'), EXAMPLE);
    expect(result.ok ? [] : result.errors).toEqual([]);
  });

  it('shows every key the schema has', async () => {
    const result = parseConfig(await readFile(EXAMPLE, 'utf8'), EXAMPLE);
    if (!result.ok) throw new Error('the example file is invalid');
    const { parse } = await import('yaml');
    const written: unknown = parse(await readFile(EXAMPLE, 'utf8'));
    const missing = schemaKeyPaths(configSchema)
      .filter((keyPath) => !hasPath(written, keyPath))
      .map((keyPath) => keyPath.join('.'));
    expect(missing).toEqual([]);
  });
});

describe('docs/configuration.md', () => {
  it('documents every key the schema has', async () => {
    const doc = await readFile(path.join(REPO, 'docs/configuration.md'), 'utf8');
    const names = new Set(schemaKeyPaths(configSchema).map((keyPath) => keyPath.at(-1)!));
    // A key is documented as `name`, or as a segment of a documented path: `retry.attempts`, `endpoints[]`.
    const documented = (name: string): boolean =>
      new RegExp(`\`(?:[\\w<>\\[\\]-]*\\.)*${name}(?:\\[\\])?(?:\\.[\\w<>\\[\\]-]*)*\``).test(doc);
    expect([...names].filter((name) => !documented(name))).toEqual([]);
  });
});
