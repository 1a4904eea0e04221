/**
 * Mutants of HCL files for the strict file parser's "never accept what hcl2json rejects" tests: small random edits
 * (a character dropped, doubled or inserted, a token of HCL syntax inserted, a line dropped, doubled or joined to the
 * next, braces unbalanced), from a seeded generator so a failure can be replayed.
 */

/** A small seeded generator (mulberry32). */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SNIPPETS = [
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '"',
  '=',
  ',',
  '\n',
  ' ',
  '#',
  '//',
  '/*',
  '*/',
  '.',
  '$',
  '${',
  '%{',
  '}',
  '~',
  '*',
  '<<EOT\n',
  '\nEOT\n',
  '<<-EOT\n',
  ':',
  '?',
  '=>',
  '...',
  '-',
  '!',
  '\\',
  '\\n',
  '\\u00e9',
  '$${',
  '%%{',
  'for ',
  ' in ',
  ' if ',
  'null',
  'true',
  '0',
  '1.5',
  '1e3',
  'x',
  'a.b',
  '[*]',
  '.*',
  '\t',
  '\r\n',
  'é',
  '\u00a0',
  "'",
  ';',
  'e',
  '.5',
  'EOT ',
  '\nEOT\t\n',
  '_',
  '-1',
  '$',
  '%',
  '{ a = 1 }',
  'b {}',
  '"l"',
  'c = 2\n',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** One random edit of `source`. */
export function mutate(source: string, random: () => number): string {
  const at = Math.floor(random() * (source.length + 1));
  const lines = source.split('\n');
  const line = Math.floor(random() * lines.length);
  switch (Math.floor(random() * 8)) {
    case 0:
      return source.slice(0, at) + source.slice(at + 1);
    case 1:
      return source.slice(0, at) + source.charAt(at) + source.slice(at);
    case 2:
    case 3:
      return source.slice(0, at) + pick(random, SNIPPETS) + source.slice(at);
    case 4:
      return [...lines.slice(0, line), ...lines.slice(line + 1)].join('\n');
    case 5:
      // A line twice: an attribute set twice, a block repeated.
      return [...lines.slice(0, line + 1), ...lines.slice(line)].join('\n');
    case 6:
      // A line joined to the next: an attribute after a block on one line, two attributes on one line.
      return [...lines.slice(0, line), `${lines[line] ?? ''} ${lines[line + 1] ?? ''}`, ...lines.slice(line + 2)].join(
        '\n',
      );
    default: {
      // The same character elsewhere: unbalances brackets and quotes.
      const c = pick(random, ['{', '}', '"', '[', ']', '(', ')']);
      return source.slice(0, at) + c + source.slice(at);
    }
  }
}
