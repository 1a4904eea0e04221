/**
 * Did-you-mean for unit paths and ids. A dangling dependency path is most often one `../` too many or too few, so a
 * unit with the same last path element wins even when the whole paths differ a lot; otherwise a plausible typo of
 * the whole path.
 */
import { didYouMean, editDistance } from '../config/errors.js';

export function closestMatch(wanted: string, candidates: readonly string[]): string | undefined {
  const last = (p: string): string => p.slice(p.lastIndexOf('/') + 1);
  const wantedLast = last(wanted);
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of candidates) {
    if (candidate === wanted) continue;
    const lastDistance = editDistance(last(candidate), wantedLast);
    if (lastDistance > Math.min(2, Math.floor(wantedLast.length / 3))) continue;
    const score = lastDistance * 1000 + editDistance(candidate, wanted);
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best ?? didYouMean(wanted, candidates);
}
