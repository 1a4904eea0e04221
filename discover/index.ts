/**
 * Discovery: from `.platctl.yaml` and the files on disk to one unit graph across every environment, with every
 * problem found reported as data. docs/discovery.md states the rules followed.
 *
 * An unchanged repository is answered from the snapshot of the last discovery (snapshot.ts): a `stat` per input and
 * one file read. Only when that cannot answer is the full discovery (full.ts: the walk, the parser, the evaluator and
 * their caches) loaded and run.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeFiles, codeStamp } from '../config/code-stamp.js';
import type { EdgeOrigin, SourceLocation, UnitId } from '../engine/graph.js';
import type { HclParserPool } from './hcl2json.js';
import { readSnapshot, snapshotKey } from './snapshot.js';
import type { SnapshotHit } from './snapshot.js';
import type { DiscoverOptions, DiscoveryResult } from './types.js';

export type { DiscoverOptions, DiscoveryResult, Problem, UnitInfo } from './types.js';
export type { SnapshotHit } from './snapshot.js';

const CODE_DIR = dirname(fileURLToPath(import.meta.url));
export { isUsable } from './types.js';

let codeHash: string | undefined;
let codeStampMemo: string | undefined;
let codeFilesMemo: string[] | undefined;

/** Discovery's own code files (this directory, as they run), listed once for the hash and the stamp. */
function discoveryCodeFiles(): string[] {
  return (codeFilesMemo ??= codeFiles(CODE_DIR, { recursive: true }));
}

/**
 * A hash of discovery's own code (the files of this directory, as they run), so a cache written by another build
 * of platctl, even one with the same version number, is never trusted. It keys the unit cache, which a rebuild of the
 * same code keeps.
 */
export function discoveryCodeHash(): string {
  if (codeHash !== undefined) return codeHash;
  const hash = createHash('sha256');
  for (const file of discoveryCodeFiles()) {
    hash.update(relative(CODE_DIR, file));
    hash.update(readFileSync(file));
  }
  return (codeHash = hash.digest('base64url').slice(0, 16));
}

/** The same files' stamp (config/code-stamp.ts): what the snapshot is keyed on, as every warm run computes it. */
function discoveryCodeStamp(): string {
  return (codeStampMemo ??= codeStamp(discoveryCodeFiles()));
}

export interface DiscoverExtras {
  /** Where a config key is written, for problems about `implicit_deps` and `units`. */
  readonly locate?: (keyPath: (string | number)[]) => SourceLocation | undefined;
  /** platctl's version, part of the parse cache key. */
  readonly version?: string;
  /** The parser pool to use instead of a new one (a test seam: tests inject parsers that crash or hang). */
  readonly parserPool?: HclParserPool;
  /**
   * A test seam: how long before the run an input must have last changed for the snapshot to be kept (default
   * RACY_WINDOW_MS). Tests set it below zero to keep snapshots of files they have just written.
   */
  readonly snapshotRacyWindowMs?: number;
  /** The snapshot {@link probeSnapshot} found for the same options and extras: not looked up (nor stat'ed) again. */
  readonly snapshot?: SnapshotHit;
}

/** A unit's edges that point outside every environment (or at an excluded unit): satisfied, never walked. */
export interface ExternalDependency {
  readonly unit: UnitId;
  readonly dir: string;
  readonly origin: EdgeOrigin;
}

export interface Discovery extends DiscoveryResult {
  readonly externals: readonly ExternalDependency[];
  /** How many files the parser saw in this run (the rest came from the cache). */
  readonly stats: {
    readonly units: number;
    /** Files the parser saw in this run (the rest came from the parse cache). */
    readonly filesParsed: number;
    /** Units whose cached evaluation was still valid. */
    readonly unitsReused: number;
    readonly retries: number;
    /** The whole discovery came from the snapshot of an unchanged repository (see snapshot.ts). */
    readonly fromSnapshot: boolean;
  };
}

/**
 * The snapshot of the last discovery, when it answers these options now (every input unchanged); undefined when a
 * discovery must run. Costs a `stat` per input and the snapshot's header: a verb can use the hit's identity to answer
 * from what it worked out last time, and pass the hit on to {@link discover}.
 */
export function probeSnapshot(options: DiscoverOptions, extras: DiscoverExtras = {}): SnapshotHit | undefined {
  const place = snapshotPlace(options, extras);
  return place && readSnapshot(place.cacheDir, place.key, resolve(options.root), options.env);
}

export async function discover(options: DiscoverOptions, extras: DiscoverExtras = {}): Promise<Discovery> {
  const root = resolve(options.root);
  const snapshot = await (extras.snapshot ?? probeSnapshot(options, extras))?.restore();
  if (snapshot) {
    const size = snapshot.units.size;
    return {
      root,
      ...snapshot,
      stats: { units: size, filesParsed: 0, unitsReused: size, retries: 0, fromSnapshot: true },
    };
  }
  const { discoverFully } = await import('./full.js');
  return discoverFully(options, extras, snapshotPlace(options, extras)?.key);
}

/** Where the snapshot is kept and under which key; undefined when none is kept (no cache dir, an injected parser). */
function snapshotPlace(
  options: DiscoverOptions,
  extras: DiscoverExtras,
): { cacheDir: string; key: string } | undefined {
  const root = resolve(options.root);
  const cacheDir = options.cacheDir === undefined ? join(root, '.platctl-cache') : options.cacheDir;
  // Not with an injected parser: that test seam asks for parsing.
  if (cacheDir === false || extras.parserPool !== undefined) return undefined;
  return { cacheDir, key: keyOf(root, options, extras) };
}

/**
 * The snapshot's key: everything besides the files on disk and the environment that a discovery depends on.
 * platctl's build (its discovery code, parser id and cache formats included), the configuration and where its
 * implicit_deps are written (edges carry those locations), the options.
 */
function keyOf(root: string, options: DiscoverOptions, extras: DiscoverExtras): string {
  const implicit = Object.entries(options.config.implicit_deps).flatMap(([from, targets]) =>
    targets.map((_, i) => extras.locate?.(['implicit_deps', from, i]) ?? null),
  );
  return snapshotKey([
    extras.version ?? 'dev',
    discoveryCodeStamp(),
    root,
    options.config,
    implicit,
    options.remoteState === true,
    options.allowUnresolved === true,
  ]);
}
