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
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { EdgeOrigin, Graph, UnitId } from '../engine/graph.js';
import type { Problem, UnitInfo } from './types.js';
import { writeFileAtomicSync } from '../config/atomic-write.js';

export const SNAPSHOT_FILE = 'graph.json';
/** scan.ts's UNIT_FILE, not imported: a warm run does not load the walk. */
const UNIT_FILE = 'terragrunt.hcl';
const CLOCK_FILE = 'graph.clock';
/**
 * Bumped whenever what the snapshot holds changes (2: an id, and the problems in the header; 3: the paths in their
 * own section, sorted).
 */
const FORMAT = 3;
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
        // The environment does not change during a discovery: the first answer, recorded, stands (every unit reads
        // the same few variables, and a read of `process.env` asks the C library).
        if (this.env.has(key)) return this.env.get(key);
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

interface Header {
  readonly format: number;
  readonly key: string;
  /** Random, new with every snapshot written: names this discovery (see {@link SnapshotHit.identity}). */
  readonly id: string;
  /**
   * The byte length of the paths section that follows the header's line: every input's path (relative to the root
   * when below it), sorted, joined by NUL (the one byte no path holds). A string split costs half as much to
   * read as a JSON list of ten thousand strings, and sorted paths are `stat`ed faster (neighbours share the
   * kernel's cached directory entries).
   */
  readonly pathBytes: number;
  /**
   * A digest ({@link statDigest}) of every path's stat record, in order: five numbers per path, kind (0 absent,
   * 1 file, 2 directory, 3 other), size, mtime, ctime (ms, fractional) and inode. Equal when no input changed.
   */
  readonly stats: string;
  /** Flat lists: path, kind | null; path, real path | null; name, value | null. */
  readonly kinds: (string | null)[];
  readonly realpaths: (string | null)[];
  readonly env: (string | null)[];
  /** The discovery's problems (warnings only: a discovery with errors is never kept). */
  readonly problems: Problem[];
}

/**
 * A unit, by what its node does not say: `i` its includes, `a`/`c` its absDir/configFile where they are not the
 * root joined with its dir (and terragrunt.hcl), and its rarer fields as they are.
 */
interface CompactUnit {
  readonly i: string[];
  readonly a?: string;
  readonly c?: string;
  readonly rest?: Pick<UnitInfo, 'remoteState' | 'preventDestroy' | 'exclude'>;
}

/** Paths below the root are kept relative to it (the snapshot is read on every warm run: smaller is faster). */
interface Body {
  /** id, env, dir per node. */
  readonly nodes: string[];
  /** from index, to index, origins (an empty list for an edge without one). */
  readonly edges: (number | EdgeOrigin[])[];
  /** Per node, in the same order. */
  readonly units: CompactUnit[];
  readonly externals: { unit: UnitId; dir: string; origin: EdgeOrigin }[];
}

/** The key of everything that invalidates a snapshot at once: the build, the configuration, the options. */
export function snapshotKey(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}

/** The records' bytes, hashed: comparing one digest is cheaper than parsing and comparing every number. */
function statDigest(records: Float64Array): string {
  return createHash('sha256').update(records).digest('base64url');
}

const NO_THROW = { throwIfNoEntry: false } as const;

/** A path's stat record (see Header.stats), written into `records` at `at`; all zeros when the path is absent. */
function statInto(path: string, records: Float64Array, at: number): void {
  const s = statSync(path, NO_THROW);
  if (!s) return;
  records[at] = s.isFile() ? 1 : s.isDirectory() ? 2 : 3;
  records[at + 1] = s.size;
  records[at + 2] = s.mtimeMs;
  records[at + 3] = s.ctimeMs;
  records[at + 4] = s.ino;
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

/** A snapshot whose every input is unchanged: its discovery is this run's. */
export interface SnapshotHit {
  /**
   * Names the discovery the snapshot holds: another run that gets a hit with the same identity has the same discovery,
   * so what was worked out from it (a rendered graph) still holds.
   */
  readonly identity: string;
  readonly problems: Problem[];
  /**
   * The discovery itself, rebuilt from the snapshot's body; undefined when the body is corrupt or the snapshot was
   * replaced since it was checked. Loads the graph module, which a caller that needs only the identity never does.
   */
  restore(): Promise<SnapshotDiscovery | undefined>;
}

/**
 * The snapshot, when it was made with this key and every input it records is unchanged; undefined otherwise (no
 * snapshot, another key, any input changed, an unreadable or corrupt header). Only the header and the paths are read
 * here: the body is read and parsed by {@link SnapshotHit.restore}, which a caller that needs only the identity never
 * calls.
 */
export function readSnapshot(
  cacheDir: string,
  key: string,
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): SnapshotHit | undefined {
  const file = join(cacheDir, SNAPSHOT_FILE);
  let head: Head | undefined;
  try {
    head = readHead(file);
  } catch {
    // A corrupt snapshot is only a cache miss.
    return undefined;
  }
  if (!head) return undefined;
  const { header, paths, bytes } = head;
  if (header.key !== key || !unchanged(header, paths, root, env)) return undefined;
  const { problems } = header;
  return {
    identity: `${header.key}/${header.id}`,
    problems,
    restore: async () => {
      try {
        const { Graph } = await import('../engine/graph.js');
        // The same snapshot still (a run may have replaced it since): its header and paths, byte for byte.
        const all = readFileSync(file);
        if (all.length <= bytes.length || !all.subarray(0, bytes.length).equals(bytes)) return undefined;
        const restored = restore(new Graph(), JSON.parse(all.toString('utf8', bytes.length + 1)) as Body, root);
        return restored && { ...restored, problems };
      } catch {
        // A corrupt or vanished body is only a cache miss.
        return undefined;
      }
    },
  };
}

/** The header's line is read in one go when it is shorter than this (it is, but for thousands of warnings). */
const HEAD_CHUNK = 64 * 1024;

interface Head {
  readonly header: Header;
  readonly paths: string[];
  /** The file's bytes up to the end of the paths section. */
  readonly bytes: Buffer;
}

/** The snapshot's header and paths, without its body; undefined when there is none, of another format, or cut short. */
function readHead(file: string): Head | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    let bytes = readPrefix(fd, Math.min(size, HEAD_CHUNK));
    let split = bytes.indexOf(0x0a);
    if (split < 0 && bytes.length < size) {
      bytes = readPrefix(fd, size, bytes);
      split = bytes.indexOf(0x0a);
    }
    if (split < 0) return undefined;
    // Checked by structure, not by the schema library: the cache is keyed by the inputs' stats and the code stamp this
    // build wrote, always safe to delete, and anything that does not match (or throws) is a miss that runs the
    // discovery afresh. Loading zod here would cost the warm path the very start-up the cache exists to save.
    const header = JSON.parse(bytes.toString('utf8', 0, split)) as Header;
    if (header.format !== FORMAT || !Number.isSafeInteger(header.pathBytes) || header.pathBytes < 0) return undefined;
    const end = split + 1 + header.pathBytes;
    // The paths section ends where the body's line begins.
    if (end >= size) return undefined;
    if (bytes.length < end) bytes = readPrefix(fd, end, bytes);
    const paths = header.pathBytes === 0 ? [] : bytes.toString('utf8', split + 1, end).split('\0');
    return { header, paths, bytes: bytes.subarray(0, end) };
  } finally {
    closeSync(fd);
  }
}

/** The file's first `length` bytes (it has at least that many), reusing the `start` already read. */
function readPrefix(fd: number, length: number, start?: Buffer): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let filled = start ? start.copy(buffer) : 0;
  while (filled < length) {
    const n = readSync(fd, buffer, filled, length - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return buffer.subarray(0, filled);
}

function unchanged(
  header: Header,
  paths: readonly string[],
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  for (let i = 0; i + 1 < header.env.length; i += 2) {
    if ((env[header.env[i] as string] ?? null) !== header.env[i + 1]) return false;
  }
  // The loop every warm run pays for (some ten thousand paths): plain, nothing allocated but the stats themselves.
  const { long } = pathCodec(root);
  const records = new Float64Array(paths.length * 5);
  for (let i = 0; i < paths.length; i += 1) statInto(long(paths[i] as string), records, i * 5);
  if (statDigest(records) !== header.stats) return false;
  for (let i = 0; i + 1 < header.kinds.length; i += 2) {
    if ((kindOf(header.kinds[i] as string) ?? null) !== header.kinds[i + 1]) return false;
  }
  for (let i = 0; i + 1 < header.realpaths.length; i += 2) {
    if ((realpathOf(header.realpaths[i] as string) ?? null) !== header.realpaths[i + 1]) return false;
  }
  return true;
}

/** A POSIX absolute path (the snapshot, like the root-relative paths it keeps, is for POSIX systems). */
function isAbsolutePath(path: string): boolean {
  return path.charCodeAt(0) === 0x2f;
}

/** Paths relative to the root and back. */
function pathCodec(root: string): { short: (path: string) => string; long: (path: string) => string } {
  const prefix = `${root}/`;
  return {
    short: (path) => (path.startsWith(prefix) ? path.slice(prefix.length) : path),
    long: (path) => (isAbsolutePath(path) ? path : prefix + path),
  };
}

function mapOrigin(origin: EdgeOrigin, map: (path: string) => string): EdgeOrigin {
  return origin.location ? { ...origin, location: { ...origin.location, file: map(origin.location.file) } } : origin;
}

/** The body's discovery, built into `graph` (new and empty). */
function restore(graph: Graph, body: Body, root: string): Omit<SnapshotDiscovery, 'problems'> | undefined {
  const { long } = pathCodec(root);
  const ids: string[] = [];
  const units = new Map<UnitId, UnitInfo>();
  if (body.units.length * 3 !== body.nodes.length) return undefined;
  for (let i = 0; i + 2 < body.nodes.length; i += 3) {
    const id = body.nodes[i] as string;
    const env = body.nodes[i + 1] as string;
    const dir = body.nodes[i + 2] as string;
    ids.push(id);
    graph.addNode(id, env, dir);
    const unit = body.units[i / 3] as CompactUnit;
    const absDir = unit.a ?? (dir === '' ? root : `${root}/${dir}`);
    const configFile = unit.c ?? `${absDir}/${UNIT_FILE}`;
    units.set(id, { id, env, dir, absDir, configFile, includes: unit.i.map(long), ...unit.rest });
  }
  for (let i = 0; i + 2 < body.edges.length; i += 3) {
    const from = ids[body.edges[i] as number] as string;
    const to = ids[body.edges[i + 1] as number] as string;
    const origins = body.edges[i + 2] as EdgeOrigin[];
    if (origins.length === 0) graph.addEdge(from, to);
    for (const origin of origins) graph.addEdge(from, to, mapOrigin(origin, long));
  }
  return { graph, units, externals: body.externals };
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
  const { root, witness } = inputs;
  const target = join(cacheDir, SNAPSHOT_FILE);
  const drop = (): void => {
    try {
      unlinkSync(target);
    } catch {
      // None there.
    }
  };
  if (witness.globbed) return drop();
  const { short } = pathCodec(root);
  const stats = vouchingStats(inputs, short);
  if (stats === undefined) return drop();
  const body = compactBody(discovery, root, short);
  if (body === undefined) return drop();
  const flat = (map: ReadonlyMap<string, string | undefined>): (string | null)[] =>
    [...map].flatMap(([k, v]) => [k, v ?? null]);
  const pathSection = stats.paths.join('\0');
  const header: Header = {
    format: FORMAT,
    key,
    id: randomBytes(9).toString('base64url'),
    pathBytes: Buffer.byteLength(pathSection),
    stats: statDigest(stats.records),
    kinds: flat(witness.kinds),
    realpaths: flat(witness.realpaths),
    env: flat(witness.env),
    // A lazily worked-out hint is worked out now (JSON reads it like any property).
    problems: discovery.problems,
  };
  try {
    writeFileAtomicSync(target, `${JSON.stringify(header)}\n${pathSection}\n${JSON.stringify(body)}`);
  } catch {
    // A read-only checkout still discovers; it just takes the full path next time.
  }
}

/**
 * The stat of every input (directories, files, texts read), sorted, for the warm run to compare; undefined when one
 * cannot vouch for what was read: it cannot be looked at, or it changed too close to the run (or during it).
 */
function vouchingStats(
  inputs: SnapshotInputs,
  short: (path: string) => string,
): { readonly paths: string[]; readonly records: Float64Array } | undefined {
  // Sorted: a warm run stats them in this order, and neighbours share the kernel's cached directory entries.
  const all = [...new Set([...inputs.dirs, ...inputs.files, ...inputs.witness.texts])].sort();
  const paths: string[] = [];
  const records = new Float64Array(all.length * 5);
  const trustedBefore = inputs.startedAt - (inputs.racyWindowMs ?? RACY_WINDOW_MS);
  for (const path of all) {
    const at = paths.length * 5;
    try {
      statInto(path, records, at);
    } catch {
      // Cannot be looked at (permission denied on the way): nothing to vouch with.
      return undefined;
    }
    if (records[at] !== 0 && (records[at + 3] ?? 0) >= trustedBefore) return undefined;
    paths.push(short(path));
  }
  return { paths, records };
}

/** The graph and its units in the snapshot's compact form; undefined when they do not describe the same units. */
function compactBody(discovery: SnapshotDiscovery, root: string, short: (path: string) => string): Body | undefined {
  const { graph } = discovery;
  const ids = graph.ids();
  const index = new Map(ids.map((id, i) => [id, i]));
  const nodes: string[] = [];
  const edges: (number | EdgeOrigin[])[] = [];
  const units: CompactUnit[] = [];
  for (const id of ids) {
    const node = graph.get(id);
    const unit = discovery.units.get(id);
    // Every node is a unit, with the same env and dir; anything else is not a discovery this can keep.
    if (!node || !unit || unit.env !== node.env || unit.dir !== node.dir) return undefined;
    nodes.push(id, node.env, node.dir);
    const absDir = node.dir === '' ? root : `${root}/${node.dir}`;
    const { remoteState, preventDestroy, exclude } = unit;
    const rest = {
      ...(remoteState ? { remoteState } : {}),
      ...(preventDestroy !== undefined ? { preventDestroy } : {}),
      ...(exclude ? { exclude } : {}),
    };
    units.push({
      i: unit.includes.map(short),
      ...(unit.absDir === absDir ? {} : { a: unit.absDir }),
      ...(unit.configFile === `${unit.absDir}/${UNIT_FILE}` ? {} : { c: unit.configFile }),
      ...(Object.keys(rest).length > 0 ? { rest } : {}),
    });
    for (const dep of node.dependencies) {
      const origins = graph.edgeOrigins(id, dep).map((o) => mapOrigin(o, short));
      edges.push(index.get(id) as number, index.get(dep) as number, origins);
    }
  }
  if (units.length !== discovery.units.size) return undefined;
  return { nodes, edges, units, externals: discovery.externals };
}
