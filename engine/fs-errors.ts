/**
 * File system failures as sentences. The lock, the state file and the logs live in the repository root, and a disk
 * that fills up, a root mounted read-only or a directory owned by someone else must say which file and why, in words,
 * with what to do: not a bare `ENOSPC: no space left on device, write`.
 */

/** The error code of a Node file system error (`ENOSPC`, `EROFS`, ...), if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const CAUSES: Readonly<Record<string, { readonly cause: string; readonly hint: string }>> = {
  ENOSPC: { cause: 'no space is left on the device', hint: 'free some space on that disk' },
  EDQUOT: { cause: 'the disk quota is exhausted', hint: 'free some space or raise the quota' },
  EROFS: { cause: 'the file system is read-only', hint: 'run platctl from a writable checkout' },
  EACCES: { cause: 'permission is denied', hint: 'run platctl as a user who may write there' },
  EPERM: { cause: 'the operation is not permitted', hint: 'run platctl as a user who may write there' },
  EIO: { cause: 'the disk reported an I/O error', hint: 'check the disk' },
  EMFILE: { cause: 'platctl has too many files open', hint: 'raise the open file limit (ulimit -n)' },
  ENFILE: { cause: 'the system has too many files open', hint: 'close other programs or raise the system limit' },
  EFBIG: { cause: 'the file is larger than allowed', hint: 'raise the file size limit (ulimit -f)' },
};

/**
 * `cannot write /repo/.platctl-state.json: no space is left on the device (ENOSPC); free some space on that disk`.
 * `action` is what was being done (`write`, `create`, `remove`), `path` the file.
 */
export function describeFsError(action: string, path: string, error: unknown): string {
  const code = errorCode(error);
  const known = code === undefined ? undefined : CAUSES[code];
  if (known) return `cannot ${action} ${path}: ${known.cause} (${code}); ${known.hint}`;
  const message = error instanceof Error ? error.message : String(error);
  return `cannot ${action} ${path}: ${message}`;
}

/** An error whose message is already a sentence naming the file and the cause (see `describeFsError`). */
export class FsError extends Error {
  readonly code: string | undefined;
  readonly path: string;

  constructor(action: string, path: string, cause: unknown) {
    super(describeFsError(action, path, cause), { cause });
    this.name = 'FsError';
    this.code = errorCode(cause);
    this.path = path;
  }
}
