/**
 * Writing a file so that a crash, a full disk or a concurrent reader never sees half of it: the bytes go to a fresh
 * temp file beside the target, which is renamed over the target only once it is whole. Every file platctl writes for
 * later reading (run state, park records, report pages, caches, kubeconfig, a pulled state) goes through here. The
 * one exception is the lock (engine/lock.ts): it is created with link(2), which needs its own temp file, and its
 * temp files are found again by name when a killed run left one.
 *
 * Written by hand rather than with `write-file-atomic`: the run state is written as a list of cached chunks with one
 * `writev` (no concatenation per transition), a short write must be an error (a full disk reports a smaller count,
 * not a failure), the directory is fsynced after the rename so the rename itself survives a power loss, and the warm
 * `platctl graph` path needs a synchronous variant that loads nothing more. It lives in config/, the bottom layer, so
 * every layer may use it.
 */
import { crypto } from './crypto.js';
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface AtomicWriteOptions {
  /** fsync the file before the rename and its directory after it (default true). Caches, safe to lose, skip it. */
  readonly fsync?: boolean;
  /** The new file's mode (default 0o666 less the umask). */
  readonly mode?: number;
}

/** The temp file's name: beside the target (a rename never crosses file systems), unique per writer. */
function tempPath(path: string): string {
  return `${path}.tmp-${crypto().randomBytes(6).toString('hex')}`;
}

function asBuffers(data: string | readonly Uint8Array[]): { buffers: Uint8Array[]; size: number } {
  const buffers = typeof data === 'string' ? [Buffer.from(data)] : [...data];
  return { buffers, size: buffers.reduce((n, b) => n + b.byteLength, 0) };
}

function shortWrite(written: number, size: number): Error {
  return new Error(`only ${written} of ${size} bytes were written (is the disk full?)`);
}

/**
 * Replaces `path` with `data`, whole or not at all. On failure the old file stays as it was, no temp file is left,
 * and the error (a Node `fs` error, or a short write) is thrown for the caller to word.
 */
export async function writeFileAtomic(
  path: string,
  data: string | readonly Uint8Array[],
  options: AtomicWriteOptions = {},
): Promise<void> {
  const fsync = options.fsync ?? true;
  const { buffers, size } = asBuffers(data);
  const temp = tempPath(path);
  try {
    const handle = await open(temp, 'wx', options.mode);
    try {
      const { bytesWritten } = await handle.writev(buffers);
      if (bytesWritten !== size) throw shortWrite(bytesWritten, size);
      if (fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  if (fsync) await syncDirectoryOf(path);
}

/** `writeFileAtomic` for synchronous paths (the warm `platctl graph`), never fsynced: used for caches only. */
export function writeFileAtomicSync(path: string, data: string, options: { readonly mode?: number } = {}): void {
  const { buffers, size } = asBuffers(data);
  const temp = tempPath(path);
  try {
    const fd = openSync(temp, 'wx', options.mode);
    try {
      let written = 0;
      for (const buffer of buffers) written += writeSync(fd, buffer);
      if (written !== size) throw shortWrite(written, size);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * fsyncs the directory holding `path`, so a rename in it survives a power loss. File systems that cannot sync a
 * directory (EINVAL, ENOTSUP, EISDIR) are skipped: there the rename is as durable as they make it.
 */
export async function syncDirectoryOf(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(dirname(path), 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'EINVAL' || code === 'ENOTSUP' || code === 'EISDIR') return;
    throw error;
  } finally {
    await handle?.close();
  }
}
