/**
 * The discovery snapshot (.platctl-cache/graph.json) answers an unchanged repository with a stat per input. It must
 * never answer a changed one: after every kind of edit, discovery equals a discovery with no cache at all.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../../config/schema.js';
import { discover, probeSnapshot } from '../../../discover/index.js';
import type { Discovery } from '../../../discover/index.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const DEP = (path: string) => `dependency "d" {\n  config_path = "${path}"\n}\n`;

function repo(): string {
  const root = mkdtempSync(join(tmpdir(), 'platctl-snapshot-'));
  temps.push(root);
  const files: Record<string, string> = {
    'common.hcl': 'locals {\n  tier = "x"\n}\n',
    '_common/net.hcl': DEP('${get_terragrunt_dir()}/../vpc'),
    'live/dev/vpc/terragrunt.hcl': '',
    'live/dev/dbs/terragrunt.hcl': '',
    'live/dev/app/terragrunt.hcl': DEP('../vpc'),
    'live/dev/env/terragrunt.hcl': `dependency "d" {\n  config_path = get_env("PLATCTL_TEST_DEP", "../vpc")\n}\n`,
    'live/dev/web/terragrunt.hcl':
      'include "net" {\n  path = "${dirname(find_in_parent_folders("common.hcl"))}/_common/net.hcl"\n}\n',
  };
  for (const [path, content] of Object.entries(files)) write(join(root, path), content);
  return root;
}

function write(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

type Options = { env?: Record<string, string>; implicit?: Record<string, string[]>; trustNewFiles?: boolean };

function request(root: string, options: Options = {}, cache = true) {
  const config = configSchema.parse({
    version: 1,
    environments: { dev: { dir: 'live/dev' } },
    implicit_deps: options.implicit ?? {},
  });
  return [
    { root, config, env: options.env ?? {}, cacheDir: cache ? join(root, '.platctl-cache') : (false as const) },
    // The files here were written a moment ago: without this seam no snapshot would be kept (see the last test).
    { version: 'test', ...(options.trustNewFiles === false ? {} : { snapshotRacyWindowMs: -60_000 }) },
  ] as const;
}

async function run(root: string, options: Options = {}, cache = true): Promise<Discovery> {
  return discover(...request(root, options, cache));
}

/** Everything a discovery says, as plain data. */
function view(d: Discovery) {
  const edges: Record<string, string[]> = {};
  for (const id of d.graph.ids()) {
    edges[id] = [...(d.graph.get(id)?.dependencies ?? [])].sort().map((dep) => {
      const origins = d.graph.edgeOrigins(id, dep).map((o) => `${o.kind}:${o.location?.line ?? ''}`);
      return `${dep} (${origins.join(',')})`;
    });
  }
  return JSON.parse(
    JSON.stringify({ edges, units: [...d.units.values()], problems: d.problems, externals: d.externals }),
  ) as unknown;
}

/** Discovery with the caches as they are: not from the snapshot, and equal to one with no cache at all. */
async function expectFresh(root: string, options: Options = {}): Promise<Discovery> {
  const warm = await run(root, options);
  expect(warm.stats.fromSnapshot).toBe(false);
  expect(view(warm)).toEqual(view(await run(root, options, false)));
  // The run kept a snapshot of what it found: the next one, unchanged, is answered from it.
  const again = await run(root, options);
  expect(again.stats.fromSnapshot).toBe(true);
  expect(view(again)).toEqual(view(warm));
  return warm;
}

/**
 * Waits until the filesystem's clock has moved past the file's last change, so a new write gets a new time. The probe
 * is written outside the repository, so no directory discovery reads changes.
 */
async function nextTick(file: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'platctl-snapshot-clock-'));
  temps.push(dir);
  const probe = join(dir, 'probe');
  for (;;) {
    writeFileSync(probe, '');
    const later = statSync(probe).ctimeMs > statSync(file).ctimeMs;
    rmSync(probe);
    if (later) return;
    await sleep(5);
  }
}

const deps = (d: Discovery, id: string) => [...(d.graph.get(id)?.dependencies ?? [])].sort();

describe('the discovery snapshot', () => {
  it('answers an unchanged repository, with the same discovery as the full way', async () => {
    const root = repo();
    const cold = await run(root);
    expect(cold.stats.fromSnapshot).toBe(false);
    expect(existsSync(join(root, '.platctl-cache/graph.json'))).toBe(true);
    const warm = await run(root);
    expect(warm.stats.fromSnapshot).toBe(true);
    expect(view(warm)).toEqual(view(cold));
    expect(deps(warm, 'dev/web')).toEqual(['dev/vpc']);
  });

  it('sees every kind of change by its stat', async () => {
    const root = repo();
    await expectFresh(root);
    const app = join(root, 'live/dev/app/terragrunt.hcl');

    // An edit in place that keeps the size: only the file's mtime and ctime move.
    await nextTick(app);
    writeFileSync(app, DEP('../dbs'));
    expect(deps(await expectFresh(root), 'dev/app')).toEqual(['dev/dbs']);

    // The same size again, with the old mtime put back (as `touch -d` or an archive extraction does): only ctime
    // moves. (Whole seconds, which utimes sets exactly.)
    utimesSync(app, 1_700_000_000, 1_700_000_000);
    await expectFresh(root);
    await nextTick(app);
    writeFileSync(app, DEP('../vpc'));
    utimesSync(app, 1_700_000_000, 1_700_000_000);
    expect(statSync(app).mtimeMs).toBe(1_700_000_000_000);
    expect(deps(await expectFresh(root), 'dev/app')).toEqual(['dev/vpc']);

    // A file replaced by rename (as editors save), same size, in a directory no walk reads: a new inode.
    const net = join(root, '_common/net.hcl');
    write(join(root, 'elsewhere/new.hcl'), DEP('${get_terragrunt_dir()}/../dbs'));
    renameSync(join(root, 'elsewhere/new.hcl'), net);
    expect(deps(await expectFresh(root), 'dev/web')).toEqual(['dev/dbs']);

    // An include edited in place.
    await nextTick(net);
    writeFileSync(net, DEP('${get_terragrunt_dir()}/../app'));
    expect(deps(await expectFresh(root), 'dev/web')).toEqual(['dev/app']);

    // An added unit, and a removed one.
    write(join(root, 'live/dev/new/terragrunt.hcl'), DEP('../app'));
    expect(deps(await expectFresh(root), 'dev/new')).toEqual(['dev/app']);
    rmSync(join(root, 'live/dev/new'), { recursive: true });
    expect((await expectFresh(root)).graph.has('dev/new')).toBe(false);

    // A file find_in_parent_folders would now find first, in a directory no walk reads (only its stat was asked).
    write(join(root, 'live/common.hcl'), '');
    write(join(root, 'live/_common/net.hcl'), DEP('${get_terragrunt_dir()}/../vpc'));
    expect(deps(await expectFresh(root), 'dev/web')).toEqual(['dev/vpc']);

    // A changed environment variable read by get_env, then a changed configuration.
    expect(deps(await expectFresh(root, { env: { PLATCTL_TEST_DEP: '../dbs' } }), 'dev/env')).toEqual(['dev/dbs']);
    const implicit = { 'dev/vpc': ['dev/dbs'] };
    expect(deps(await expectFresh(root, { env: { PLATCTL_TEST_DEP: '../dbs' }, implicit }), 'dev/vpc')).toEqual([
      'dev/dbs',
    ]);
  }, 120_000);

  it('keeps no snapshot of files changed within a second of the run, so an edit in the same second is never missed', async () => {
    const root = repo();
    const first = await run(root, { trustNewFiles: false });
    expect(deps(first, 'dev/app')).toEqual(['dev/vpc']);
    // Its inputs were written just now: their stat cannot vouch for them yet.
    expect(existsSync(join(root, '.platctl-cache/graph.json'))).toBe(false);
    // An edit in the same second, of the same size (its mtime may not even move).
    const app = join(root, 'live/dev/app/terragrunt.hcl');
    const size = statSync(app).size;
    writeFileSync(app, DEP('../dbs'));
    expect(statSync(app).size).toBe(size);
    const second = await run(root, { trustNewFiles: false });
    expect(second.stats.fromSnapshot).toBe(false);
    expect(deps(second, 'dev/app')).toEqual(['dev/dbs']);
  });

  it('keeps paths of any length and alphabet: long names, multi-byte characters, a newline in a name', async () => {
    const root = repo();
    // More path bytes than the first read of the snapshot takes (64 KiB), so the rest is read after the header.
    const long = (i: number) => `${'long-unit-name-'.repeat(14)}${String(i).padStart(3, '0')}`;
    for (let i = 0; i < 200; i += 1) write(join(root, 'live/dev', long(i), 'terragrunt.hcl'), DEP('../vpc'));
    write(join(root, 'live/dev/größe-🚀/terragrunt.hcl'), DEP('../vpc'));
    write(join(root, 'live/dev/two\nlines/terragrunt.hcl'), DEP('../dbs'));
    const cold = await expectFresh(root);
    expect(cold.graph.size).toBe(207);
    expect(deps(cold, 'dev/größe-🚀')).toEqual(['dev/vpc']);
    expect(deps(cold, 'dev/two\nlines')).toEqual(['dev/dbs']);
    // Each is still an input the next run stats: an edit deep in the list, one after the multi-byte name, one after
    // the newline.
    for (const [dir, dep] of [
      [long(150), 'dbs'],
      ['größe-🚀', 'app'],
      ['two\nlines', 'app'],
    ] as const) {
      write(join(root, 'live/dev', dir, 'renamed.hcl'), DEP(`../${dep}`));
      renameSync(join(root, 'live/dev', dir, 'renamed.hcl'), join(root, 'live/dev', dir, 'terragrunt.hcl'));
      expect(deps(await expectFresh(root), `dev/${dir}`)).toEqual([`dev/${dep}`]);
    }
  }, 60_000);

  it('restores the snapshot it checked or none: never the body of one written since', async () => {
    const root = repo();
    await expectFresh(root);
    const checked = probeSnapshot(...request(root));
    if (!checked) throw new Error('the unchanged repository was not answered from its snapshot');
    // Another run replaces the snapshot (after an edit that keeps every path, so the new file's sections have the
    // same lengths) before this one restores what it checked.
    const app = join(root, 'live/dev/app/terragrunt.hcl');
    await nextTick(app);
    writeFileSync(app, DEP('../dbs'));
    expect(deps(await expectFresh(root), 'dev/app')).toEqual(['dev/dbs']);
    expect(await checked.restore()).toBeUndefined();
    // A discovery handed the old hit finds its body gone and discovers the repository as it is now.
    const now = await discover(request(root)[0], { ...request(root)[1], snapshot: checked });
    expect(now.stats.fromSnapshot).toBe(false);
    expect(view(now)).toEqual(view(await run(root, {}, false)));
  });

  it('survives a corrupt snapshot', async () => {
    const root = repo();
    const cold = await run(root);
    const file = join(root, '.platctl-cache/graph.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 200));
    const again = await run(root);
    expect(again.stats.fromSnapshot).toBe(false);
    expect(view(again)).toEqual(view(cold));
  });
});
