/**
 * However broken a repository is, what platctl prints stays readable: a cap per kind of problem, a cap on detail
 * lines and line length, a count of the rest (issue 9). `--verbose` and `--json` keep everything.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function repo(files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(join(tmpdir(), 'platctl-output-'));
  temps.push(root);
  const all = { '.platctl.yaml': 'version: 1\nenvironments:\n  dev:\n    dir: live/dev\n', ...files };
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

function longestLine(text: string): number {
  return Math.max(...text.split('\n').map((l) => l.length));
}

describe('bounded problem output', () => {
  it('prints one giant cycle in a few lines, and all of it with --verbose', async () => {
    const size = 600;
    const files: Record<string, string> = {};
    for (let i = 0; i < size; i += 1) {
      const next = `unit-${String((i + 1) % size).padStart(4, '0')}`;
      files[`live/dev/unit-${String(i).padStart(4, '0')}/terragrunt.hcl`] =
        `dependency "next" {\n  config_path = "../${next}"\n}\n`;
    }
    const root = repo(files);
    const run = await runCli(['graph', '--config', join(root, '.platctl.yaml')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'error: dependency cycle through 600 units: dev/unit-0000 -> dev/unit-0001 -> dev/unit-0002 -> dev/unit-0003 -> dev/unit-0004 -> ... (591 more) ->',
    );
    expect(run.stderr).toContain('  ... and 590 more lines (--verbose shows them)');
    expect(run.stderr.length).toBeLessThan(5_000);
    expect(longestLine(run.stderr)).toBeLessThan(400);
    const verbose = await runCli(['graph', '--verbose', '--config', join(root, '.platctl.yaml')]);
    expect(verbose.stderr.match(/ -> dev\/unit-\d{4} {2}\(live\/dev\//g)).toHaveLength(size);
  }, 120_000);

  it('prints a file of thousands of parser errors as one parse error with a few of its messages', async () => {
    // Characters HCL does not use, each one a diagnostic of its own (3,000 of them in one message of the parser's).
    // Valid UTF-8, so the file reaches the parser (other bytes are refused before parsing).
    const noise = Array.from(randomBytes(3_000), (b) => '§@`'[b % 3]).join('');
    const root = repo({ 'live/dev/noise/terragrunt.hcl': noise });
    const run = await runCli(['graph', '--config', join(root, '.platctl.yaml')]);
    expect(run.code).toBe(2);
    expect(run.stderr.match(/\[parse-error\]/g)).toHaveLength(1);
    expect(run.stderr).toMatch(/live\/dev\/noise\/terragrunt\.hcl:\d+:\d+: error: .+ \[parse-error\]/);
    expect(run.stderr).toMatch(/ {2}line \d+, column \d+: /);
    expect(run.stderr).toMatch(/ {2}\.\.\. and \d+ more lines \(--verbose shows them\)/);
    expect(longestLine(run.stderr)).toBeLessThan(400);
    expect(run.stderr.length).toBeLessThan(5_000);
  }, 60_000);

  it('prints 3,000 unknown configuration keys as 20 and a count', async () => {
    // (30,000 print the same, but loading them takes minutes: the YAML checks for duplicate keys pair by pair.)
    const keys = Array.from({ length: 3_000 }, (_, i) => `unknown_${i}: 1\n`).join('');
    const root = repo({
      '.platctl.yaml': `version: 1\n${keys}environments:\n  dev:\n    dir: live/dev\n`,
      'live/dev/vpc/terragrunt.hcl': '',
    });
    const run = await runCli(['graph', '--config', join(root, '.platctl.yaml')]);
    expect(run.code).toBe(2);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines.length).toBeLessThan(60);
    expect(lines.at(-1)).toBe(
      '... and 2,980 more unknown-key errors (3,000 in all; --verbose or platctl config check --json lists every one)',
    );
    const check = await runCli(['config', 'check', '--json', '--config', join(root, '.platctl.yaml')]);
    expect((JSON.parse(check.stdout) as { errors: unknown[] }).errors).toHaveLength(3_000);
  }, 120_000);
});
