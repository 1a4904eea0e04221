/**
 * Where an environment's park record is shared, chosen from the stores the CLI built (docs/park.md).
 */
import type { ObjectStore } from '../engine/object-store.js';

/**
 * Where the park record of an environment is shared (docs/park.md): with the s3 backend, `<key_prefix>/park/<env>.json`
 * in the state bucket, and the environment's `aws.state_bucket` (`s3://<bucket>/platctl/park/<env>.json`) is where an
 * earlier configuration kept it, read once to move it; with the local backend, that environment bucket, if any.
 */
export function parkRecordPlaces(
  state: ObjectStore | undefined,
  envBucket: ObjectStore | undefined,
): { readonly shared?: ObjectStore; readonly previous?: ObjectStore } {
  if (!state) return envBucket ? { shared: envBucket } : {};
  // The same object when state.bucket is the environment's bucket and key_prefix the default: nothing to move.
  const same = envBucket !== undefined && envBucket.location('park/') === state.location('park/');
  return envBucket && !same ? { shared: state, previous: envBucket } : { shared: state };
}
