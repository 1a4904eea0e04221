import { describe, expect, it } from 'vitest';
import { didYouMean } from '../../../config/errors.js';
import { PathSuggester, closestMatch } from '../../../discover/suggest.js';

/** live/prod/region_<r>/env_<e>/<kind>: many units share a last element, as in a real monorepo. */
function monorepo(regions = 4, envs = 5, kinds = ['web', 'db', 'vpc']): string[] {
  const out: string[] = [];
  for (let r = 0; r < regions; r += 1) {
    for (let e = 0; e < envs; e += 1) for (const k of kinds) out.push(`live/prod/region_${r}/env_${e}/${k}`);
  }
  return out;
}

describe('closestMatch for dangling paths', () => {
  const units = monorepo();

  it('keeps the tail of a path written relative to the wrong directory, not the unit that wrote it', () => {
    // live/prod/region_0/env_0/app wrote "../region_2/env_3/web" meaning three levels up.
    expect(closestMatch('live/prod/region_0/env_0/region_2/env_3/web', units)).toBe('live/prod/region_2/env_3/web');
    expect(closestMatch('live/prod/region_1/env_4/region_2/env_3/web', units)).toBe('live/prod/region_2/env_3/web');
    expect(closestMatch('live/prod/region_2/env_3/region_2/env_3/web', units)).toBe('live/prod/region_2/env_3/web');
  });

  it('prefers the candidate that keeps most of the path elements', () => {
    // One level missing: region_2 is kept, whichever env is offered.
    expect(closestMatch('live/prod/region_2/web', units)).toMatch(/^live\/prod\/region_2\/env_\d\/web$/);
    // One `../` too many.
    expect(closestMatch('live/region_2/env_3/web', units)).toBe('live/prod/region_2/env_3/web');
  });

  it('still finds a misspelt last element, and a typo elsewhere in the path', () => {
    expect(closestMatch('live/prod/region_2/env_3/webb', units)).toBe('live/prod/region_2/env_3/web');
    expect(closestMatch('live/prod/regoin_2/env_3/web', units)).toBe('live/prod/region_2/env_3/web');
    expect(closestMatch('dev/netwrk', ['dev/network', 'dev/vpc'])).toBe('dev/network');
  });

  it('falls back to a typo of the whole path, or a path it abbreviates', () => {
    // Three edits ("/db") beat the longer names it abbreviates.
    expect(closestMatch('live/prod/region_2/env_3', units)).toBe('live/prod/region_2/env_3/db');
    expect(closestMatch('dev/db', ['dev/dc', 'dev/vpc'])).toBe('dev/dc');
  });

  it("falls back to exactly config's didYouMean for whole-path typos (one candidate loop)", () => {
    const paths = ['live/dev/vpc', 'live/dev/vpc-endpoints', 'live/Prod/db', 'live/prod/dbx/x'];
    for (const wanted of [
      'live/dev/vpcx/q',
      'live/prod/db/x',
      'live/dev/vpc-endp',
      'LIVE/DEV/VPC/y',
      'nothing/alike',
    ]) {
      expect(closestMatch(wanted, paths), wanted).toBe(didYouMean(wanted, paths));
    }
  });

  it('suggests nothing when nothing is close, and never the path itself', () => {
    expect(closestMatch('live/prod/region_2/env_3/kafka', units)).toBeUndefined();
    expect(closestMatch('dev/vpc', ['dev/vpc'])).toBeUndefined();
  });

  it('is deterministic on a full tie: the first in sort order', () => {
    expect(closestMatch('x/web', ['b/web', 'a/web', 'c/web'])).toBe('a/web');
  });
});

describe('PathSuggester at scale', () => {
  it('answers 6,000 questions over 2,000 units in about a second of CPU', () => {
    const units = monorepo(10, 25, ['net', 'vpc', 'db', 'cache', 'queue', 'api', 'worker', 'web']);
    expect(units).toHaveLength(2000);
    const suggester = new PathSuggester(units);
    const start = process.cpuUsage();
    let found = 0;
    for (let i = 0; i < 6000; i += 1) {
      const unit = units[(i * 7) % units.length] ?? '';
      // One `../` too many, a misspelt name, and a directory that holds no unit (as bench/dangling generates).
      const wanted =
        i % 3 === 0
          ? unit.replace('live/prod/', 'live/')
          : i % 3 === 1
            ? `${unit}x`
            : unit.slice(0, unit.lastIndexOf('/'));
      if (suggester.suggest(wanted) !== undefined) found += 1;
    }
    const cpu = process.cpuUsage(start);
    expect(found).toBe(6000);
    // CPU time, not wall time, so a loaded machine does not fail it: an edit distance per unit and question took
    // about a minute here; the index takes about a second.
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(8000);
  });
});
