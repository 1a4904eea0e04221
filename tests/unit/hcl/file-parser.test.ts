/**
 * The strict file parser against the real hcl2json: where it answers, its JSON is hcl2json's (keys in the same
 * order); it never answers for a file hcl2json rejects; and it declines few real files.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../../bench/discovery.js';
import { generateRepository } from '../../../bench/expr-fuzz/generate.js';
import { blockPositions, parseHclFile } from '../../../discover/hcl/file-parser.js';
import { restoreNumberLiterals } from '../../../discover/hcl/number-literals.js';
import { outline } from '../../../discover/hcl/outline.js';
import { mutate, seeded } from '../../helpers/hcl-mutants.js';

// Loaded through require with a local type: the package's declarations pull in the DOM library.
const { parse } = createRequire(import.meta.url)('@cdktf/hcl2json') as {
  parse: (file: string, content: string) => Promise<Record<string, unknown>>;
};

const REPO = new URL('../../../', import.meta.url).pathname;
const generated = mkdtempSync(join(tmpdir(), 'platctl-file-parser-'));
afterAll(() => rmSync(generated, { recursive: true, force: true }));

function hclFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.hcl'))
    .map((e) => join(e.parentPath, e.name));
}

/** hcl2json's verdict on a file: its JSON, or undefined when it rejects the file. */
async function hcl2json(content: string): Promise<Record<string, unknown> | undefined> {
  try {
    return await parse('file.hcl', content);
  } catch {
    return undefined;
  }
}

/** Distinct contents of every .hcl file in the repository's fixtures and examples, and of a generated repository. */
let corpus: string[] = [];
/** The expression fuzzer's units (bench/expr-fuzz): unusual expressions of every kind. */
let fuzzed: string[] = [];
beforeAll(() => {
  const fuzz = join(generated, 'fuzz');
  generateRepository(fuzz, 1000, 300);
  fuzzed = hclFiles(fuzz).map((f) => readFileSync(f, 'utf8'));
  rmSync(fuzz, { recursive: true });
  generate(generated, 400);
  const files = [
    ...hclFiles(join(REPO, 'tests', 'fixtures')),
    ...hclFiles(join(REPO, 'examples')),
    ...hclFiles(generated),
  ];
  corpus = [...new Set(files.map((f) => readFileSync(f, 'utf8')))];
});

describe('parseHclFile agrees with hcl2json', () => {
  it('on edge cases of the syntax and of hcl2json’s conversion (fixtures/file-parser-cases.json)', async () => {
    const cases = JSON.parse(
      readFileSync(new URL('./fixtures/file-parser-cases.json', import.meta.url), 'utf8'),
    ) as string[];
    let answered = 0;
    for (const content of cases) {
      const expected = await hcl2json(content);
      const mine = parseHclFile(content);
      if (!mine.ok) continue;
      answered += 1;
      expect(expected, `accepted a file hcl2json rejects:\n${content}`).toBeDefined();
      expect(JSON.stringify(mine.json), content).toBe(JSON.stringify(expected));
    }
    expect(answered).toBeGreaterThan(cases.length / 2);
  });

  it('gives hcl2json’s JSON for the expression fuzzer’s generated units', async () => {
    const reasons = new Map<string, number>();
    for (const content of fuzzed) {
      const expected = await hcl2json(content);
      const mine = parseHclFile(content);
      if (!mine.ok) {
        reasons.set(mine.reason, (reasons.get(mine.reason) ?? 0) + 1);
        continue;
      }
      expect(expected, content).toBeDefined();
      expect(JSON.stringify(mine.json), content).toBe(JSON.stringify(expected));
    }
    // The fuzzer writes unusual text on purpose: most of its units are answered, the rest declined for the reasons
    // docs/discovery.md lists (not-NFC text, `<<-` heredocs, template directives, `$${` escapes).
    const declined = [...reasons.values()].reduce((a, b) => a + b, 0);
    expect(declined, JSON.stringify([...reasons])).toBeLessThan(fuzzed.length * 0.15);
  });

  it('gives hcl2json’s JSON for every file of the fixtures, the examples and a generated repository', async () => {
    const declined: string[] = [];
    for (const content of corpus) {
      const expected = await hcl2json(content);
      const mine = parseHclFile(content);
      if (!mine.ok) {
        declined.push(mine.reason);
        continue;
      }
      expect(expected, content).toBeDefined();
      // Same keys in the same order: what JSON.parse of hcl2json's output gives.
      expect(JSON.stringify(mine.json), content).toBe(JSON.stringify(expected));
    }
    expect(corpus.length).toBeGreaterThan(150);
    // The declined files and why (see docs/discovery.md): CRLF fixtures, template directives, `<<-` heredocs, ...
    expect(declined.length, declined.join('\n')).toBeLessThanOrEqual(Math.ceil(corpus.length * 0.05));
  });

  it('answers every file of examples/platform and of the generated repository', () => {
    const files = [...hclFiles(join(REPO, 'examples', 'platform')), ...hclFiles(generated)];
    const declined = files.filter((f) => !parseHclFile(readFileSync(f, 'utf8')).ok);
    expect(declined).toEqual([]);
  });

  it('gives the block positions outline() finds', () => {
    // A source of 64 K characters or more packs its offsets in two code units each.
    const long = `${'# padding\n'.repeat(7000)}locals {\n  a = 1\n}\n\ninclude "x" {\n  path = "y"\n  b    = 2\n}\n`;
    expect(long.length).toBeGreaterThan(0x10000);
    expect(parseHclFile(long).ok).toBe(true);
    // More numbers than are packed in one step.
    const many = `locals {\n${Array.from({ length: 3000 }, (_, i) => `  a${i} = ${i}\n`).join('')}}\n`;
    for (const content of [...corpus, long, many]) {
      const mine = parseHclFile(content);
      if (!mine.ok) continue;
      const expected = outline(content).map((b) => {
        const attributes: Record<string, [number, number]> = {};
        for (const a of b.attributes) attributes[a.name] ??= [a.line, a.column];
        return { type: b.type, labels: [...b.labels], line: b.line, column: b.column, attributes };
      });
      expect(blockPositions(content, mine.positions), content).toEqual(expected);
    }
  });
});

/** Mutants per run: a few thousand keep this test fast; PLATCTL_MUTANTS asks for more. */
const MUTANTS = Number(process.env.PLATCTL_MUTANTS ?? 3000);

describe('parseHclFile never accepts what hcl2json rejects', () => {
  it(`declines every mutant hcl2json rejects, and agrees on the others (${MUTANTS} seeded mutants)`, async () => {
    const random = seeded(Number(process.env.PLATCTL_MUTANT_SEED ?? 9));
    let rejected = 0;
    for (let i = 0; i < MUTANTS; i += 1) {
      const bases = random() < 0.5 ? corpus : fuzzed;
      let content = bases[Math.floor(random() * bases.length)] ?? '';
      const edits = 1 + Math.floor(random() * 3);
      for (let e = 0; e < edits; e += 1) content = mutate(content, random);
      const mine = parseHclFile(content);
      const expected = await hcl2json(content);
      if (expected === undefined) rejected += 1;
      if (!mine.ok) continue;
      expect(expected, `accepted a file hcl2json rejects (mutant ${i}):\n${content}`).toBeDefined();
      expect(JSON.stringify(mine.json), `mutant ${i}:\n${content}`).toBe(JSON.stringify(expected));
    }
    // The mutants do reach hcl2json's errors (a test that never sees a rejection proves nothing).
    expect(rejected).toBeGreaterThan(MUTANTS / 4);
  }, 120_000);
});

describe('number literals in the fast parser’s JSON', () => {
  it('restores every literal that may have lost digits, and returns other files’ JSON as it is', () => {
    const content = [
      'a = -12345678901234567890',
      'b = { x = [1, 9007199254740993] }',
      'c = 0.1',
      'block "l" {',
      '  d = "${100000000000000000000000}"',
      '}',
      '',
    ].join('\n');
    const parsed = parseHclFile(content);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(restoreNumberLiterals(parsed.json, content)).toEqual({
      a: '${-12345678901234567890}',
      b: '${{ x = [1, 9007199254740993] }}',
      c: 0.1,
      block: { l: [{ d: '${"${100000000000000000000000}"}' }] },
    });
    const plain = parseHclFile('a = [1, 2.5, -3]\nb = "x"\n');
    if (!plain.ok) throw new Error(plain.reason);
    expect(restoreNumberLiterals(plain.json, '')).toBe(plain.json);
  });
});
