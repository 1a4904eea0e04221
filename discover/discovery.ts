/**
 * What a discovery is asked with beyond its options, and what it answers: the types index.ts and full.ts share,
 * in their own module so that neither imports the other for them.
 */
import type { EdgeOrigin, SourceLocation, UnitId } from '../engine/graph.js';
import type { HclParserPool } from './hcl2json.js';
import type { SnapshotHit } from './snapshot.js';
import type { DiscoveryResult } from './types.js';

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
