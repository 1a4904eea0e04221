/**
 * Discovery: from `.platctl.yaml` and the files on disk to one unit graph across every environment, with every
 * problem found reported as data. docs/discovery.md states the rules followed.
 *
 * An unchanged repository is answered from the snapshot of the last discovery (snapshot.ts): a `stat` per input and
 * one file read. Only when that cannot answer is the full discovery (full.ts: the walk, the parser, the evaluator and
 * their caches) loaded and run.
 */
import { join, resolve } from 'node:path';
import { readSnapshot, snapshotKey } from './snapshot.js';
import type { SnapshotHit } from './snapshot.js';
import type { LoadedConfig } from '../config/load.js';
import type { DiscoverOptions } from './types.js';
import type { DiscoverExtras, Discovery } from './discovery.js';
import { discoveryCodeStamp } from './code-hash.js';

export type { DiscoverOptions, DiscoveryResult, Problem, UnitInfo } from './types.js';
export type { SnapshotHit } from './snapshot.js';
export type { DiscoverExtras, Discovery, ExternalDependency } from './discovery.js';
export { discoveryCodeHash } from './code-hash.js';

export { isUsable } from './types.js';

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

/** Where a project keeps its caches (parses, evaluations, the discovery snapshot, rendered graphs). */
export function projectCacheDir(root: string): string {
  return join(root, '.platctl-cache');
}

/**
 * What discovery is asked, for a verb's settings over a loaded configuration: `env` is the process environment (a
 * plain record, read by the CLI), `version` platctl's.
 */
export function discoveryRequest(
  loaded: Pick<LoadedConfig, 'config' | 'root' | 'locate'>,
  settings: {
    readonly env: DiscoverOptions['env'];
    readonly allowUnresolved: boolean;
    readonly remoteState: boolean;
    readonly version: string;
  },
): { options: DiscoverOptions; extras: DiscoverExtras } {
  const { config, root } = loaded;
  return {
    options: {
      root,
      config,
      env: settings.env,
      allowUnresolved: settings.allowUnresolved,
      remoteState: settings.remoteState,
      cacheDir: projectCacheDir(root),
    },
    extras: { locate: (keyPath) => loaded.locate(keyPath), version: settings.version },
  };
}
