/**
 * Did-you-mean for unit paths and ids. A dangling dependency path is most often one `../` too many or too few, or a
 * misspelt unit name; so the candidates are the units whose last path element is (nearly) the one written, and of
 * those the one that keeps the most of the written path's tail, then the most of its other elements, then the
 * closest spelling. Failing that, a plausible typo of the whole path.
 *
 * The candidates are indexed once (by last element); a question then costs a few comparisons per unit with a
 * matching last element, not an edit distance per unit, so thousands of dangling paths stay cheap.
 */
import { boundedDistance, didYouMean } from '../config/errors.js';

interface Candidate {
  readonly path: string;
  readonly segments: readonly string[];
}

/** How well a candidate fits the wanted path; compared field by field, earlier fields first. */
interface Fit {
  /** Edits between the last elements (lower is better). */
  readonly lastDistance: number;
  /** Elements equal above the last one, counted upward until the first that differs (higher is better). */
  readonly tail: number;
  /** Elements of the wanted path the candidate holds, each counted once (higher is better). */
  readonly shared: number;
}

function segmentsOf(path: string): string[] {
  return path.split('/').filter((s) => s !== '' && s !== '.');
}

/** Edits allowed in a last element of this length before it is no longer a plausible typo. */
function lastLimit(last: string): number {
  return Math.min(2, Math.floor(last.length / 3));
}

export class PathSuggester {
  readonly #byLast = new Map<string, Candidate[]>();
  readonly #all: readonly string[];
  readonly #memo = new Map<string, string | undefined>();
  #lower: string[] | undefined;

  constructor(candidates: Iterable<string>) {
    const all: string[] = [];
    for (const path of candidates) {
      all.push(path);
      const segments = segmentsOf(path);
      const last = segments[segments.length - 1] ?? '';
      const group = this.#byLast.get(last);
      if (group) group.push({ path, segments });
      else this.#byLast.set(last, [{ path, segments }]);
    }
    this.#all = all;
  }

  /** The candidate the user most likely meant, or undefined when none is plausible. */
  suggest(wanted: string): string | undefined {
    if (this.#memo.has(wanted)) return this.#memo.get(wanted);
    const found = this.#byLastElement(wanted) ?? this.#typo(wanted);
    this.#memo.set(wanted, found);
    return found;
  }

  #byLastElement(wanted: string): string | undefined {
    const segments = segmentsOf(wanted);
    const last = segments[segments.length - 1] ?? '';
    const limit = lastLimit(last);
    let best: { candidate: Candidate; fit: Fit; distance?: number } | undefined;
    for (const [name, group] of this.#byLast) {
      if (Math.abs(name.length - last.length) > limit) continue;
      const lastDistance = name === last ? 0 : boundedDistance(name, last, limit);
      if (lastDistance > limit) continue;
      for (const candidate of group) {
        if (candidate.path === wanted) continue;
        const fit = fitOf(candidate.segments, segments, lastDistance);
        if (!best) {
          best = { candidate, fit };
          continue;
        }
        let order = compareFit(fit, best.fit);
        if (order === 0) {
          // Only ties on the cheap measures pay for an edit distance of the whole paths.
          best.distance ??= distance(best.candidate.path, wanted);
          const d = distance(candidate.path, wanted);
          order = best.distance - d || (candidate.path < best.candidate.path ? 1 : -1);
          if (order > 0) best = { candidate, fit, distance: d };
          continue;
        }
        if (order > 0) best = { candidate, fit };
      }
    }
    return best?.candidate.path;
  }

  /** A plausible typo of the whole path: config's didYouMean, over the candidates lower-cased once. */
  #typo(wanted: string): string | undefined {
    this.#lower ??= this.#all.map((c) => c.toLowerCase());
    return didYouMean(wanted, this.#all, this.#lower);
  }
}

/** The edit distance of two paths (most of which they share, so cut off first). */
function distance(a: string, b: string): number {
  return boundedDistance(a, b, a.length + b.length);
}

function fitOf(candidate: readonly string[], wanted: readonly string[], lastDistance: number): Fit {
  // The last elements are compared by lastDistance; the tail is what agrees above them.
  let tail = 0;
  while (
    tail + 1 < candidate.length &&
    tail + 1 < wanted.length &&
    candidate[candidate.length - 2 - tail] === wanted[wanted.length - 2 - tail]
  ) {
    tail += 1;
  }
  // Paths have a handful of elements: pairing them off directly beats building a multiset.
  let shared = 0;
  let used = 0;
  for (const s of wanted) {
    for (let i = 0; i < candidate.length && i < 31; i += 1) {
      if ((used & (1 << i)) === 0 && candidate[i] === s) {
        used |= 1 << i;
        shared += 1;
        break;
      }
    }
  }
  return { lastDistance, tail, shared };
}

/** Positive when `a` fits better than `b`, negative when worse, 0 on a tie. */
function compareFit(a: Fit, b: Fit): number {
  return b.lastDistance - a.lastDistance || a.tail - b.tail || a.shared - b.shared;
}

/** One question against a list of candidates (for many questions, build a {@link PathSuggester} once). */
export function closestMatch(wanted: string, candidates: readonly string[]): string | undefined {
  return new PathSuggester(candidates).suggest(wanted);
}

/** `--unit` names no unit of the graph (`ids`): the closest id, and where the ids are listed. */
export function unknownUnitMessage(unit: string, ids: readonly string[]): string {
  const suggestion = closestMatch(unit, ids);
  return `platctl: --unit ${unit}: no such unit${suggestion ? `; did you mean ${suggestion}?` : ''} (platctl graph lists the ids)\n`;
}
