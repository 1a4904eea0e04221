/** Shared by the named hooks: a cloud failure as a hook failure that says where and what to do. */
import type { CloudFailure } from '../cloud/result.js';
import type { Failure } from '../config/result.js';
import { failure } from '../config/result.js';

/** `{ ok: false }` for `unit`'s hook `name`: what failed, then the failure's hint when it has one. */
export function hookFailure(name: string, unit: string, what: string, failed: CloudFailure): Failure {
  const hint = failed.hint ? `; ${failed.hint}` : '';
  return failure(failed.reason, `${name} hook of ${unit}: ${what}: ${failed.message}${hint}`);
}
