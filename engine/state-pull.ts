/**
 * `platctl state pull|push` (its flow: {@link stateCommand}), and `state pull`'s write: a run state from the shared
 * backend replaces this checkout's `.platctl-state.json`, the file it replaces kept beside it as a backup. A copy, not
 * a move, then a whole-or-nothing replace: a full disk or a crash mid-pull leaves the local state as it was, never a
 * torn file for the next --resume.
 */
import { constants } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../config/atomic-write.js';
import { formatConfigErrors } from '../config/errors.js';
import { EXIT } from '../config/exit-codes.js';
import { loadConfig } from '../config/load.js';
import { describeFsError, errorCode } from './fs-errors.js';
import type { Failure, Result } from '../config/result.js';
import { failure, ok } from '../config/result.js';
import type { ObjectStore } from './object-store.js';
import type { RunAuthor } from './shared-state.js';
import { LOCK_FILE, lockHeld, procMachine } from './lock.js';
import { loadRemoteLatest, runAuthor, uploadState } from './shared-state.js';
import type { RunState } from './state.js';
import { STATE_FILE, backupName, loadState } from './state.js';
import type { StateStoreOf, ThisProcess, VerbIo } from './verb-io.js';

/** Replaced (with the backup's name, when there was a file to keep), or why not, with the local state unchanged. */
export type Replaced =
  { readonly ok: true; readonly kept?: string | undefined } | { readonly ok: false; readonly message: string };

/** Writes `state` as the local state of `root`, keeping the previous file (if any) as a backup named at `nowMs`. */
export async function replaceLocalState(root: string, state: RunState, nowMs: number): Promise<Replaced> {
  const local = await loadState(root);
  const kept = local.type === 'missing' ? undefined : backupName(nowMs);
  const target = join(root, STATE_FILE);
  let copied = false;
  try {
    if (kept !== undefined) {
      copied = true;
      await copyFile(target, join(root, kept), constants.COPYFILE_EXCL);
    }
    await writeFileAtomic(target, `${JSON.stringify(state)}\n`);
  } catch (error) {
    // Our copy only (a partial one on a full disk): never a backup some other run made.
    if (copied && errorCode(error) !== 'EEXIST')
      await rm(join(root, kept ?? ''), { force: true }).catch(() => undefined);
    return { ok: false, message: describeFsError('write', target, error) };
  }
  return { ok: true, kept };
}

/**
 * `platctl state pull`: the bucket's latest run replaces this checkout's state file (the previous one kept aside).
 * What was done, in words; else `unreadable` (the bucket), `nothing` (no run, or one that cannot be parsed) or
 * `refused` (the state file could not be replaced: it is unchanged).
 */
export async function pullState(
  store: ObjectStore,
  root: string,
  nowMs: number,
): Promise<Result<string, Failure<'unreadable' | 'nothing' | 'refused'>>> {
  const remote = await loadRemoteLatest(store);
  if (!remote.ok) return failure('unreadable', `cannot read the shared run state: ${remote.message}`);
  if (remote.value.type === 'missing') {
    return failure('nothing', `no run in ${store.location('latest/')}; nothing to pull`);
  }
  if (remote.value.type === 'invalid') return failure('nothing', remote.value.message);
  const { state } = remote.value;
  const replaced = await replaceLocalState(root, state, nowMs);
  if (!replaced.ok) {
    return failure('refused', `refused: ${replaced.message}; ${STATE_FILE} is unchanged, nothing pulled`);
  }
  const { kept } = replaced;
  return ok(
    `pulled run ${state.run_id} (${state.command}, ${state.status}) into ` +
      `${join(root, STATE_FILE)}${kept ? `; the previous file is kept as ${kept}` : ''}`,
  );
}

/**
 * `platctl state push`: this checkout's state file uploaded as a run of the bucket (the latest of its verb unless a
 * newer one is). What was done, in words; else `nothing` (no state file, or one that cannot be read) or `unwritable`.
 */
export async function pushState(
  store: ObjectStore,
  root: string,
  by: RunAuthor,
): Promise<Result<string, Failure<'nothing' | 'unwritable'>>> {
  const local = await loadState(root);
  if (local.type !== 'ok') {
    return failure(
      'nothing',
      local.type === 'missing' ? `no ${STATE_FILE} in ${root}; nothing to push` : local.message,
    );
  }
  const { state } = local;
  const pushed = await uploadState(store, state, by);
  if (!pushed.ok) return failure('unwritable', `cannot upload the state: ${pushed.message}`, pushed.hint);
  const where = `pushed run ${state.run_id} to ${store.location(`runs/${state.run_id}/`)}`;
  return ok(
    pushed.value === 'uploaded'
      ? `${where}; it is the latest ${state.command}`
      : `${where}; a newer ${state.command} stays the latest`,
  );
}

/**
 * Runs `platctl state pull|push`, by hand: a run on the s3 backend does it on its own (the first run uploads a local
 * state); these are for a person who wants to look at or move a state without running anything. Refused without
 * the shared backend (exit 2) or while a platctl run holds this checkout's lock (exit 3); then what was done on
 * stdout, or why not on stderr (exit 1 when there was nothing).
 */
export async function stateCommand(
  action: 'pull' | 'push',
  config: string | undefined,
  io: VerbIo,
  ports: { readonly stateStore: StateStoreOf; readonly self: ThisProcess },
): Promise<number> {
  const loaded = await loadConfig({ path: config, cwd: io.cwd, checkFilesystem: false });
  if (!loaded.ok) {
    io.stderr.write(formatConfigErrors(loaded.errors, io.cwd));
    return EXIT.usage;
  }
  const root = dirname(loaded.value.path);
  const store = await ports.stateStore(loaded.value.config.state);
  if (!store) {
    io.stderr.write(`platctl: state ${action} needs state.backend: s3 in ${loaded.value.path} (docs/state.md)\n`);
    return EXIT.usage;
  }
  const machine = await procMachine(ports.self);
  if (await lockHeld(root, machine)) {
    io.stderr.write(`platctl: refused: a platctl run holds ${LOCK_FILE} in ${root}; wait for it to finish\n`);
    return EXIT.refused;
  }
  const done =
    action === 'pull' ? await pullState(store, root, Date.now()) : await pushState(store, root, runAuthor(io.env));
  if (done.ok) {
    io.stdout.write(`${done.value}\n`);
    return EXIT.ok;
  }
  io.stderr.write(`platctl: ${done.message}\n${done.hint ? `  hint: ${done.hint}\n` : ''}`);
  return done.reason === 'nothing' ? EXIT.failed : EXIT.refused;
}
