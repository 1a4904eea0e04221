/**
 * yamldecode() as OpenTofu does it (with the go-cty-yaml library): YAML 1.1 style scalar resolution on top of a
 * YAML parser, mappings as objects, sequences as tuples.
 *
 * The rules that differ from a YAML 1.2 parser's defaults, which is why the `yaml` package is used only to parse
 * (with the failsafe schema: every scalar a string) and the scalars are resolved here:
 *
 * - `y`, `yes`, `on` (and their capitalisations) are true, `n`, `no`, `off` false; `~`, `null` and an empty value
 *   are null; `.inf` is a number; `.nan` is an error (cty has no NaN).
 * - Integers: decimal (`017` is 17), `0o17` and `0x1F`; `1_000` stays a string. Floats: decimal with an exponent
 *   or a leading dot (`.5`). Quoted scalars are always strings, even with an explicit tag.
 * - A date or timestamp (`2001-12-14`, `2001-12-14 21:59:43.10`) becomes an RFC 3339 string
 *   (`2001-12-14T00:00:00Z`).
 * - Mapping keys are converted to strings (`yes: 1` has the key "true"); `<<` merges a mapping in; an alias must
 *   refer to an anchor defined before it. Only one document is allowed.
 */
import { Alias, Scalar, YAMLMap, YAMLSeq, parseAllDocuments } from '../../config/yaml.js';
import type { Node } from 'yaml';
import { formatNumber, setKey } from './values.js';
import type { Value, ValueObject } from './values.js';
import { parseNumber } from './types.js';
import { fromBigInt, isNum } from './number.js';
import type { Num } from './number.js';

/** A YAML document OpenTofu would refuse; the message says why. */
export class YamlDecodeError extends Error {
  override readonly name = 'YamlDecodeError';
}

const TAG = 'tag:yaml.org,2002:';
const STR = `${TAG}str`;
const BINARY = `${TAG}binary`;
const BOOL = `${TAG}bool`;
const INT = `${TAG}int`;
const FLOAT = `${TAG}float`;
const NULL = `${TAG}null`;
const TIMESTAMP = `${TAG}timestamp`;
const RESOLVABLE = new Set(['', STR, BOOL, INT, FLOAT, NULL, TIMESTAMP, BINARY]);

const WORDS = new Map<string, Value>();
for (const word of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) WORDS.set(word, true);
for (const word of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']) WORDS.set(word, false);
for (const word of ['', '~', 'null', 'Null', 'NULL']) WORDS.set(word, null);
for (const word of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']) WORDS.set(word, Infinity);
for (const word of ['-.inf', '-.Inf', '-.INF']) WORDS.set(word, -Infinity);

const INTEGER = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;
const FLOAT_TEXT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const MERGE = Symbol('merge');

/** How a scalar's first character steers resolution (go-cty-yaml's resolve table). */
function hint(text: string): 'sign' | 'digit' | 'word' | 'dot' | 'none' {
  const first = text[0];
  if (first === undefined) return 'word';
  if (first === '+' || first === '-') return 'sign';
  if (first >= '0' && first <= '9') return 'digit';
  if ('yYnNtTfFoO~'.includes(first)) return 'word';
  if (first === '.') return 'dot';
  return 'none';
}

/** Go's strconv.ParseInt/ParseUint with base 0: 0x, 0o, 0b prefixes and a leading 0 for octal. */
function parseGoInteger(text: string): Num | undefined {
  const match = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(text);
  if (!match) return undefined;
  const [, sign = '', body = ''] = match;
  let value: bigint;
  if (/^0[oO]/.test(body)) value = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) value = BigInt(`0o${body.slice(1)}`);
  else value = BigInt(body);
  if (sign === '-') value = -value;
  if (value < -(2n ** 63n) || value >= 2n ** 64n) return undefined;
  return fromBigInt(value);
}

function pad(n: string): string {
  return n.padStart(2, '0');
}

/** A YAML timestamp as Go's time.Format(RFC3339) writes it, or undefined when the text is not one. */
function timestamp(text: string): string | undefined {
  const match =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2}))|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?))?$/.exec(
      text,
    );
  if (!match) return undefined;
  const [, year = '', month = '', day = ''] = match;
  const hour = match[4] ?? match[8] ?? '0';
  const minute = match[5] ?? match[9] ?? '0';
  const second = match[6] ?? match[10] ?? '0';
  const zone = match[7] ?? 'Z';
  const m = Number(month);
  const d = Number(day);
  const daysInMonth = new Date(Date.UTC(Number(year), m, 0)).getUTCDate();
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth) return undefined;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  const offset = zone === '+00:00' ? 'Z' : zone === '-00:00' ? '-00:00' : zone;
  return `${year}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}${offset}`;
}

function resolveScalar(scalar: Scalar, tagIn: string): Value | typeof MERGE {
  const text = String(scalar.value);
  let tag = tagIn;
  if (!RESOLVABLE.has(tag)) throw new YamlDecodeError(`unsupported tag "${tag}"`);
  const quoted = scalar.type === 'QUOTE_DOUBLE' || scalar.type === 'QUOTE_SINGLE';
  const kind = hint(text);
  if (kind !== 'none' && tag !== STR && tag !== BINARY) {
    if (quoted) return text;
    if (WORDS.has(text)) return WORDS.get(text) as Value;
    if (tag === '' && ['.nan', '.NaN', '.NAN'].includes(text)) {
      throw new YamlDecodeError('floating point NaN is not supported');
    }
    if (kind === 'dot') {
      const number = parseNumber(text);
      if (number !== undefined) return number;
    } else if (kind === 'digit' || kind === 'sign') {
      if (tag === '' || tag === TIMESTAMP) {
        const time = timestamp(text);
        if (time !== undefined) return time;
      }
      if (INTEGER.test(text)) tag = INT;
      else if (FLOAT_TEXT.test(text)) tag = FLOAT;
    }
  }
  if (tag === '' && text === '<<') return MERGE;
  switch (tag) {
    case STR:
      return text;
    case BINARY:
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.replace(/\s/g, ''))) {
        throw new YamlDecodeError(`cannot parse ${JSON.stringify(text)} as ${tag}: not valid base64`);
      }
      return text;
    case BOOL: {
      const word = WORDS.get(text);
      if (typeof word !== 'boolean') throw new YamlDecodeError(`cannot parse ${JSON.stringify(text)} as ${tag}`);
      return word;
    }
    case INT:
    case FLOAT: {
      const plain = text.replace(/_/g, '');
      const number = parseNumber(plain) ?? parseGoInteger(plain);
      if (number === undefined) throw new YamlDecodeError(`cannot parse ${JSON.stringify(text)} as ${tag}`);
      return number;
    }
    case TIMESTAMP: {
      const time = timestamp(text);
      if (time === undefined) throw new YamlDecodeError(`cannot parse ${JSON.stringify(text)} as ${tag}`);
      return time;
    }
    case NULL:
      return null;
    default:
      return text;
  }
}

class Converter {
  readonly #anchors = new Map<string, Value>();
  readonly #pending = new Set<string>();

  node(node: Node | null): Value {
    if (node === null) return null;
    if (node instanceof Alias) {
      if (this.#pending.has(node.source)) {
        throw new YamlDecodeError(`cannot refer to anchor "${node.source}" from inside its own definition`);
      }
      const value = this.#anchors.get(node.source);
      if (value === undefined) throw new YamlDecodeError(`reference to undefined anchor "${node.source}"`);
      return value;
    }
    const anchor = node.anchor;
    if (anchor !== undefined) this.#pending.add(anchor);
    const value = this.#value(node);
    if (anchor !== undefined) {
      this.#pending.delete(anchor);
      this.#anchors.set(anchor, value);
    }
    return value;
  }

  #value(node: Node): Value {
    if (node instanceof Scalar) {
      const value = resolveScalar(node, node.tag ?? '');
      return value === MERGE ? '<<' : value;
    }
    if (node instanceof YAMLSeq) {
      if (node.tag !== undefined && node.tag !== `${TAG}seq`) {
        throw new YamlDecodeError(`can't interpret sequence as ${node.tag}`);
      }
      return node.items.map((item) => this.node(item as Node | null));
    }
    if (node instanceof YAMLMap) return this.#mapping(node);
    throw new YamlDecodeError('unsupported YAML node');
  }

  #mapping(node: YAMLMap): Value {
    if (node.tag !== undefined && node.tag !== `${TAG}map`) {
      throw new YamlDecodeError(`can't interpret mapping as ${node.tag}`);
    }
    const out: ValueObject = {};
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      if (!(keyNode instanceof Scalar)) throw new YamlDecodeError('only strings are allowed as mapping keys');
      const key = resolveScalar(keyNode, keyNode.tag ?? '');
      if (key === MERGE) {
        const merged = this.node(pair.value as Node | null);
        if (merged === null || typeof merged !== 'object' || Array.isArray(merged)) {
          throw new YamlDecodeError('cannot merge a non-mapping into a mapping');
        }
        for (const name of Object.keys(merged)) setKey(out, name, (merged as ValueObject)[name] as Value);
        continue;
      }
      if (key === null) throw new YamlDecodeError('mapping key cannot be null');
      if (typeof key === 'object') throw new YamlDecodeError('only strings are allowed as mapping keys');
      const name = isNum(key) ? formatNumber(key) : String(key);
      setKey(out, name, this.node(pair.value as Node | null));
    }
    return out;
  }
}

/** Decodes one YAML document as OpenTofu's yamldecode() does. Throws a {@link YamlDecodeError}. */
export function decodeYaml(text: string): Value {
  const documents = parseAllDocuments(text, { schema: 'failsafe', uniqueKeys: false });
  if (!Array.isArray(documents)) return null;
  if (documents.length > 1) throw new YamlDecodeError('only a single document is allowed');
  const [document] = documents;
  if (!document) return null;
  const [problem] = document.errors;
  if (problem) throw new YamlDecodeError(problem.message);
  return new Converter().node(document.contents);
}
