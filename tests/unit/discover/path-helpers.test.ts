import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveFrom } from '../../../discover/functions.js';
import { relativePosix } from '../../../discover/scan.js';

const bases = [
  '/',
  '/repo',
  '/repo/live/dev/app',
  '/repo/.terragrunt-stack/x',
  '/repo/a/',
  '/repo//b',
  '/repo/./c',
  '/r/../d',
];
const paths = [
  '../db',
  '../../_envcommon/app.hcl',
  './x',
  'x/',
  'a//b/../c',
  '..',
  '../../../../../../..',
  '/abs/../elsewhere/./x',
  '/',
  '',
  '.',
  '...',
  '.hidden',
  'a/..b/c',
];

describe('resolveFrom', () => {
  it('agrees with path.resolve for every base and path', () => {
    for (const base of bases) {
      for (const path of paths) expect(resolveFrom(base, path), `${base} + ${path}`).toBe(resolve(base, path));
    }
  });
});

describe('relativePosix', () => {
  it('agrees with path.relative, below the base and elsewhere', () => {
    const pairs: [string, string][] = [
      ['/repo', '/repo'],
      ['/repo', '/repo/live/dev'],
      ['/repo/', '/repo/live'],
      ['/repo', '/repository/x'],
      ['/repo/live', '/repo'],
      ['/repo/live', '/other/x'],
      ['/', '/repo/x'],
    ];
    for (const [base, path] of pairs)
      expect(relativePosix(base, path), `${base} -> ${path}`).toBe(relative(base, path));
  });
});
