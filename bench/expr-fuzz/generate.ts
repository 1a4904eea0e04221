/**
 * The generator of the differential expression fuzzer: from a seed, a small Terragrunt repository whose probe units
 * reach target units through randomly built HCL expressions.
 *
 * Every probe computes a value of some HCL type from literals, operators, conditionals, `for` expressions, splats,
 * templates, heredocs, locals, an include with `expose`, `read_terragrunt_config` and the built-in and Terragrunt
 * functions, turns it into a string, and picks a target by the first hex digit of the string's md5: targets are
 * the sixteen units `targets/0` .. `targets/f`. Any difference in the computed value (a type kept or lost, a
 * character cased differently, a digit of precision) therefore moves the edge to another target with probability
 * 15/16, and an evaluation error on one side only is a refusal. Nothing here knows the right answer: the fuzzer
 * compares platctl with Terragrunt, and the manifest records, per probe, the expression it means to reach a target
 * with.
 *
 * The generator is deterministic for a seed (its own PRNG, no Math.random, no clock).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** One probe unit: its id (relative to the environment directory) and the expression that picks its target. */
export interface ProbeRecord {
  /** e.g. `probes/p007` */
  readonly unit: string;
  /** How the target is referenced: a `dependency` block's config_path, or a `dependencies` block's paths. */
  readonly block: 'dependency' | 'dependencies';
  /** The unit's locals, as written (name = expression). */
  readonly locals: readonly string[];
  /** The expression written into config_path (or paths). */
  readonly expression: string;
  /** True when the expression calls run_cmd (refused offline by platctl by design, counted apart). */
  readonly runCmd: boolean;
  /**
   * Constructs in the expression that belong to a documented difference (see known.ts), e.g. `float-precision`
   * for a fraction float64 cannot hold exactly.
   */
  readonly features: readonly string[];
}

export interface Manifest {
  readonly seed: number;
  readonly probes: readonly ProbeRecord[];
}

/** The environment name and directory the generated repository configures. */
export const FUZZ_ENV = 'live';
export const TARGETS = '0123456789abcdef'.split('');

/** mulberry32: small, fast and good enough to spread choices; the same seed gives the same repository. */
export class Random {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** The generator's notion of an expression's type; HCL may convert, which is what the fuzzer is about. */
type Kind = 'str' | 'num' | 'bool' | 'strs' | 'nums' | 'obj' | 'any';

/** Named values the expression may refer to, with the kind they were generated as. */
interface Binding {
  readonly ref: string;
  readonly kind: Kind;
}

/** Strings chosen to exercise case mapping, combining marks, astral characters, numbers-as-text and escapes. */
const STRINGS = [
  'a',
  'abc',
  'Hello World',
  'hello-world_42',
  '  padded  ',
  '',
  'Ünïcödé',
  'straße',
  'ǅemal',
  'İstanbul',
  'ﬁne',
  'e\u0301te',
  '😀 smile',
  '日本語テキスト',
  'ΣΑΣ σας',
  'ǰ',
  'ⅷ roman',
  'a,b,c',
  'x=1;y=2',
  '1.50',
  '0x1F',
  '007',
  '-12',
  '1e3',
  'true',
  'null',
  'line1\nline2\n',
  'tab\there',
  'mixed CASE words',
  'a.b.c',
  'path/to/thing',
  'dollar $ and % percent',
];

const NUMBERS = [
  '0',
  '1',
  '2',
  '3',
  '7',
  '10',
  '-4',
  '2.5',
  '0.1',
  '0.2',
  '1e3',
  '1.5e-7',
  '3.14159',
  '12345678901234567890',
  '9007199254740993',
  '1e21',
  '100000000000000000000000',
  '0.30000000000000004',
];

/** YAML documents whose decoding differs between YAML versions and libraries (octal, booleans, tags, floats). */
/** Number literals float64 cannot hold exactly (OpenTofu keeps 512 bits; see known.ts). */
const INEXACT = new Set([
  // Exact itself, but a sum with a fraction (1e21 + 3.14159) needs more than float64's 53 bits.
  '1e21',
  '12345678901234567890',
  '9007199254740993',
  '100000000000000000000000',
  '0.30000000000000004',
]);

const YAML_DOCS = [
  'a: 1\nb: two\n',
  'on: yes\noff: no\n',
  'x: 0o17\ny: 017\nz: 0x1F\n',
  'n: 1_000\nf: 1e3\ng: .5\n',
  'v: ~\nw: null\n',
  '- 1\n- "2"\n- three\n- 4.0\n',
  'd: 2001-12-14\nt: 12:30:45\n',
  's: \'01\'\nq: "true"\nr: True\n',
  'inf: .inf\nnan: .NaN\n',
  'k: !!str 123\nm: !!int "42"\n',
  'big: 12345678901234567890\n',
  'list: [a, b, c]\nmap: {x: 1, y: 2}\n',
  'anchors:\n  base: &b {k: v}\n  copy: *b\n',
  'multi: |\n  line one\n  line two\n',
  'folded: >\n  some folded\n  text\n',
  'empty:\n',
  '"quoted key": 1\n? complex\n: 2\n',
  'bool_words: [y, n, Yes, OFF]\n',
];

const JSON_DOCS = [
  '{"a":1,"b":[true,null,"x"]}',
  '[1,2.50,"3"]',
  '{"z":1,"a":{"m":2}}',
  '{"n":12345678901234567890}',
  '"just a string"',
  '{"u":"\\u00e9\\ud83d\\ude00"}',
  '[]',
  '{"f":1e2,"g":-0.0}',
];

const CSV_DOCS = ['a,b\n1,2\n3,4\n', 'name,"quoted, value"\nx,"y ""z"""\n', 'h\n'];

/** An HCL quoted-string literal for arbitrary text. */
export function hclString(text: string): string {
  let out = '"';
  for (const char of text) {
    if (char === '"') out += '\\"';
    else if (char === '\\') out += '\\\\';
    else if (char === '\n') out += '\\n';
    else if (char === '\t') out += '\\t';
    else if (char === '\r') out += '\\r';
    else out += char;
  }
  return out.replace(/\$\{/g, '$${').replace(/%\{/g, '%%{') + '"';
}

/**
 * Bounds that keep every generated value small (a generated expression once drove `terragrunt render` to 22 GB):
 * the text of one expression, and how often one local may be referenced (a local holding another twice, held
 * twice by the next, doubles at each step).
 */
const MAX_EXPRESSION = 600;
const MAX_USES = 2;

/** Builds expressions of a requested kind within a depth budget. */
class ExpressionBuilder {
  readonly #r: Random;
  readonly #bindings: Binding[];
  /** Locals the expression needs defined (heredocs live in locals: a heredoc cannot sit inside a quoted string). */
  readonly hoisted: string[];
  /** Features of the expression that belong to a documented difference (see ProbeRecord.features). */
  readonly features: Set<string>;
  /** How often each local has been referenced (shared by the builders of one probe). */
  readonly #uses: Map<string, number>;

  constructor(
    random: Random,
    bindings: Binding[],
    hoisted: string[],
    features: Set<string>,
    uses: Map<string, number>,
  ) {
    this.#uses = uses;
    this.#r = random;
    this.#bindings = bindings;
    this.hoisted = hoisted;
    this.features = features;
  }

  /** A number literal; one float64 cannot hold exactly marks the expression. */
  #number(): string {
    const literal = this.#r.pick(NUMBERS);
    if (INEXACT.has(literal)) this.features.add('float-precision');
    return literal;
  }

  /** Picks among options; those in `inexact` mark the expression as depending on 512-bit precision. */
  #pickMarking(options: readonly string[], inexact: readonly string[]): string {
    const choice = this.#r.pick(options);
    if (inexact.includes(choice)) this.features.add('float-precision');
    return choice;
  }

  /** Picks a document; one with a number of more than 15 digits marks the expression as needing 512 bits. */
  #pickLongDigits(options: readonly string[]): string {
    const choice = this.#r.pick(options);
    if (/\d{16,}/.test(choice)) this.features.add('float-precision');
    return choice;
  }

  #hoist(expression: string): string {
    const name = `h${this.hoisted.length}`;
    this.hoisted.push(`${name} = ${expression}\n`);
    return `local.${name}`;
  }

  gen(kind: Kind, depth: number): string {
    const r = this.#r;
    const bound = this.#bindings.filter((b) => b.kind === kind || (kind === 'any' && b.kind !== 'any'));
    if (bound.length > 0 && r.chance(0.3)) return this.#use(r.pick(bound));
    if (depth <= 0 || r.chance(0.15)) return this.leaf(kind);
    const before = { hoisted: this.hoisted.length, features: [...this.features], uses: new Map(this.#uses) };
    const expression = this.#compound(kind, depth - 1);
    // A bound on the text bounds the value too: no form multiplies its arguments' sizes (setproduct takes
    // literals), so a value stays within a small multiple of the text that builds it. An expression too long is
    // replaced by a leaf, and what building it recorded is undone.
    if (expression.length <= MAX_EXPRESSION) return expression;
    this.hoisted.length = before.hoisted;
    this.features.clear();
    for (const feature of before.features) this.features.add(feature);
    this.#uses.clear();
    for (const [ref, count] of before.uses) this.#uses.set(ref, count);
    return this.leaf(kind);
  }

  /** A reference to a local, or a leaf once the local has been used MAX_USES times (locals nest: l2 may hold l1 twice). */
  #use(binding: Binding): string {
    const uses = this.#uses.get(binding.ref) ?? 0;
    if (uses >= MAX_USES) return this.leaf(binding.kind);
    this.#uses.set(binding.ref, uses + 1);
    return binding.ref;
  }

  #compound(kind: Kind, d: number): string {
    switch (kind) {
      case 'str':
        return this.str(d);
      case 'num':
        return this.num(d);
      case 'bool':
        return this.bool(d);
      case 'strs':
        return this.strs(d);
      case 'nums':
        return this.nums(d);
      case 'obj':
        return this.obj(d);
      case 'any':
        return this.any(d);
    }
  }

  leaf(kind: Kind): string {
    const r = this.#r;
    switch (kind) {
      case 'str':
        return hclString(r.pick(STRINGS));
      case 'num':
        return this.#number();
      case 'bool':
        return r.pick(['true', 'false']);
      case 'strs':
        return `[${Array.from({ length: r.int(4) }, () => hclString(r.pick(STRINGS))).join(', ')}]`;
      case 'nums':
        return `[${Array.from({ length: 1 + r.int(4) }, () => this.#number()).join(', ')}]`;
      case 'obj':
        return `{ ${Array.from({ length: 1 + r.int(3) }, (_, i) => `k${i} = ${this.leaf(r.pick(['str', 'num', 'bool'] as const))}`).join(', ')} }`;
      case 'any':
        return this.leaf(r.pick(['str', 'num', 'bool', 'strs', 'nums', 'obj'] as const));
    }
  }

  str(d: number): string {
    const r = this.#r;
    const s = (): string => this.gen('str', d);
    const n = (): string => this.gen('num', d);
    const small = (): string => r.pick(['0', '1', '2', '3', '-1', '-2', '5']);
    const forms: (() => string)[] = [
      () => `upper(${s()})`,
      () => `lower(${s()})`,
      () => `title(${s()})`,
      () => `strrev(${s()})`,
      () => `trimspace(${s()})`,
      () => `chomp(${s()})`,
      () => `substr(${s()}, ${small()}, ${small()})`,
      () =>
        `replace(${s()}, ${hclString(r.pick(['a', 'e', ' ', 'ß', '.', '1']))}, ${hclString(r.pick(['_', '', 'XY']))})`,
      () =>
        `replace(${s()}, ${hclString(r.pick(['/[aeiou]/', '/(\\w)(\\w)/', '/\\s+/', '/[[:upper:]]/', '/\\p{L}/']))}, ${hclString(r.pick(['_', '$2$1', '[$0]', '${1}x']))})`,
      () => `format(${hclString(r.pick(['%s-%s', '%q/%s', '%-8s|%5s']))}, ${s()}, ${s()})`,
      () =>
        `format(${hclString(r.pick(['%d', '%05d', '%x', '%+d', '%o']))}, ${this.#pickMarking(['7', '-42', '255', '12345678901234567890', 'floor(' + n() + ')'], ['12345678901234567890'])})`,
      () => `format(${hclString(r.pick(['%f', '%.2f', '%e', '%g', '%.3g', '%v', '%6.1f']))}, ${n()})`,
      () => `format("%v|%v", ${this.gen('bool', d)}, ${n()})`,
      () => `format("%t", ${this.gen('bool', d)})`,
      () => `join(${hclString(r.pick([',', '-', '', ' / ']))}, ${this.gen('strs', d)})`,
      () => `tostring(${n()})`,
      () => `tostring(${this.gen('bool', d)})`,
      () => `"\${${n()}}"`,
      () => `"\${${this.gen('bool', d)}}"`,
      () => `"pre-\${${s()}}-\${${n()}}-post"`,
      () => `"%{ if ${this.gen('bool', d)} }yes%{ else }no%{ endif }"`,
      () => `"%{ for x in ${this.gen('strs', d)} }[\${x}]%{ endfor }"`,
      () =>
        this.#hoist(
          `<<-EOT\n    head \${${s()}}\n      %{~ for i, v in ${this.gen('nums', d)} ~}\n    \${i}:\${v}\n    %{~ endfor ~}\n    EOT`,
        ),
      () => this.#hoist(`<<EOT\nraw \${${n()}}\nEOT`),
      () => `base64encode(${s()})`,
      () => `base64decode(base64encode(${s()}))`,
      () => `sha1(${s()})`,
      () => `urlencode(${s()})`,
      () => `trim(${s()}, ${hclString(r.pick([' ', 'a', 'ab', '😀 ', 'ß']))})`,
      () => `trimprefix(${s()}, ${hclString(r.pick(['a', 'Hello', 'ü', '']))})`,
      () => `trimsuffix(${s()}, ${hclString(r.pick(['c', '\n', 'ⅷ roman', '']))})`,
      () => `indent(2, ${s()})`,
      () => `lookup(${this.gen('obj', d)}, ${hclString(r.pick(['k0', 'k1', 'k9']))}, ${s()})`,
      () => `element(${this.gen('strs', d)}, ${small()})`,
      () => `coalesce(${r.pick(['""', 'null', s()])}, ${s()})`,
      () => `one([${s()}])`,
      () => `(${this.gen('bool', d)} ? ${s()} : ${r.pick([s(), n(), this.gen('bool', d)])})`,
      () => `try(${this.gen('any', d)}.nope, ${s()})`,
      () =>
        `try(regex(${hclString(r.pick(['[a-z]+', '^\\d+', '(?i)[A-Z]+', '\\p{Lu}\\p{Ll}+', '[^,]+$']))}, ${s()}), "nomatch")`,
      () => `basename(get_terragrunt_dir())`,
      () => `path_relative_to_include()`,
      () => `basename(get_parent_terragrunt_dir())`,
      () => `get_env("PLATCTL_FUZZ_UNSET", ${s()})`,
      () => `element(split(${hclString(r.pick([',', ' ', '', '.']))}, ${s()}), ${small()})`,
      () => `jsonencode(${this.gen('any', d)})`,
      () => `yamlencode(${this.gen('any', d)})`,
      () => `jsonencode(jsondecode(${hclString(this.#pickLongDigits(JSON_DOCS))}))`,
      () => `jsonencode(yamldecode(${hclString(this.#pickLongDigits(YAML_DOCS))}))`,
      () => `jsonencode(csvdecode(${hclString(r.pick(CSV_DOCS))}))`,
      () => `jsonencode(${this.typed(d)})`,
      () => `include.root.locals.${r.pick(['region', 'name', 'label'])}`,
      () =>
        `read_terragrunt_config(${r.pick(['"../../common/vars.hcl"', 'find_in_parent_folders("common/vars.hcl")'])}).locals.${r.pick(['tier', 'owner'])}`,
      () => `templatefile("../../common/tpl.tftpl", { name = ${s()}, items = ${this.gen('strs', d)} })`,
      () => `join(",", sort(${this.gen('strs', d)}))`,
      () => `join(",", [for k, v in ${this.gen('obj', d)} : "\${k}=\${v}"])`,
      () => `join(",", ${this.gen('obj', d)}[*].k0)`,
      () => `tostring(${this.gen('any', d)})`,
    ];
    return r.pick(forms)();
  }

  num(d: number): string {
    const r = this.#r;
    const n = (): string => this.gen('num', d);
    const forms: (() => string)[] = [
      () => `(${n()} ${r.pick(['+', '-', '*'])} ${n()})`,
      () => `(${n()} / ${this.#pickMarking(['3', '7', '0.1', '2', '1e-3'], ['3', '7', '0.1', '1e-3'])})`,
      () => `(${n()} % ${r.pick(['3', '2.5', '-4'])})`,
      () => `-${n()}`,
      () => `abs(${n()})`,
      () => `ceil(${n()})`,
      () => `floor(${n()})`,
      () => `max(${n()}, ${n()})`,
      () => `min(${n()}, ${n()})`,
      () =>
        `pow(${r.pick(['2', '10', '1.5', '-2'])}, ${this.#pickMarking(['3', '0.5', '53', '-1', '70'], ['0.5', '-1', '70', '53'])})`,
      () => `signum(${n()})`,
      () => {
        this.features.add('float-precision');
        return `log(${r.pick(['8', '100', '2.5'])}, ${r.pick(['2', '10'])})`;
      },
      () =>
        `parseint(${hclString(this.#pickMarking(['ff', 'FF', '-101', '777', 'zz', '7fffffffffffffff', '0x1'], ['7fffffffffffffff']))}, ${r.pick(['16', '2', '8', '36'])})`,
      () => `length(${this.gen('str', d)})`,
      () => `length(${this.gen(r.pick(['strs', 'nums', 'obj'] as const), d)})`,
      () =>
        `tonumber(${hclString(this.#pickMarking(['12', '1.50', '1e3', '-0', '0x10', ' 3', '12345678901234567890.5'], ['12345678901234567890.5']))})`,
      () => `sum(${this.gen('nums', d)})`,
      () => `length(distinct(${this.gen('nums', d)}))`,
      () => `index(${this.gen('strs', d)}, ${this.gen('str', d)})`,
      () => `(${this.gen('bool', d)} ? ${n()} : ${n()})`,
      () => `${this.gen('nums', d)}[0]`,
      () => `lookup({ a = ${n()} }, "a", 0)`,
      () => `try(tonumber(${this.gen('str', d)}), -1)`,
      () => `length(keys(${this.gen('obj', d)}))`,
      () => `include.root.locals.count`,
    ];
    return r.pick(forms)();
  }

  bool(d: number): string {
    const r = this.#r;
    const forms: (() => string)[] = [
      () => `(${this.gen('num', d)} ${r.pick(['<', '<=', '>', '>=', '==', '!='])} ${this.gen('num', d)})`,
      () => `(${this.gen('str', d)} ${r.pick(['==', '!='])} ${this.gen('str', d)})`,
      () => `(${this.gen('any', d)} == ${this.gen('any', d)})`,
      () => `(${this.typed(d)} == ${this.typed(d)})`,
      () => `(${this.gen('bool', d)} ${r.pick(['&&', '||'])} ${this.gen('bool', d)})`,
      () => `!${this.gen('bool', d)}`,
      () => `contains(${this.gen('strs', d)}, ${this.gen('str', d)})`,
      () => `contains(${this.gen('nums', d)}, ${this.gen('num', d)})`,
      () => `contains(${this.typed(d)}, ${this.gen('any', 0)})`,
      () => `startswith(${this.gen('str', d)}, ${hclString(r.pick(['a', 'H', '', 'Ü']))})`,
      () => `endswith(${this.gen('str', d)}, ${hclString(r.pick(['c', 'e', '']))})`,
      () => `strcontains(${this.gen('str', d)}, ${hclString(r.pick(['a', 'ß', ' ']))})`,
      () => `can(${this.gen('any', d)}[0])`,
      () => `can(tonumber(${this.gen('str', d)}))`,
      () => `alltrue([${this.gen('bool', d)}, ${this.gen('bool', d)}])`,
      () => `anytrue([${this.gen('bool', d)}])`,
      () => `tobool(${r.pick(['"true"', '"false"', 'true'])})`,
      () => `(${this.gen('str', d)} == ${this.gen('num', d)})`,
      () => `(${this.gen('num', d)} == ${hclString(r.pick(['1', '0', '2.5']))})`,
      () => `(length(${this.gen('strs', d)}) > 1)`,
      () => `(${this.gen('bool', d)} == ${r.pick(['"true"', 'true', 'null'])})`,
      () => `(${this.gen('any', d)} == null)`,
    ];
    return r.pick(forms)();
  }

  strs(d: number): string {
    const r = this.#r;
    const forms: (() => string)[] = [
      () => `[${Array.from({ length: 1 + r.int(3) }, () => this.gen('str', d)).join(', ')}]`,
      () => `split(${hclString(r.pick([',', ' ', '', '.', ';']))}, ${this.gen('str', d)})`,
      () => `concat(${this.gen('strs', d)}, ${this.gen('strs', d)})`,
      () => `distinct(${this.gen('strs', d)})`,
      () => `reverse(${this.gen('strs', d)})`,
      () => `sort(${this.gen('strs', d)})`,
      () => `compact(${this.gen('strs', d)})`,
      () => `tolist(toset(${this.gen('strs', d)}))`,
      () => `keys(${this.gen('obj', d)})`,
      () => `[for s in ${this.gen('strs', d)} : upper(s) if s != ""]`,
      () => `formatlist(${hclString(r.pick(['%s!', '<%s>', '%q']))}, ${this.gen('strs', d)})`,
      () => `slice(${this.gen('strs', d)}, 0, ${r.pick(['0', '1'])})`,
      () => `regexall(${hclString(r.pick(['[a-z]', '\\d+', '\\p{L}+', '.']))}, ${this.gen('str', d)})`,
      () => `[for n in ${this.gen('nums', d)} : tostring(n)]`,
      () => `tolist([${this.gen('str', d)}, ${this.gen('num', d)}, ${this.gen('bool', d)}])`,
      () => `flatten([${this.gen('strs', d)}, [${this.gen('strs', d)}]])`,
      () => `setunion(${this.gen('strs', d)}, ${this.gen('strs', d)})`,
      () => `values({ b = ${this.gen('str', d)}, a = ${this.gen('str', d)} })`,
      () => `coalescelist(${this.gen('strs', d)}, ["fallback"])`,
      () => `include.root.locals.zones`,
    ];
    return r.pick(forms)();
  }

  nums(d: number): string {
    const r = this.#r;
    const forms: (() => string)[] = [
      () => `[${Array.from({ length: 1 + r.int(3) }, () => this.gen('num', d)).join(', ')}]`,
      () => `range(${r.pick(['3', '0', '1, 4', '5, 1', '0, 1, 0.25', '-2'])})`,
      () => `[for n in ${this.gen('nums', d)} : n * 2]`,
      () => `sort(${this.gen('nums', d)})`,
      () => `reverse(${this.gen('nums', d)})`,
      () => `distinct(concat(${this.gen('nums', d)}, ${this.gen('nums', d)}))`,
      () => `tolist(toset(${this.gen('nums', d)}))`,
      () => `[for s in ${this.gen('strs', d)} : length(s)]`,
      () => `values(${this.gen('obj', d)})`,
      () => `flatten(chunklist(${this.gen('nums', d)}, 2))`,
      () => `setintersection(${this.gen('nums', d)}, ${this.gen('nums', d)})`,
    ];
    return r.pick(forms)();
  }

  obj(d: number): string {
    const r = this.#r;
    const forms: (() => string)[] = [
      () =>
        `{ ${Array.from({ length: 1 + r.int(3) }, (_, i) => `${r.pick(['k' + i, '"k' + i + '"', '(' + hclString('k' + i) + ')'])} = ${this.gen(r.pick(['str', 'num', 'bool'] as const), d)}`).join(', ')} }`,
      () => `merge(${this.gen('obj', d)}, ${this.gen('obj', d)})`,
      () => `tomap(${this.gen('obj', d)})`,
      () => `{ for i, s in ${this.gen('strs', d)} : "k\${i}" => s }`,
      () => `{ for s in ${this.gen('strs', d)} : "k0" => s... }`,
      () => `zipmap(["k0", "k1"], [${this.gen('str', d)}, ${this.gen('num', d)}])`,
      () => `{ for k, v in ${this.gen('obj', d)} : k => v if k != "k1" }`,
      () => `(${this.gen('bool', d)} ? ${this.gen('obj', d)} : ${this.gen('obj', d)})`,
      () => `yamldecode("k0: \${${this.gen('str', d)}}\\nk1: 2")`,
      () => `include.root.locals.tags`,
      () => `read_terragrunt_config("../../common/vars.hcl").locals.settings`,
    ];
    return r.pick(forms)();
  }

  any(d: number): string {
    const r = this.#r;
    const forms: (() => string)[] = [
      () => this.gen(r.pick(['str', 'num', 'bool', 'strs', 'nums', 'obj'] as const), d),
      () => this.typed(d),
      () => `[${this.gen('any', d)}, ${this.gen('any', d)}]`,
      () => `(${this.gen('bool', d)} ? ${this.gen('any', d)} : ${this.gen('any', d)})`,
      () => `jsondecode(${hclString(this.#pickLongDigits(JSON_DOCS))})`,
      () => `yamldecode(${hclString(this.#pickLongDigits(YAML_DOCS))})`,
      () => `csvdecode(${hclString(r.pick(CSV_DOCS))})`,
      () => `[{ a = ${this.gen('str', d)} }, { a = ${this.gen('num', d)} }][*].a`,
      () => `merge({ a = ${this.gen('any', d)} }, { b = ${this.gen('any', d)} })`,
      () => `try(${this.gen('any', d)}, null)`,
      () => `setproduct(${this.leaf('strs')}, ${this.leaf('nums')})`,
      () => `transpose({ a = ${this.gen('strs', d)}, b = ["x"] })`,
      () => `lookup(${this.gen('obj', d)}, "k0", null)`,
      () => `flatten([${this.gen('any', d)}, [${this.gen('any', d)}]])`,
      () => `coalesce(${this.gen('any', d)}, ${this.gen('any', d)})`,
      () => `null`,
    ];
    return r.pick(forms)();
  }

  /** Conversions whose result type is the point: list vs tuple, set, map vs object, unification. */
  typed(d: number): string {
    const r = this.#r;
    const forms: (() => string)[] = [
      () => `tolist(${this.gen(r.pick(['strs', 'nums'] as const), d)})`,
      () => `tolist([${this.gen('num', d)}, ${this.gen('str', d)}])`,
      () => `tolist([${this.gen('bool', d)}, ${this.gen('num', d)}])`,
      () => `toset(${this.gen(r.pick(['strs', 'nums'] as const), d)})`,
      () => `toset([${this.gen('num', d)}, ${this.gen('str', d)}, ${this.gen('num', d)}])`,
      () => `tomap({ a = ${this.gen('num', d)}, b = ${this.gen('str', d)} })`,
      () => `tomap({ a = ${this.gen('bool', d)}, b = ${this.gen('num', d)} })`,
      () => `[${this.gen('num', d)}, ${this.gen('str', d)}]`,
      () => `{ a = ${this.gen('num', d)}, b = ${this.gen('str', d)} }`,
      () => `(${this.gen('bool', d)} ? ${this.gen('num', d)} : ${this.gen('str', d)})`,
      () => `(${this.gen('bool', d)} ? [${this.gen('num', d)}] : [${this.gen('str', d)}])`,
      () => `(${this.gen('bool', d)} ? { a = ${this.gen('num', d)} } : { b = ${this.gen('str', d)} })`,
      () => `(${this.gen('bool', d)} ? ${this.gen('strs', d)} : [])`,
      () => `concat(tolist(${this.gen('strs', d)}), [${this.gen('num', d)}])`,
      () => `merge(tomap({ a = ${this.gen('num', d)} }), { b = ${this.gen('str', d)} })`,
      () => `distinct([${this.gen('num', d)}, ${this.gen('str', d)}])`,
      () => `toset([])`,
      () => `tolist([])`,
      () => `tomap({})`,
      () => `[for x in toset(${this.gen('strs', d)}) : x]`,
      () => `{ for k, v in tomap({ x = ${this.gen('num', d)}, y = ${this.gen('str', d)} }) : k => v }`,
      () => `flatten([tolist([${this.gen('num', d)}]), [${this.gen('str', d)}]])`,
      () => `coalescelist(tolist([]), [${this.gen('num', d)}])`,
      () => `values(tomap({ a = ${this.gen('num', d)}, b = ${this.gen('bool', d)} }))`,
      () => `tolist([[${this.gen('num', d)}], [${this.gen('str', d)}]])`,
      () => `tolist([{ a = ${this.gen('num', d)} }, { a = ${this.gen('str', d)} }])`,
    ];
    return r.pick(forms)();
  }
}

/** The string form of an expression of a given kind, in one of the ways a user might write it. */
function stringify(r: Random, expression: string, kind: Kind): string {
  switch (kind) {
    case 'str':
      return r.pick([expression, `"\${${expression}}"`, `lower(upper(${expression}))`]);
    case 'num':
      return r.pick([
        `tostring(${expression})`,
        `"\${${expression}}"`,
        `format("%v", ${expression})`,
        `jsonencode(${expression})`,
      ]);
    case 'bool':
      return r.pick([`tostring(${expression})`, `(${expression} ? "yes" : "no")`, `"\${${expression}}"`]);
    case 'strs':
      return r.pick([`join(",", ${expression})`, `jsonencode(${expression})`, `format("%v", ${expression})`]);
    case 'nums':
    case 'obj':
    case 'any':
      return `jsonencode(${expression})`;
  }
}

const ROOT_HCL = `locals {
  region = "eu-west-1"
  name   = "Ωmega-\${basename(get_terragrunt_dir())}"
  label  = upper("platform-\${local.count}")
  count  = 3
  zones  = ["eu-west-1a", "eu-west-1b", "eu-west-1c"]
  tags   = { team = "core", "cost-center" = 42, managed = true }
}
`;

const VARS_HCL = `locals {
  tier     = "gold"
  owner    = "Zoë"
  settings = { size = 3, mode = "fast", nested = { on = true } }
}
`;

const TEMPLATE = `name=\${name}
%{ for i, item in items ~}
\${i}=\${upper(item)}
%{ endfor ~}
`;

function write(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

function probeUnit(r: Random, index: number): { text: string; record: ProbeRecord } {
  const unit = `probes/p${String(index).padStart(3, '0')}`;
  const bindings: Binding[] = [];
  const locals: string[] = [];
  const localCount = r.int(3);
  const hoisted: string[] = [];
  const features = new Set<string>();
  const uses = new Map<string, number>();
  for (let i = 0; i < localCount; i++) {
    const kind = r.pick(['str', 'num', 'bool', 'strs', 'nums', 'obj', 'any'] as const);
    const expr = new ExpressionBuilder(r, bindings, hoisted, features, uses).gen(kind, 3);
    locals.push(`l${i} = ${expr}`);
    bindings.push({ ref: `local.l${i}`, kind });
  }
  const kind = r.pick(['str', 'str', 'num', 'bool', 'strs', 'nums', 'obj', 'any'] as const);
  const value = new ExpressionBuilder(r, bindings, hoisted, features, uses).gen(kind, 3);
  locals.push(...hoisted);
  const runCmd = r.chance(0.02);
  let text = stringify(r, value, kind);
  // Every local feeds the hash: Terragrunt evaluates all locals, platctl those an edge needs (a documented difference
  // the fuzzer is not about), so an unused failing local would only add noise.
  const names = bindings.map((b) => b.ref);
  if (names.length > 0) text = `"\${${text}}|\${jsonencode([${names.join(', ')}])}"`;
  if (runCmd) text = `"\${${text}}\${run_cmd("--terragrunt-quiet", "echo", "x")}"`;
  const target = `"../../targets/\${substr(md5(${text}), 0, 1)}"`;
  const block: ProbeRecord['block'] = r.chance(0.7) ? 'dependency' : 'dependencies';
  const lines = [
    `# expression fuzz probe ${unit}`,
    'include "root" {',
    '  path   = find_in_parent_folders("root.hcl")',
    '  expose = true',
    '}',
    '',
  ];
  if (locals.length > 0) lines.push('locals {', ...locals.map((l) => `  ${l}`), '}', '');
  if (block === 'dependency') lines.push('dependency "target" {', `  config_path = ${target}`, '}');
  else lines.push('dependencies {', `  paths = [${target}]`, '}');
  return {
    text: `${lines.join('\n')}\n`,
    record: { unit, block, locals, expression: target, runCmd, features: [...features].sort() },
  };
}

/**
 * Writes the repository for `seed` into `root` (replacing it): `.platctl.yaml`, `live/root.hcl`, `live/common/`,
 * sixteen targets and `units` probes. Returns the manifest.
 */
export function generateRepository(root: string, seed: number, units: number): Manifest {
  rmSync(root, { recursive: true, force: true });
  const r = new Random(seed);
  write(join(root, '.platctl.yaml'), `version: 1\nenvironments:\n  ${FUZZ_ENV}:\n    dir: ${FUZZ_ENV}\n`);
  write(join(root, FUZZ_ENV, 'root.hcl'), ROOT_HCL);
  write(join(root, FUZZ_ENV, 'common', 'vars.hcl'), VARS_HCL);
  write(join(root, FUZZ_ENV, 'common', 'tpl.tftpl'), TEMPLATE);
  for (const target of TARGETS) write(join(root, FUZZ_ENV, 'targets', target, 'terragrunt.hcl'), '# a target\n');
  const probes: ProbeRecord[] = [];
  for (let i = 0; i < units; i++) {
    const { text, record } = probeUnit(r, i);
    write(join(root, FUZZ_ENV, record.unit, 'terragrunt.hcl'), text);
    probes.push(record);
  }
  write(join(root, 'manifest.json'), `${JSON.stringify({ seed, probes }, null, 2)}\n`);
  return { seed, probes };
}
