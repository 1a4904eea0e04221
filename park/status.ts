/**
 * The park state as `platctl status` shows it: per environment, the record where it lives (the shared one when the
 * CLI configured a shared store, else `.platctl-park/<env>.json`) and the last down/up step by step (always the local
 * file: the journal is not shared). This module reads the local files, reads each record through the store the CLI
 * builds for it (shared or local), and renders.
 */
import type { Operation, ParkFile, ParkRecord, RecordStore } from './record.js';
import { readdir } from 'node:fs/promises';
import type { ParkFacts } from '../engine/status-view.js';
import { join } from 'node:path';
import { PARK_DIR, asideRefusal, loadParkFile, movedAside, parkFileEnvs, parkFilePath } from './record.js';

/** The environments with a file `<env>.json.<suffix>` under `root` (not platctl's temp files). */
async function asideEnvs(root: string): Promise<string[]> {
  const names = await readdir(join(root, PARK_DIR)).catch(() => [] as string[]);
  const envs = names.flatMap((name) => {
    const match = /^(.+)\.json\.(?!tmp-).+$/.exec(name);
    return match?.[1] === undefined ? [] : [match[1]];
  });
  return [...new Set(envs)].sort();
}

/** The park files under `root`: those read, and those that could not be (why, in a sentence naming the file). */
export interface LocalParkFiles {
  readonly files: readonly ParkFile[];
  readonly unreadable: readonly { readonly env: string; readonly message: string; readonly hint: string }[];
}

/** Every park file under `root`. */
export async function parkFiles(root: string): Promise<LocalParkFiles> {
  const files: ParkFile[] = [];
  const unreadable: { env: string; message: string; hint: string }[] = [];
  for (const env of await parkFileEnvs(root)) {
    const loaded = await loadParkFile(root, env);
    if (loaded.type === 'ok') files.push(loaded.file);
    else if (loaded.type === 'invalid') unreadable.push({ env, message: loaded.message, hint: loaded.hint });
  }
  // A park file moved aside (and nothing in its place) leaves the park state unknown, never "no record".
  for (const env of await asideEnvs(root)) {
    const aside = await movedAside(root, env);
    if (aside !== undefined) unreadable.push({ env, ...asideRefusal(root, env, aside) });
  }
  return { files, unreadable };
}

/** Why an environment's record could not be read: its park state is unknown. */
export interface ParkUnreadable {
  readonly reason: string;
  readonly message: string;
  readonly hint?: string | undefined;
}

/** One environment's park state for status. */
export interface ParkView {
  readonly env: string;
  /** The record as read where it lives; undefined when there is none (or it could not be read). */
  readonly record?: ParkRecord | undefined;
  /** Where the record was read, or where it could not be. */
  readonly record_location?: string | undefined;
  /** The last down/up, from the local file. */
  readonly last?: Operation | undefined;
  /** Set when the record could not be read. */
  readonly unreadable?: ParkUnreadable | undefined;
  /**
   * Set when the journal says the last down/up is running but no live platctl holds the lock: why it is known to be
   * dead (killed, the machine lost power). Judged by the CLI from `.platctl.lock`, as for a bootstrap run.
   */
  readonly killed?: string | undefined;
}

/** What a monitor reads from `platctl status` about one environment's park state (README, exit codes). */
export type ParkVerdict = 'unknown' | 'trouble' | 'parked' | 'fine';

/** `unknown`: the record cannot be read; `trouble`: the last down/up failed or was killed; else parked or fine. */
export function parkVerdict(view: ParkView): ParkVerdict {
  if (view.unreadable) return 'unknown';
  if (view.last && (view.last.status === 'failed' || view.killed !== undefined)) return 'trouble';
  return view.record?.status === 'parked' ? 'parked' : 'fine';
}

/** What status weighs of each environment's park state (engine/status-view.ts: the exit code, the parked ones). */
export function parkFacts(views: readonly ParkView[]): ParkFacts[] {
  return views.map((view) => ({ env: view.env, verdict: parkVerdict(view), recorded: view.record !== undefined }));
}

/** The command that finishes the last down/up of `view` (`extra`: e.g. `--config FILE`). */
export function parkResumeCommand(view: ParkView, extra: readonly string[] = []): string | undefined {
  const last = view.last;
  if (!last || verdictOfLast(view) === undefined) return undefined;
  return ['platctl', last.op, '--resume', '--env', view.env, ...extra, '--yes'].join(' ');
}

function verdictOfLast(view: ParkView): 'failed' | 'killed' | undefined {
  if (view.killed !== undefined) return 'killed';
  return view.last?.status === 'failed' ? 'failed' : undefined;
}

/** Why `view`'s park state is unknown: the record's location, the cause and what to do. */
function unreadableWhy(view: ParkView): string {
  const why = view.unreadable;
  if (!why) return '';
  const location = view.record_location ?? '';
  const cause = why.message.includes(location) ? why.message : `${location}: ${why.message}`;
  const todo =
    why.hint ??
    (location.startsWith('s3://') ? 'check the network and the AWS credentials that reach it' : 'inspect it');
  return `its park record cannot be read: ${cause}; ${todo}, then run platctl status again`;
}

/** The last down/up, step by step; one a killed platctl left `running` shows as interrupted, with why. */
function lastLines(view: ParkView): string[] {
  const last = view.last;
  if (!last) return [];
  const killed = view.killed;
  const status = killed === undefined ? last.status : `interrupted (platctl was killed: ${killed})`;
  const lines = [
    `    last ${last.op}: ${status}, started ${last.started_at} by ${last.by.user}@${last.by.host}` +
      `${last.resumes > 0 ? `, resumed ${last.resumes}x` : ''}`,
  ];
  for (const [name, step] of Object.entries(last.steps)) {
    const took = step.duration_ms === undefined ? '' : ` (${Math.round(step.duration_ms / 100) / 10}s)`;
    const shown = killed !== undefined && step.status === 'running' ? 'interrupted' : step.status;
    lines.push(`      ${shown.padEnd(11)} ${name}${took}${step.detail ? `: ${step.detail}` : ''}`);
  }
  return lines;
}

/** The sentence saying that `view`'s park state is unknown (for stderr and `status --json`). */
export function unknownParkSentence(view: ParkView): string {
  return `the park state of ${view.env} is unknown: ${unreadableWhy(view)}`;
}

/**
 * What status says of the park state before the run: the table on stdout (its commands repeat `--config` when one was
 * named); under `--json` only the records it could not read, on stderr, since the JSON at the end holds the rest.
 */
export function parkStatusOutput(
  views: readonly ParkView[],
  json: boolean,
  namedConfig: string | undefined,
): { readonly stdout: string; readonly stderr: string } {
  if (!json)
    return { stdout: renderParkStatus(views, namedConfig === undefined ? [] : ['--config', namedConfig]), stderr: '' };
  const unknown = views.filter((v) => v.unreadable !== undefined);
  return { stdout: '', stderr: unknown.map((v) => `platctl: ${unknownParkSentence(v)}\n`).join('') };
}

/**
 * Lines for `platctl status`: per environment, parked or not, since when, by whom, the sizes, the last down/up, and
 * what to run (`up` for a parked environment, `--resume` for a down/up that failed or was killed). `extra` is added
 * to those command lines (e.g. `--config FILE`).
 */
export function renderParkStatus(views: readonly ParkView[], extra: readonly string[] = []): string {
  if (views.length === 0) return '';
  const lines: string[] = ['Park state:'];
  for (const view of views) {
    const record = view.record;
    if (view.unreadable) lines.push(`  ${view.env}: UNKNOWN: ${unreadableWhy(view)}`);
    else if (!record) lines.push(`  ${view.env}: no record`);
    else if (record.status === 'parked') {
      lines.push(
        `  ${view.env}: PARKED since ${record.parked_at} by ${record.parked_by.user}@${record.parked_by.host}`,
      );
    } else {
      lines.push(`  ${view.env}: not parked (last parked ${record.parked_at}, unparked ${record.unparked_at ?? '?'})`);
    }
    if (record) {
      const sizes = Object.entries(record.node_groups).map(([n, s]) => `${n} ${s.min}/${s.max}/${s.desired}`);
      if (sizes.length > 0) lines.push(`    recorded sizes (min/max/desired): ${sizes.join(', ')}`);
      if (view.record_location) lines.push(`    record: ${view.record_location}`);
    }
    lines.push(...lastLines(view));
    const resume = parkResumeCommand(view, extra);
    if (resume) lines.push(`    Resume with: ${resume}`);
    else if (record?.status === 'parked' && !view.unreadable && view.last?.status !== 'running') {
      // bootstrap refuses a parked environment: up is what brings it back.
      lines.push(`    Bring it back with: ${['platctl', 'up', '--env', view.env, ...extra].join(' ')}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Where status reads the records when `.platctl.yaml` was loaded: the environments with a park entry, and their stores. */
export interface ParkRecordSource {
  readonly envs: readonly string[];
  /** The record store of `env`, read-only (it takes no lock, so it never moves a record). */
  readonly storeFor: (env: string) => Promise<RecordStore>;
}

/**
 * The park state of every environment with a park record, shared or local, for status. Where a record is shared
 * (docs/park.md) the shared one is the truth: another runner (a cron elsewhere, CI) may have parked the environment
 * or brought it back, so it is read there, through the same store as bootstrap's guard; a record that cannot be read
 * there is unknown, never guessed from the local copy. The step journal is always the local file's (it is not
 * shared). Without `source` (status did not load `.platctl.yaml`, as nothing in it can be shared) only the local
 * files are read.
 */
export async function readParkViews(root: string, source: ParkRecordSource | undefined): Promise<ParkView[]> {
  const { files, unreadable } = await parkFiles(root);
  if (!source) return localViews(root, files, unreadable);
  const local = new Map(files.map((file) => [file.env, file]));
  // An unreadable local file is read again through the environment's store: unknown where it is the record.
  const envs = [...new Set([...local.keys(), ...unreadable.map((u) => u.env), ...source.envs])].sort();
  const views = await Promise.all(
    envs.map(async (env): Promise<ParkView | undefined> => {
      const store = await source.storeFor(env);
      const last = local.get(env)?.last;
      const read = await store.read();
      if (!read.ok) {
        const unreadable = { reason: read.reason, message: read.message, hint: read.hint };
        return { env, record_location: store.location, last, unreadable };
      }
      const aside = read.value === undefined ? await store.aside() : undefined;
      if (aside !== undefined) {
        const why = asideRefusal(root, env, aside);
        return { env, record_location: parkFilePath(root, env), last, unreadable: { reason: 'moved-aside', ...why } };
      }
      if (read.value === undefined && !local.has(env)) return undefined;
      // Where it was found: while a record moves to the state bucket, status (which never moves it) reads the old copy.
      return { env, record: read.value, record_location: store.answeredFrom, last };
    }),
  );
  return views.filter((view) => view !== undefined);
}

/** The views of the local park files alone, by environment. */
function localViews(
  root: string,
  files: LocalParkFiles['files'],
  unreadable: LocalParkFiles['unreadable'],
): ParkView[] {
  const views: ParkView[] = [
    ...files.map((file) => ({
      env: file.env,
      record: file.record,
      record_location: file.record ? parkFilePath(root, file.env) : undefined,
      last: file.last,
    })),
    // A park file that cannot be read says nothing of the environment: unknown, never skipped.
    ...unreadable.map(({ env, message, hint }) => ({
      env,
      record_location: parkFilePath(root, env),
      unreadable: { reason: 'unreadable-park-file', message, hint },
    })),
  ];
  return views.sort((a, b) => (a.env < b.env ? -1 : a.env > b.env ? 1 : 0));
}

/** The `park` array of `platctl status --json`; `parked` is null when the record cannot be read. */
export function parkStatusJson(views: readonly ParkView[]): unknown[] {
  return views.map((view) => ({
    env: view.env,
    parked: view.unreadable ? null : view.record?.status === 'parked',
    record: view.record ?? null,
    record_location: view.record_location ?? null,
    last: view.last ?? null,
    // Why the last down/up, recorded running, is known to be dead; null when it is not.
    killed: view.killed ?? null,
    ...(view.unreadable ? { error: { reason: view.unreadable.reason, message: unknownParkSentence(view) } } : {}),
  }));
}
