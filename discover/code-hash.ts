/**
 * Discovery's own code, hashed and stamped, so a cache or snapshot written by another build of platctl is never
 * trusted. Its own module so that index.ts and full.ts share it without importing each other.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeFiles, codeStamp } from '../config/code-stamp.js';

const CODE_DIR = dirname(fileURLToPath(import.meta.url));

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
export function discoveryCodeStamp(): string {
  return (codeStampMemo ??= codeStamp(discoveryCodeFiles()));
}
