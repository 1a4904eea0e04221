/**
 * yamlencode() byte for byte as Terragrunt v1.1.3 writes it: every expected string below is what `terragrunt render
 * --json` printed for the same expression.
 */
import { describe, expect, it } from 'vitest';
import { run } from './helpers.js';

describe('yamlencode', () => {
  it.each([
    [
      'yamlencode({a = 1, b = [1, "x", true, null], c = 1.5, "d e" = "multi\\nline"})',
      '"a": 1\n"b":\n- 1\n- "x"\n- true\n- null\n"c": 1.5\n"d e": |-\n  multi\n  line\n',
    ],
    [
      'yamlencode([[1, 2], {x = "y", z = [3]}, [], {}, "tab\\there", "😀 smile", "line1\\nline2\\n", "a\\n\\n", " lead\\nx", "sp \\nx", "ΣΑΣ", "q\\"b\\\\s"])',
      '- - 1\n  - 2\n- "x": "y"\n  "z":\n  - 3\n- []\n- {}\n- "tab\\there"\n- "\\U0001F600 smile"\n- |\n  line1\n  line2\n' +
        '- |+\n  a\n\n- |2-\n   lead\n  x\n- "sp \\nx"\n- "ΣΑΣ"\n- "q\\"b\\\\s"\n',
    ],
    ['yamlencode("x")', '"x"\n'],
    ['yamlencode("a\\nb")', '|-\n  a\n  b\n'],
    [
      'yamlencode({ k = { j = [{ m = 1, n = "a\\nb" }] } })',
      '"k":\n  "j":\n  - "m": 1\n    "n": |-\n      a\n      b\n',
    ],
    [
      'yamlencode({ long = "word word word word word word word word word word word word word word word word word word word word" })',
      '"long": "word word word word word word word word word word word word word word word\n  word word word word word"\n',
    ],
    ['yamlencode(null)', 'null\n...\n'],
    ['yamlencode(1)', '1\n...\n'],
    ['yamlencode(true)', 'true\n...\n'],
    ['yamlencode([])', '[]\n'],
    ['yamlencode("\\n")', '|2+\n\n'],
    ['yamlencode("a\\n\\n")', '|+\n  a\n\n'],
    ['yamlencode({a = null})', '"a": null\n'],
    [
      'yamlencode(["a  b  c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n o p q r s t u v w x y z"])',
      '- "a  b  c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m\n  n o p q r s t u v w x y z"\n',
    ],
  ])('%s', (source, expected) => {
    expect(run(source)).toBe(expected);
  });
});
