/**
 * `platctl state pull`'s write: a run state from the shared backend replaces this checkout's `.platctl-state.json`,
 * the file it replaces kept beside it as a backup. A copy, not a move, then a whole-or-nothing replace: a full disk
 * or a crash mid-pull leaves the local state as it was, never a torn file for the next --resume.
 */
import { constants } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/atomic-write.js';
import { describeFsError, errorCode } from './fs-errors.js';
import type { RunState } from './state.js';
import { STATE_FILE, backupName, loadState } from './state.js';

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
