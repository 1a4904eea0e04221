/**
 * yamlencode(): YAML text as OpenTofu writes it (go-cty-yaml's encoder on go-yaml's emitter).
 *
 * The rules it follows, since every byte feeds a path when the result is hashed or interpolated:
 * - strings are double-quoted (keys too); a string with a line break is a literal block (`|`, `|-`, `|+` by its
 *   trailing breaks, `|2` when it starts with a space or a break) unless it holds a character YAML cannot print
 *   raw (a tab, a carriage return, anything beyond the Basic Multilingual Plane) or a space right before a break,
 *   in which case it is double-quoted with escapes; a double-quoted value wraps at a space past column 80;
 * - numbers print as HCL prints them, bools as `true`/`false`, null as `null`; such a plain scalar alone in the
 *   document is followed by the end marker `...`;
 * - sequences and mappings are block style, keys in cty's (lexical) order; a sequence under a key is not indented,
 *   one inside a sequence starts on the same line (`- - a`); empty ones are `[]` and `{}`.
 */
import { Unknown, formatNumber, sortedKeys } from './values.js';
import { isInfinite, isNum } from './number.js';
import type { Value } from './values.js';

/** Why a value cannot be written as YAML. */
export class YamlEncodeError extends Error {}

const BEST_WIDTH = 80;
const INDENT = 2;

/** Named escapes of go-yaml's double-quoted writer. */
const ESCAPES: Readonly<Record<number, string>> = {
  0x00: '0',
  0x07: 'a',
  0x08: 'b',
  0x09: 't',
  0x0a: 'n',
  0x0b: 'v',
  0x0c: 'f',
  0x0d: 'r',
  0x1b: 'e',
  0x22: '"',
  0x5c: '\\',
  0x85: 'N',
  0x2028: 'L',
  0x2029: 'P',
};

/** go-yaml's is_printable: a line feed, printable ASCII, and the rest of the Basic Multilingual Plane but a few. */
function printable(code: number): boolean {
  if (code === 0x0a) return true;
  if (code >= 0x20 && code <= 0x7e) return true;
  if (code >= 0xa0 && code <= 0xd7ff) return true;
  if (code >= 0xe000 && code <= 0xfffd) return code !== 0xfeff;
  return false;
}

function lineBreak(code: number): boolean {
  return code === 0x0a || code === 0x0d || code === 0x85 || code === 0x2028 || code === 0x2029;
}

function escape(code: number): string {
  const named = ESCAPES[code];
  if (named !== undefined) return `\\${named}`;
  const hex = code.toString(16).toUpperCase();
  if (code <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${hex.padStart(4, '0')}`;
  return `\\U${hex.padStart(8, '0')}`;
}

/** Whether go-yaml may write a multi-line string as a literal block (its analyze_scalar rules). */
function blockAllowed(text: string): boolean {
  const codes = [...text].map((char) => char.codePointAt(0) as number);
  if (codes.length > 0 && codes[codes.length - 1] === 0x20) return false;
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i] as number;
    if (!printable(code) || code === 0xfeff) return false;
    if (code === 0x20 && lineBreak(codes[i + 1] ?? -1)) return false;
  }
  return true;
}

/** A double-quoted scalar starting at `column`; continuation lines (when `wrap`) are indented to `indent`. */
function doubleQuoted(text: string, column: number, indent: number, wrap: boolean): string {
  let out = '"';
  let col = column + 1;
  let spaces = false;
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] as string;
    const code = char.codePointAt(0) as number;
    if (!printable(code) || code === 0xfeff || lineBreak(code) || code === 0x22 || code === 0x5c) {
      const escaped = escape(code);
      out += escaped;
      col += escaped.length;
      spaces = false;
    } else if (code === 0x20) {
      if (wrap && !spaces && col > BEST_WIDTH && i > 0 && i < chars.length - 1) {
        out += `\n${' '.repeat(indent)}`;
        col = indent;
        if (chars[i + 1] === ' ') {
          out += '\\';
          col += 1;
        }
      } else {
        out += ' ';
        col += 1;
      }
      spaces = true;
    } else {
      out += char;
      col += 1;
      spaces = false;
    }
  }
  return `${out}"`;
}

/** A literal block scalar's header and lines (ending with a line break), its content indented to `indent`. */
function literalBlock(text: string, indent: number): string {
  let header = '|';
  if (text.startsWith(' ') || lineBreak(text.codePointAt(0) ?? -1)) header += String(INDENT);
  if (!text.endsWith('\n')) header += '-';
  else if (text === '\n' || text.endsWith('\n\n')) header += '+';
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return `${header}\n${lines.map((line) => (line === '' ? '\n' : `${' '.repeat(indent)}${line}\n`)).join('')}`;
}

/** A string value (not a key) starting at `column`, with a trailing line break. */
function stringScalar(text: string, column: number, indent: number): string {
  if (text.includes('\n') && blockAllowed(text)) return literalBlock(text, indent);
  return `${doubleQuoted(text, column, indent, true)}\n`;
}

function isEmptyCollection(value: Value): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return isCollection(value) && Object.keys(value as object).length === 0;
}

function isCollection(value: Value): boolean {
  return value !== null && typeof value === 'object' && !(value instanceof Unknown) && !isNum(value);
}

/**
 * A scalar or an empty collection starting at `column`, where a scalar's continuation lines go to `indent`; with a
 * trailing line break.
 */
function scalar(value: Value, column: number, indent: number): string {
  if (value === null) return 'null\n';
  if (value instanceof Unknown) throw new YamlEncodeError(`cannot encode an unknown value (${value.reason})`);
  if (typeof value === 'boolean') return `${String(value)}\n`;
  if (isNum(value)) {
    if (isInfinite(value)) throw new YamlEncodeError(`cannot encode ${formatNumber(value)} as YAML`);
    return `${formatNumber(value)}\n`;
  }
  if (typeof value === 'string') return stringScalar(value, column, indent);
  return Array.isArray(value) ? '[]\n' : '{}\n';
}

/**
 * A non-empty sequence or mapping whose entries start at column `indent`; when `inline`, the first entry's
 * indentation is already written (the collection follows a `- `).
 */
function block(value: Value, indent: number, inline: boolean): string {
  const pad = ' '.repeat(indent);
  let out = '';
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out += `${i === 0 && inline ? '' : pad}- `;
      if (isCollection(item) && !isEmptyCollection(item)) out += block(item, indent + INDENT, true);
      else out += scalar(item, indent + INDENT, indent + INDENT);
    });
    return out;
  }
  const map = value as Record<string, Value>;
  sortedKeys(map).forEach((key, i) => {
    const written = `${doubleQuoted(key, indent, indent, false)}:`;
    out += `${i === 0 && inline ? '' : pad}${written}`;
    const item = map[key] as Value;
    if (isCollection(item) && !isEmptyCollection(item)) {
      // A sequence under a key is not indented; a mapping is.
      out += `\n${block(item, Array.isArray(item) ? indent : indent + INDENT, false)}`;
    } else {
      out += ` ${scalar(item, indent + written.length + 1, indent + INDENT)}`;
    }
  });
  return out;
}

/** The YAML document for a value; throws YamlEncodeError for what YAML cannot hold. */
export function encodeYaml(value: Value): string {
  if (isCollection(value) && !isEmptyCollection(value)) return block(value, 0, false);
  // A plain scalar (null, a bool, a number) alone in the document is followed by the document end marker.
  const plain = value === null || typeof value === 'boolean' || isNum(value);
  return `${scalar(value, 0, INDENT)}${plain ? '...\n' : ''}`;
}
