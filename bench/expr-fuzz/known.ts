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
 * The float-precision difference this list held is gone since numbers follow cty (512-bit binary fractions with a
 * precision per value, discover/hcl/number.ts); the generator still marks such expressions (`float-precision` in a
 * probe's features), so a regression there is easy to spot.
 */
export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    name: 'find draws an edge over a broken local',
    reason:
      "Terragrunt's find lists a dependency whose path reads a local that render (and so every run) rejects, " +
      'for example a template interpolating a tuple; platctl reports the evaluation error, as render does',
    // platctl refused a local the path reads, find drew an edge anyway, and render refused the unit in its locals.
    matches: (result) =>
      result.verdict === 'platctl-refuses' &&
      !result.platctl.ok &&
      /: local\.\w+: /.test(result.platctl.error) &&
      result.renderError !== undefined &&
      /\bin locals:/.test(result.renderError),
  },
];

/** The known difference a result is, if any. */
export function knownDifference(result: ProbeResult): KnownDifference | undefined {
  if (result.verdict === 'agree' || result.verdict === 'run-cmd') return undefined;
  return KNOWN_DIFFERENCES.find((known) => known.matches(result));
}
