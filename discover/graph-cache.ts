/**
 * Rendered graphs, kept in `.platctl-cache/rendered/`: `platctl graph` over an unchanged repository prints what it
 * printed last time for the same request, without rebuilding the graph from the snapshot or laying out its waves
 * again (for thousands of units, most of a warm run).
 *
 * An entry is keyed by what decides the output: the discovery (the snapshot's identity, which changes whenever any
 * input of the discovery does), the request (format, `--env`, `--unit`, `--reverse`) and the code that renders
 * (a stamp of its modules, so another build of platctl never prints an older build's layout). Only discoveries
 * without problems are kept, so a cached answer never hides a warning. Entries are written atomically and best
 * effort: a read-only checkout renders every time.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeStamp } from '../config/code-stamp.js';
import { writeFileAtomicSync } from '../config/atomic-write.js';

/** What decides a rendered graph besides the discovery. */
export interface RenderRequest {
  readonly format: string;
  readonly envs: readonly string[];
  readonly units: readonly string[];
  readonly reverse: boolean;
}

export interface RenderCache {
  /** The output rendered for this discovery and request, when there is one. */
  read(): string | undefined;
  /** Keeps an output (best effort). */
  write(output: string): void;
}

const DIR = 'rendered';
/** Requests kept: a few formats and filters per repository; the least recently written go first. */
const MAX_ENTRIES = 16;
/** The modules whose code shapes the output: the verb, the renderers, the graph algorithms, the chain text. */
const RENDER_MODULES = ['./graph.js', './graph-render.js', '../engine/graph.js', '../discover/types.js'];

let codeStampMemo: string | undefined;

/** The render modules' stamp (config/code-stamp.ts): compiled, they are .js files; run from the sources, .ts. */
function renderCodeStamp(): string {
  return (codeStampMemo ??= codeStamp(
    RENDER_MODULES.map((module) => {
      const path = fileURLToPath(new URL(module, import.meta.url));
      return existsSync(path) ? path : path.replace(/\.js$/, '.ts');
    }),
  ));
}

/** The cache entry for one discovery (a snapshot's identity) and request. */
export function renderCache(cacheDir: string, discoveryIdentity: string, request: RenderRequest): RenderCache {
  const code = renderCodeStamp();
  const dir = join(cacheDir, DIR);
  const requestKey = JSON.stringify([request.format, request.envs, request.units, request.reverse]);
  const file = join(dir, createHash('sha256').update(requestKey).digest('base64url'));
  const stamp = `${discoveryIdentity} ${code}\n`;
  return {
    read: () => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
      return text.startsWith(stamp) ? text.slice(stamp.length) : undefined;
    },
    write: (output) => {
      try {
        mkdirSync(dir, { recursive: true });
        writeFileAtomicSync(file, stamp + output);
        prune(dir);
      } catch {
        // Not kept: the next run renders again.
      }
    },
  };
}

/** Keeps the {@link MAX_ENTRIES} newest entries (and drops temp files a killed run left). */
function prune(dir: string): void {
  const entries = readdirSync(dir).map((name) => {
    const path = join(dir, name);
    return { path, stale: name.endsWith('.tmp'), mtime: statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0 };
  });
  const kept = entries.filter((e) => !e.stale).sort((a, b) => b.mtime - a.mtime);
  const dropped = [...kept.slice(MAX_ENTRIES), ...entries.filter((e) => e.stale && e.mtime < Date.now() - 60_000)];
  for (const { path } of dropped) {
    try {
      unlinkSync(path);
    } catch {
      // Gone already.
    }
  }
}
