import { describe, expect, it } from 'vitest';
import type { ConfigError } from '../../config/errors.js';
import {
  boundedDistance,
  didYouMean,
  editDistance,
  formatConfigError,
  formatConfigErrors,
  formatKeyPath,
} from '../../config/errors.js';
import { findPlaceholder } from '../../config/placeholders.js';

describe('formatConfigError', () => {
  const error: ConfigError = {
    reason: 'unknown-key',
    message: 'unknown key "unit_timout"',
    keyPath: 'unit_timout',
    location: { file: '/repo/.platctl.yaml', line: 3, column: 1 },
    hint: 'did you mean "unit_timeout"?',
  };

  it('prints file:line:col, the message, the key path and an indented hint', () => {
    expect(formatConfigError(error)).toBe(
      '/repo/.platctl.yaml:3:1: error: unknown key "unit_timout" (at unit_timout)\n  hint: did you mean "unit_timeout"?',
    );
  });

  it('shows the file relative to the working directory when it is below it', () => {
    expect(formatConfigError(error, '/repo')).toMatch(/^\.platctl\.yaml:3:1: error: /);
    expect(formatConfigError(error, '/elsewhere')).toMatch(/^\/repo\/\.platctl\.yaml:3:1: error: /);
  });

  it('leaves out what an error does not have', () => {
    const notFound: ConfigError = { reason: 'not-found', message: 'no .platctl.yaml in /x', keyPath: '' };
    expect(formatConfigError(notFound)).toBe('error: no .platctl.yaml in /x');
    expect(formatConfigErrors([notFound, notFound])).toBe('error: no .platctl.yaml in /x\n'.repeat(2));
  });
});

describe('formatKeyPath', () => {
  it('dots keys, brackets indexes, and quotes keys that would be ambiguous', () => {
    expect(formatKeyPath(['environments', 'platform', 'aws', 'account_id'])).toBe(
      'environments.platform.aws.account_id',
    );
    expect(formatKeyPath(['hooks', 1, 'units', 0])).toBe('hooks[1].units[0]');
    expect(formatKeyPath(['implicit_deps', 'platform/eks'])).toBe('implicit_deps.platform/eks');
    expect(formatKeyPath(['environments', 'prod.eu', 'dir'])).toBe('environments["prod.eu"].dir');
    expect(formatKeyPath([])).toBe('');
  });
});

describe('didYouMean', () => {
  const topLevel = ['version', 'terragrunt', 'unit_timeout', 'environments', 'implicit_deps', 'units', 'lockdown'];

  it('finds typos: a missing letter, a swap, a wrong letter, a different case', () => {
    expect(didYouMean('unit_timout', topLevel)).toBe('unit_timeout');
    expect(didYouMean('evnironments', topLevel)).toBe('environments');
    expect(didYouMean('lockdawn', topLevel)).toBe('lockdown');
    expect(didYouMean('Version', topLevel)).toBe('version');
    expect(didYouMean('implicit_dep', topLevel)).toBe('implicit_deps');
  });

  it('finds abbreviations of long keys', () => {
    expect(didYouMean('min_free', ['type', 'units', 'min_free_ips'])).toBe('min_free_ips');
  });

  it('suggests nothing when nothing is close', () => {
    expect(didYouMean('colour', topLevel)).toBeUndefined();
    expect(didYouMean('ab', ['cd', 'ef'])).toBeUndefined();
  });

  it('counts edits, transpositions included', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('is one edit distance for config and discovery: bounded and full agree with the textbook table', () => {
    // The textbook optimal-string-alignment table, to check the banded, prefix-trimming implementation against.
    const osa = (a: string, b: string): number => {
      const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i + j));
      for (let i = 1; i <= a.length; i += 1) {
        for (let j = 1; j <= b.length; j += 1) {
          const cost = a[i - 1] === b[j - 1] ? 0 : 1;
          d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
          if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
            d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
          }
        }
      }
      return d[a.length]![b.length]!;
    };
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const word = (): string =>
      Array.from({ length: Math.floor(random() * 9) }, () => 'abc/'[Math.floor(random() * 4)]).join('');
    for (let n = 0; n < 2000; n += 1) {
      const [a, b] = [word(), word()];
      const want = osa(a, b);
      expect(editDistance(a, b), `${a} ${b}`).toBe(want);
      for (const max of [0, 1, 2, 3])
        expect(boundedDistance(a, b, max), `${a} ${b} ${max}`).toBe(Math.min(want, max + 1));
    }
  });

  it('takes the candidates lower-cased once from a caller that asks many questions of one list', () => {
    const candidates = ['Live/Dev/VPC', 'live/dev/db'];
    expect(didYouMean('live/dev/vpd', candidates, ['live/dev/vpc', 'live/dev/db'])).toBe('Live/Dev/VPC');
  });
});

describe('findPlaceholder', () => {
  it.each([
    ['REPLACE_ME', 'REPLACE_ME'],
    ['replace-me', 'replace-me'],
    ['CHANGEME', 'CHANGEME'],
    ['change_me-bucket', 'change_me'],
    ['YOUR_ACCOUNT_ID', 'YOUR_ACCOUNT_ID'],
    ['arn:aws:iam::YOUR_ACCOUNT_ID:role/Deployer', 'YOUR_ACCOUNT_ID'],
    ['your-bucket-name', 'your-bucket-name'],
    ['<account-id>', '<account-id>'],
    ['s3://<bucket>/state', '<bucket>'],
    ['TODO', 'TODO'],
    ['FIXME: real profile', 'FIXME'],
    ['XXXXXXXXXXXX', 'XXXXXXXXXXXX'],
    ['arn:aws:iam::xxxxxxxxxxxx:role/x', 'xxxxxxxxxxxx'],
    ['000000000000', '000000000000'],
    ['arn:aws:iam::000000000000:role/x', '000000000000'],
  ])('flags %s', (value, text) => {
    expect(findPlaceholder(value)?.text).toBe(text);
  });

  it.each([
    '123456789012', // AWS documentation's example account and moto's default: tests use it for real
    '111111111111',
    '1000000000000', // thirteen digits: not an all-zero account id
    'todo-api',
    'todo',
    'platform-bastion',
    'arn:aws:iam::111111111111:role/AWSReservedSSO_PlatformAdmin_0123456789abcdef',
    'eu-west-1',
    'https://argocd.platform.example.com',
    '-var=endpoint_public_access=false',
    'test -n "$CLOUDFLARE_API_TOKEN"',
    'layout',
    'foyour_thing',
    'xx',
    'fluxxx',
    'a <= b',
  ])('leaves %s alone', (value) => {
    expect(findPlaceholder(value)).toBeUndefined();
  });

  it('allows angle brackets and "your" in prose, but not the unambiguous markers', () => {
    const sentence = 'Run aws sso login --profile <profile> and store your-token in SSM';
    expect(findPlaceholder(sentence)).toBeDefined();
    expect(findPlaceholder(sentence, { prose: true })).toBeUndefined();
    expect(findPlaceholder('Set REPLACE_ME first', { prose: true })?.text).toBe('REPLACE_ME');
  });
});
