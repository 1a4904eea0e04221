/**
 * The discovery fixture repositories (tests/fixtures/discover/<name>/) and what each expects: the unit tests check
 * platctl against expected.json, the e2e suite checks real Terragrunt against the same files.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DISCOVER_FIXTURES = fileURLToPath(new URL('../fixtures/discover/', import.meta.url));

export interface ExpectedProblem {
  kind: string;
  severity: 'error' | 'warning';
  /** Relative to the fixture root. */
  file?: string;
  line?: number;
  unit?: string;
  /** A substring of the hint. */
  hint?: string;
  /** A substring of the message. */
  message?: string;
}

export interface FixtureExpectation {
  /** Every unit id with its dependencies, sorted. */
  edges: Record<string, string[]>;
  externals?: Record<string, string[]>;
  problems: ExpectedProblem[];
  /** `rejects`: Terragrunt refuses the repository too; `skip`: not comparable (platctl-only config). */
  terragrunt?: 'rejects' | 'skip';
  /**
   * For `rejects`: the e2e suite runs `terragrunt render --json` in this unit (relative to the fixture root) and
   * expects it to fail with this text in its output.
   */
  rejected?: { unit: string; message: string };
  /**
   * Units Terragrunt `exclude` blocks leave out of `run --all apply` / `destroy`, each with the unit whose block does
   * it; the e2e suite runs real terragrunt on the fixture and compares what ran.
   */
  excluded?: { apply: Record<string, string>; destroy: Record<string, string> };
  /**
   * Units whose dependencies `terragrunt find` leaves out although platctl draws them (and warns,
   * `terragrunt-drops-dependencies`): the e2e suite checks that Terragrunt shows each without dependencies and that
   * `terragrunt run --all` stops.
   */
  terragruntDrops?: string[];
  note?: string;
}

export function discoverFixtures(): { name: string; dir: string; expected: FixtureExpectation }[] {
  return readdirSync(DISCOVER_FIXTURES, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const dir = join(DISCOVER_FIXTURES, name);
      const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as FixtureExpectation;
      return { name, dir, expected };
    });
}
