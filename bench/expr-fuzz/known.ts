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

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    name: 'float-precision',
    reason:
      'OpenTofu computes with 512-bit binary fractions and prints every digit (1/3 has 154); platctl computes ' +
      'with float64 and prints at most 17 significant digits, so a path built from an inexact fraction or an ' +
      'integer beyond 2^53 can differ',
    matches: (result) => result.probe.features.includes('float-precision'),
  },
];

/** The known difference a result is, if any. */
export function knownDifference(result: ProbeResult): KnownDifference | undefined {
  if (result.verdict === 'agree' || result.verdict === 'run-cmd') return undefined;
  return KNOWN_DIFFERENCES.find((known) => known.matches(result));
}
