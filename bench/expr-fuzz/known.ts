/**
 * Differences between platctl and Terragrunt that the expression fuzzer knows about and docs/discovery.md lists
 * with the reason ("Expression semantics: known differences"). A difference matching one of these is reported as
 * known, not as a failure; anything else fails the short run in the e2e suite.
 *
 * Keep this list and the documentation in step, and keep it short: a difference belongs here only when matching
 * Terragrunt would cost more than the difference is worth, never to make a failing run pass.
 */
import type { ProbeResult } from './compare.js';

export interface KnownDifference {
  /** Short name, as docs/discovery.md's list uses it. */
  readonly name: string;
  /** Why platctl differs. */
  readonly reason: string;
  /** Whether a probe's difference is this one (looks at the expression and locals as written). */
  readonly matches: (result: ProbeResult) => boolean;
}

/**
 * Empty since numbers follow cty (512-bit binary fractions with a precision per value, discover/hcl/number.ts): the
 * float-precision difference this list held is gone. The generator still marks such expressions
 * (`float-precision` in a probe's features), so a regression there is easy to spot.
 */
export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [];

/** The known difference a result is, if any. */
export function knownDifference(result: ProbeResult): KnownDifference | undefined {
  if (result.verdict === 'agree' || result.verdict === 'run-cmd') return undefined;
  return KNOWN_DIFFERENCES.find((known) => known.matches(result));
}
