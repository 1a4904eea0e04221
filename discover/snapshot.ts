/**
 * The discovery snapshot (`.platctl-cache/graph.json`): a finished discovery, kept with a fingerprint of everything
 * it read, so a run over an unchanged repository answers from one file and a `stat` per input, without walking the
 * tree with `readdir`, reading and hashing every unit file, or loading the unit cache.
 *
 * The fingerprint holds, for every directory the walk read and every file discovery read (present or missing), its
 * kind, size, mtime, ctime and inode; every existence check answered by `stat` (outside the directories walked);
 * every symlink resolution; and every environment variable evaluation read. The snapshot is reused only when each
 * of those gives the same answer now and the configuration, platctl's build and the options are the same.
 *
 * Never stale, also for an edit that keeps the size and lands within the same clock tick as the read (its mtime and
 * ctime would not move): a snapshot is written only when every input it records was last changed (ctime) at least
 * {@link RACY_WINDOW_MS} before the run began, by the filesystem's own clock. A change after that moment gives the
 * input a newer ctime, which the next run sees; an input changed just before or during the run keeps the snapshot
 * from being written at all, and the next run takes the full path (which reads and hashes) and tries again. A
 * directory's mtime and ctime move whenever an entry is added, removed or renamed in it, which is what makes a
 * `stat` of a directory stand for its listing. ctime cannot be set back by `touch`, so an mtime set into the past
 * is still a change.
 *
 * Discoveries with errors, or whose evaluation listed files with a glob (`fileset`), are not kept.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Graph } from '../engine/graph.js';
import type { EdgeOrigin, UnitId } from '../engine/graph.js';
import type { Problem, UnitInfo } from './types.js';

export const SNAPSHOT_FILE = 'graph.json';
const CLOCK_FILE = 'graph.clock';
/** Bumped whenever what the snapshot holds changes. */
const FORMAT = 1;
/**
 * How long before the run's start an input must have last changed to be trusted by its `stat`. Timestamps come from
 * a coarse clock (a tick of a few milliseconds; seconds on some filesystems): an edit in the same tick as a read
 * leaves the same mtime, so anything changed this close to the run is treated as changed.
 */
export const RACY_WINDOW_MS = 1000;

/** What a full discovery observed beyond the file contents it read and the directories it walked. */
export class SnapshotWitness {
  /** Existence checks answered by `stat`: path, kind. */
  readonly kinds = new Map<string, 'file' | 'dir' | undefined>();
  /** Files read as text (file(), templatefile()). */
  readonly texts = new Set<string>();
  /** Symlink resolutions: path, real path. */
  readonly realpaths = new Map<string, string | undefined>();
  /** Environment variables read: name, value. */
  readonly env = new Map<string, string | undefined>();
  /** A glob was evaluated: its answer depends on listings not recorded here, so no snapshot is kept. */
  globbed = false;

  /** The environment, reads recorded. */
  watchEnv(env: Readonly<Record<string, string | undefined>>): Readonly<Record<string, string | undefined>> {
    return new Proxy(env, {
      get: (target, key) => {
        if (typeof key !== 'string') return undefined;
        const value = target[key];
        this.env.set(key, value);
        return value;
      },
    });
  }
}

/** What a snapshot restores: the parts of a Discovery that do not depend on this run. */
export interface SnapshotDiscovery {
  readonly graph: Graph;
  readonly units: Map<UnitId, UnitInfo>;
  readonly problems: Problem[];
  readonly externals: { unit: UnitId; dir: string; origin: EdgeOrigin }[];
}

/** Per path: kind (0 absent, 1 file, 2 directory, 3 other), size, mtime, ctime (ms, fractional) and inode. */
type StatRecord = [number, number, number, number, number];

interface Header {
  readonly format: number;
  readonly key: string;
  /** Paths (relative to the root when below it), and per path a StatRecord, flattened. */
  readonly paths: string[];
  readonly stats: number[];
  /** Flat lists: path, kind | null; path, real path | null; name, value | null. */
  readonly kinds: (string | null)[];
  readonly realpaths: (string | null)[];
  readonly env: (string | null)[];
}

interface Body {
  /** id, env, dir per node. */
  readonly nodes: string[];
  /** from index, to index, origins (an empty list for an edge without one). */
  readonly edges: (number | EdgeOrigin[])[];
  readonly units: UnitInfo[];
  readonly problems: Problem[];
  readonly externals: { unit: UnitId; dir: string; origin: EdgeOrigin }[];
}

/** The key of everything that invalidates a snapshot at once: the build, the configuration, the options. */
export function snapshotKey(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}

function statRecord(path: string): StatRecord {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return [0, 0, 0, 0, 0];
  return [s.isFile() ? 1 : s.isDirectory() ? 2 : 3, s.size, s.mtimeMs, s.ctimeMs, s.ino];
}

function kindOf(path: string): 'file' | 'dir' | undefined {
  const s = statSync(path, { throwIfNoEntry: false });
  return s?.isDirectory() ? 'dir' : s?.isFile() ? 'file' : undefined;
}

function realpathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The filesystem's clock now, read from a file written for it in the cache directory (the clock that stamps the
 * inputs, which on a network filesystem is not this machine's); undefined when the directory is not writable (then
 * no snapshot is written).
 */
export function filesystemNow(cacheDir: string): number | undefined {
  try {
    mkdirSync(cacheDir, { recursive: true });
    const file = join(cacheDir, CLOCK_FILE);
    writeFileSync(file, '');
    return statSync(file).ctimeMs;
  } catch {
    return undefined;
  }
}

/**
 * The snapshot's discovery, when it was made with this key and every input it records is unchanged; undefined
 * otherwise (no snapshot, another key, any input changed, an unreadable or corrupt file).
 */
export function readSnapshot(
  cacheDir: string,
  key: string,
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): SnapshotDiscovery | undefined {
  let text: string;
  try {
    text = readFileSync(join(cacheDir, SNAPSHOT_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const split = text.indexOf('\n');
    if (split < 0) return undefined;
    const header = JSON.parse(text.slice(0, split)) as Header;
    if (header.format !== FORMAT || header.key !== key || !unchanged(header, root, env)) return undefined;
    return restore(JSON.parse(text.slice(split + 1)) as Body);
  } catch {
    // A corrupt snapshot is only a cache miss.
    return undefined;
  }
}

function unchanged(header: Header, root: string, env: Readonly<Record<string, string | undefined>>): boolean {
  for (let i = 0; i + 1 < header.env.length; i += 2) {
    if ((env[header.env[i] as string] ?? null) !== header.env[i + 1]) return false;
  }
  const { paths, stats } = header;
  if (stats.length !== paths.length * 5) return false;
  const prefix = `${root}/`;
  for (let i = 0; i < paths.length; i += 1) {
    const path = paths[i] as string;
    const s = statSync(path.startsWith('/') ? path : prefix + path, { throwIfNoEntry: false });
    const at = i * 5;
    if (!s) {
      if (stats[at] !== 0) return false;
      continue;
    }
    if (
      stats[at] !== (s.isFile() ? 1 : s.isDirectory() ? 2 : 3) ||
      stats[at + 1] !== s.size ||
      stats[at + 2] !== s.mtimeMs ||
      stats[at + 3] !== s.ctimeMs ||
      stats[at + 4] !== s.ino
    ) {
      return false;
    }
  }
  for (let i = 0; i + 1 < header.kinds.length; i += 2) {
    if ((kindOf(header.kinds[i] as string) ?? null) !== header.kinds[i + 1]) return false;
  }
  for (let i = 0; i + 1 < header.realpaths.length; i += 2) {
    if ((realpathOf(header.realpaths[i] as string) ?? null) !== header.realpaths[i + 1]) return false;
  }
  return true;
}

function restore(body: Body): SnapshotDiscovery {
  const graph = new Graph();
  const ids: string[] = [];
  for (let i = 0; i + 2 < body.nodes.length; i += 3) {
    const id = body.nodes[i] as string;
    ids.push(id);
    graph.addNode(id, body.nodes[i + 1] as string, body.nodes[i + 2] as string);
  }
  for (let i = 0; i + 2 < body.edges.length; i += 3) {
    const from = ids[body.edges[i] as number] as string;
    const to = ids[body.edges[i + 1] as number] as string;
    const origins = body.edges[i + 2] as EdgeOrigin[];
    if (origins.length === 0) graph.addEdge(from, to);
    for (const origin of origins) graph.addEdge(from, to, origin);
  }
  return {
    graph,
    units: new Map(body.units.map((u) => [u.id, u])),
    problems: body.problems,
    externals: body.externals,
  };
}

export interface SnapshotInputs {
  readonly root: string;
  /** Directories the walk read (or tried to). */
  readonly dirs: Iterable<string>;
  /** Files discovery read (or found missing). */
  readonly files: Iterable<string>;
  readonly witness: SnapshotWitness;
  /** The filesystem's clock when the run began ({@link filesystemNow}). */
  readonly startedAt: number;
  /** Default {@link RACY_WINDOW_MS}; only tests change it. */
  readonly racyWindowMs?: number;
}

/**
 * Writes the snapshot of a finished discovery, unless an input changed within {@link RACY_WINDOW_MS} of the run's
 * start (or during the run), or a glob was evaluated. Best effort, atomic (a temp file renamed into place).
 */
export function writeSnapshot(
  cacheDir: string,
  key: string,
  inputs: SnapshotInputs,
  discovery: SnapshotDiscovery,
): void {
  const { root, witness, startedAt } = inputs;
  const target = join(cacheDir, SNAPSHOT_FILE);
  const drop = (): void => {
    try {
      unlinkSync(target);
    } catch {
      // None there.
    }
  };
  if (witness.globbed) return drop();
  const all = new Set([...inputs.dirs, ...inputs.files, ...witness.texts]);
  const paths: string[] = [];
  const stats: number[] = [];
  const prefix = `${root}/`;
  const trustedBefore = startedAt - (inputs.racyWindowMs ?? RACY_WINDOW_MS);
  for (const path of all) {
    const record = statRecord(path);
    // Changed too close to the run (or during it): its stat cannot vouch for what was read.
    if (record[0] !== 0 && record[3] >= trustedBefore) return drop();
    paths.push(path.startsWith(prefix) ? path.slice(prefix.length) : path);
    stats.push(...record);
  }
  const flat = (map: ReadonlyMap<string, string | undefined>): (string | null)[] =>
    [...map].flatMap(([k, v]) => [k, v ?? null]);
  const header: Header = {
    format: FORMAT,
    key,
    paths,
    stats,
    kinds: flat(witness.kinds),
    realpaths: flat(witness.realpaths),
    env: flat(witness.env),
  };
  const { graph } = discovery;
  const ids = graph.ids();
  const index = new Map(ids.map((id, i) => [id, i]));
  const nodes: string[] = [];
  const edges: (number | EdgeOrigin[])[] = [];
  for (const id of ids) {
    const node = graph.get(id);
    if (!node) continue;
    nodes.push(id, node.env, node.dir);
    for (const dep of node.dependencies) {
      edges.push(index.get(id) as number, index.get(dep) as number, [...graph.edgeOrigins(id, dep)]);
    }
  }
  const body: Body = {
    nodes,
    edges,
    units: [...discovery.units.values()],
    // A lazily worked-out hint is worked out now (JSON reads it like any property).
    problems: discovery.problems,
    externals: discovery.externals,
  };
  try {
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(header)}\n${JSON.stringify(body)}`);
    renameSync(tmp, target);
  } catch {
    // A read-only checkout still discovers; it just takes the full path next time.
  }
}
