/**
 * config/cached.ts: a validated `.platctl.yaml` reused while its text is unchanged. What is reused must be exactly
 * what `loadConfig` gives (the configuration and every `locate` answer), and nothing stale may ever be served.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { KeyPath } from '../../config/errors.js';
import { CONFIG_CACHE_FILE, loadConfigCached } from '../../config/cached.js';
import type { ConfigResult, LoadedConfig } from '../../config/load.js';
import { loadConfig } from '../../config/load.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function repo(): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'platctl-config-cache-'));
  dirs.push(root);
  return root;
}

/** A copy of examples/platform's configuration with its environment dirs (no units needed). */
async function examplePlatform(): Promise<string> {
  const root = await repo();
  await cp(path.join(REPO, 'examples/platform/.platctl.yaml'), path.join(root, '.platctl.yaml'));
  await mkdir(path.join(root, 'live/platform'), { recursive: true });
  await mkdir(path.join(root, 'live/preprod'), { recursive: true });
  return root;
}

const cacheFile = (root: string) => path.join(root, '.platctl-cache', CONFIG_CACHE_FILE);

function value(result: ConfigResult): LoadedConfig {
  if (!result.ok) throw new Error(`expected a valid configuration: ${JSON.stringify(result.errors)}`);
  return result.value;
}

/** Every key path of a value, and a few that are not there. */
function probes(config: unknown, prefix: KeyPath = []): KeyPath[] {
  const out: KeyPath[] = [
    [...prefix, 'no-such-key'],
    [...prefix, 99],
  ];
  if (config === null || typeof config !== 'object') return out;
  const entries = Array.isArray(config) ? config.map((v, i): [number, unknown] => [i, v]) : Object.entries(config);
  for (const [key, child] of entries) out.push([...prefix, key], ...probes(child, [...prefix, key]));
  return out;
}

function expectSame(cached: LoadedConfig, fresh: LoadedConfig): void {
  expect(cached.path).toBe(fresh.path);
  expect(cached.root).toBe(fresh.root);
  expect(cached.config).toStrictEqual(fresh.config);
  for (const keyPath of probes(fresh.config)) {
    expect({ keyPath, at: cached.locate(keyPath) }).toEqual({ keyPath, at: fresh.locate(keyPath) });
  }
}

describe('loadConfigCached', () => {
  it('a hit gives the configuration and every location loadConfig gives', async () => {
    const root = await examplePlatform();
    const first = value(await loadConfigCached({ cwd: root, version: '1.0.0' }));
    const written = JSON.parse(await readFile(cacheFile(root), 'utf8')) as { key: string };
    const second = value(await loadConfigCached({ cwd: root, version: '1.0.0' }));
    const fresh = value(await loadConfig({ cwd: root }));
    expectSame(first, fresh);
    expectSame(second, fresh);
    // The second load came from the cache (its file was not rewritten) and still locates implicit_deps entries.
    expect((JSON.parse(await readFile(cacheFile(root), 'utf8')) as { key: string }).key).toBe(written.key);
    expect(second.locate(['implicit_deps', 'platform/cilium', 0])).toMatchObject({
      line: expect.any(Number) as unknown,
    });
  });

  it('the documented example file, every key set, round-trips through the cache unchanged', async () => {
    const root = await repo();
    const text = await readFile(path.join(REPO, '.platctl.example.yaml'), 'utf8');
    await writeFile(path.join(root, '.platctl.yaml'), text);
    const fresh = await loadConfig({ cwd: root });
    if (!fresh.ok) {
      // The example's environment dirs: create them from the errors, then compare.
      for (const error of fresh.errors) {
        const dir = /dir (\S+) does not exist/.exec(error.message)?.[1];
        if (dir) await mkdir(dir, { recursive: true });
      }
    }
    const expected = value(await loadConfig({ cwd: root }));
    value(await loadConfigCached({ cwd: root, version: '1.0.0' }));
    expectSame(value(await loadConfigCached({ cwd: root, version: '1.0.0' })), expected);
  });

  it('an edited file is validated again, never served from the cache', async () => {
    const root = await examplePlatform();
    value(await loadConfigCached({ cwd: root, version: '1.0.0' }));
    const file = path.join(root, '.platctl.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('apply: 4', 'apply: 7'));
    expect(value(await loadConfigCached({ cwd: root, version: '1.0.0' })).config.parallelism.apply).toBe(7);
    // An edit that breaks it: the same errors as loadConfig, not the cached configuration.
    await writeFile(file, (await readFile(file, 'utf8')).replace('apply: 7', 'apply: many'));
    const broken = await loadConfigCached({ cwd: root, version: '1.0.0' });
    expect(broken.ok).toBe(false);
    expect(broken).toEqual(await loadConfig({ cwd: root }));
  });

  it('another platctl version does not trust the cache', async () => {
    const root = await examplePlatform();
    value(await loadConfigCached({ cwd: root, version: '1.0.0' }));
    const before = await readFile(cacheFile(root), 'utf8');
    value(await loadConfigCached({ cwd: root, version: '1.0.1' }));
    expect(await readFile(cacheFile(root), 'utf8')).not.toBe(before);
  });

  it('an environment dir removed after caching is reported in loadConfig’s words', async () => {
    const root = await examplePlatform();
    value(await loadConfigCached({ cwd: root, version: '1.0.0' }));
    await rm(path.join(root, 'live/preprod'), { recursive: true });
    const result = await loadConfigCached({ cwd: root, version: '1.0.0' });
    expect(result.ok).toBe(false);
    expect(result).toEqual(await loadConfig({ cwd: root }));
    expect(JSON.stringify(result)).toContain('environment preprod: dir');
  });

  it('a corrupt or foreign cache file is ignored and replaced', async () => {
    const root = await examplePlatform();
    const fresh = value(await loadConfig({ cwd: root }));
    for (const junk of ['{"key"', 'null', '[]', '{"key": "x", "config": {}, "locations": {}}']) {
      await mkdir(path.dirname(cacheFile(root)), { recursive: true });
      await writeFile(cacheFile(root), junk);
      expectSame(value(await loadConfigCached({ cwd: root, version: '1.0.0' })), fresh);
      expectSame(value(await loadConfigCached({ cwd: root, version: '1.0.0' })), fresh);
    }
  });

  it('an invalid file is never cached, and its errors are loadConfig’s', async () => {
    const root = await repo();
    await writeFile(path.join(root, '.platctl.yaml'), 'version: 1\nenvironments: {}\nparalelism: 3\n');
    const result = await loadConfigCached({ cwd: root, version: '1.0.0' });
    expect(result).toEqual(await loadConfig({ cwd: root }));
    expect(result.ok).toBe(false);
    await expect(readFile(cacheFile(root), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a repository it cannot write to still loads (the cache is best effort)', async () => {
    const root = await examplePlatform();
    // A file where the cache directory would be: the write fails, the load does not.
    await writeFile(path.join(root, '.platctl-cache'), 'not a directory');
    expectSame(value(await loadConfigCached({ cwd: root, version: '1.0.0' })), value(await loadConfig({ cwd: root })));
  });
});
