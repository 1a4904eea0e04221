import { describe, expect, it } from 'vitest';
import type { ConfigError } from '../../config/errors.js';
import {
  MAX_DETAILS,
  MAX_LINE,
  MAX_PER_KIND,
  formatConfigErrorList,
  formatProblem,
  formatProblems,
} from '../../discover/problem-text.js';
import { chainText, problem, withLazyHint } from '../../discover/types.js';
import type { Problem } from '../../discover/types.js';

const at = (line: number): { file: string; line: number; column: number } => ({ file: '/r/a.hcl', line, column: 3 });

describe('formatProblems keeps output bounded', () => {
  it('prints at most MAX_PER_KIND of a kind, then how many more and where the rest are', () => {
    const problems = Array.from({ length: 30_000 }, (_, i) =>
      problem({ severity: 'error', kind: 'dangling-path', message: `path ${i}`, location: at(i + 1) }),
    );
    const text = formatProblems(problems, '/r');
    expect(text.split('\n').filter((l) => l.includes('[dangling-path]'))).toHaveLength(MAX_PER_KIND);
    expect(text).toContain(
      '... and 29,980 more dangling-path errors (30,000 in all; --verbose or --json lists every one)',
    );
    expect(text.length).toBeLessThan(5_000);
    expect(formatProblems(problems, '/r', { verbose: true }).split('\n').length).toBeGreaterThan(30_000);
  });

  it('prints at most MAX_DETAILS detail lines and cuts long lines, unless verbose', () => {
    const cycle = problem({
      severity: 'error',
      kind: 'cycle',
      message: `dependency cycle: ${'x/'.repeat(100_000)}`,
      details: Array.from({ length: 5_000 }, (_, i) => `u${i} -> u${i + 1}  (live/u${i}/terragrunt.hcl:2)`),
      location: at(2),
    });
    const text = formatProblem(cycle, '/r');
    const lines = text.split('\n');
    expect(lines).toHaveLength(1 + MAX_DETAILS + 1);
    expect(lines[MAX_DETAILS + 1]).toBe('  ... and 4,990 more lines (--verbose shows them)');
    expect(lines[0]?.length).toBeLessThan(MAX_LINE + 80);
    expect(lines[0]).toMatch(/\.\.\. \(199,\d{3} more characters; --verbose shows them\)$/);
    const full = formatProblem(cycle, '/r', { verbose: true }).split('\n');
    expect(full).toHaveLength(1 + 5_000);
    expect(full[0]?.length).toBeGreaterThan(200_000);
  });

  it('works out a lazy hint only for the problems it prints', () => {
    let computed = 0;
    const problems: Problem[] = Array.from({ length: 1_000 }, (_, i) =>
      withLazyHint(problem({ severity: 'error', kind: 'unknown-id', message: `id ${i}` }), () => {
        computed += 1;
        return `did you mean ${i}?`;
      }),
    );
    const text = formatProblems(problems, '/r');
    expect(computed).toBe(MAX_PER_KIND);
    expect(text).toContain('  hint: did you mean 0?');
    // Read twice, worked out once; serialised like any other field.
    expect(problems[0]?.hint).toBe('did you mean 0?');
    expect(computed).toBe(MAX_PER_KIND);
    expect(JSON.parse(JSON.stringify(problems[999]))).toEqual({
      severity: 'error',
      kind: 'unknown-id',
      message: 'id 999',
      hint: 'did you mean 999?',
    });
  });
});

describe('formatConfigErrorList', () => {
  it('prints at most MAX_PER_KIND errors of a reason, in file order, then counts the rest per reason', () => {
    const errors: ConfigError[] = Array.from({ length: 30_000 }, (_, i) => ({
      reason: 'unknown-key',
      message: `unknown key "k${i}"`,
      keyPath: `k${i}`,
      location: { file: '/r/.platctl.yaml', line: i + 1, column: 1 },
      hint: 'did you mean "version"?',
    }));
    errors.splice(25, 0, { reason: 'invalid-type', message: 'not a string', keyPath: 'x' });
    const text = formatConfigErrorList(errors, '/r');
    const lines = text.trimEnd().split('\n');
    expect(lines.filter((l) => l.includes('unknown key'))).toHaveLength(MAX_PER_KIND);
    expect(text).toContain('error: not a string (at x)');
    expect(lines.at(-1)).toBe(
      '... and 29,980 more unknown-key errors (30,000 in all; --verbose or platctl config check --json lists every one)',
    );
    expect(lines.length).toBeLessThan(50);
    expect(formatConfigErrorList(errors, '/r', { verbose: true }).split('\n').length).toBeGreaterThan(60_000);
  });
});

describe('chainText', () => {
  it('keeps a short chain whole and elides the middle of a long one', () => {
    expect(chainText(['a', 'b', 'a'])).toBe('a -> b -> a');
    const ids = Array.from({ length: 10_000 }, (_, i) => `u${i}`);
    expect(chainText(ids)).toBe(
      'u0 -> u1 -> u2 -> u3 -> u4 -> ... (9,990 more) -> u9995 -> u9996 -> u9997 -> u9998 -> u9999',
    );
  });
});
