/**
 * The configuration as YAML source: the parsed document with its node ranges, and lookups from a key path to a
 * file:line:column. Kept apart from validation so every later stage (discovery reporting an unknown unit id in
 * `implicit_deps`) can point at the line a user wrote.
 */
import { LineCounter, isAlias, isMap, isPair, isScalar, isSeq, parseDocument } from './yaml.js';
import type { Document, Node as YamlNode, Pair } from 'yaml';
import type { SourceLocation } from './location.js';
import type { ConfigError, ConfigErrorReason, KeyPath } from './errors.js';
import { formatKeyPath } from './errors.js';

/** Which end of a map entry to point at: the key (`foo:`) or its value. */
export type LocateTarget = 'key' | 'value';

/** A parsed `.platctl.yaml` and its positions. */
export interface ConfigSource {
  readonly file: string;
  readonly document: Document.Parsed;
  /** YAML errors (syntax, duplicate keys, unresolved aliases), with positions. */
  readonly errors: ConfigError[];
  /** The document as plain data; undefined when the YAML is broken or empty. */
  readonly data: unknown;
  /**
   * Where `keyPath` is written. For a map entry, `target` picks its key (default) or its value. A path that does not
   * exist resolves to its nearest existing ancestor; `exact` tells which happened.
   */
  locate(keyPath: KeyPath, target?: LocateTarget): { location: SourceLocation; exact: boolean };
  /** The file:line:column of a character offset. */
  at(offset: number): SourceLocation;
}

/** Parses YAML text; never throws for anything a user can write. */
export function parseConfigSource(text: string, file: string): ConfigSource {
  const lineCounter = new LineCounter();
  // prettyErrors off: messages stay one line, positions come from the line counter.
  const document = parseDocument(text, { lineCounter, prettyErrors: false, keepSourceTokens: false });

  const at = (offset: number): SourceLocation => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col };
  };
  const start: SourceLocation = { file, line: 1, column: 1 };
  const nodeLocation = (node: YamlNode | null | undefined): SourceLocation | undefined =>
    node?.range ? at(node.range[0]) : undefined;

  const errors: ConfigError[] = [];
  for (const problem of [...document.errors, ...document.warnings]) {
    const hint = yamlHint(problem.code);
    errors.push({
      reason: 'yaml-syntax',
      message: `YAML: ${problem.message}`,
      keyPath: '',
      location: at(problem.pos[0]),
      ...(hint === undefined ? {} : { hint }),
    });
  }

  let data: unknown;
  if (document.errors.length === 0) {
    try {
      data = document.toJS({ maxAliasCount: 100 });
    } catch (error) {
      // toJS throws for aliases whose anchor is missing or that expand too much (a "billion laughs" file).
      const unresolved = firstAliasLocation(document, nodeLocation);
      errors.push({
        reason: 'yaml-syntax',
        message: `YAML: ${error instanceof Error ? error.message : String(error)}`,
        keyPath: '',
        location: unresolved ?? start,
        hint: unresolved
          ? 'define the anchor (&name) before its alias (*name), or write the value out'
          : 'write the values out instead of nesting aliases',
      });
      data = undefined;
    }
  }

  const locate = (keyPath: KeyPath, target: LocateTarget = 'key'): { location: SourceLocation; exact: boolean } => {
    let node: unknown = document.contents;
    let best: SourceLocation = nodeLocation(document.contents) ?? start;
    for (let i = 0; i < keyPath.length; i++) {
      const part = keyPath[i];
      const isLast = i === keyPath.length - 1;
      node = resolveAlias(node, document);
      if (isMap(node) && part !== undefined) {
        const pair = node.items.find((item) => keyMatches(item, part));
        if (!pair) return { location: best, exact: false };
        const keyLocation = nodeLocation(pair.key as YamlNode | null) ?? best;
        const valueLocation = nodeLocation(pair.value as YamlNode | null);
        if (isLast) {
          return { location: target === 'key' ? keyLocation : (valueLocation ?? keyLocation), exact: true };
        }
        // Inside a missing or null value, the key's own line is the best answer.
        best = keyLocation;
        node = pair.value;
      } else if (isSeq(node) && typeof part === 'number') {
        const item = node.items[part] as YamlNode | undefined;
        const itemLocation = nodeLocation(item);
        if (!item || !itemLocation) return { location: best, exact: false };
        best = itemLocation;
        if (isLast) return { location: itemLocation, exact: true };
        node = item;
      } else {
        return { location: best, exact: false };
      }
    }
    return { location: best, exact: true };
  };

  return { file, document, errors, data, locate, at };
}

/** A string written in the file: a value, or a map key (`isKey`), with its key path and position. */
export interface SourceString {
  readonly value: string;
  readonly keyPath: KeyPath;
  readonly isKey: boolean;
  readonly location: SourceLocation;
}

/** Every string in the document, keys included. Aliases are skipped: their anchor is visited where it is written. */
export function stringsOf(source: ConfigSource): SourceString[] {
  const out: SourceString[] = [];
  const walk = (node: unknown, keyPath: KeyPath): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = scalarKey(pair);
        if (key === undefined) continue;
        const keyNode = pair.key as YamlNode | null;
        if (typeof key === 'string' && keyNode?.range) {
          out.push({ value: key, keyPath: [...keyPath, key], isKey: true, location: source.at(keyNode.range[0]) });
        }
        walk(pair.value, [...keyPath, key]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => walk(item, [...keyPath, index]));
    } else if (isScalar(node) && typeof node.value === 'string' && node.range) {
      out.push({ value: node.value, keyPath, isKey: false, location: source.at(node.range[0]) });
    }
  };
  walk(source.document.contents, []);
  return out;
}

/** The text a scalar was written as (`012345678901` for a number that lost its leading zero), if it is one. */
export function writtenText(source: ConfigSource, keyPath: KeyPath): string | undefined {
  let node: unknown = source.document.contents;
  for (const part of keyPath) {
    node = resolveAlias(node, source.document);
    if (isMap(node)) node = node.items.find((item) => keyMatches(item, part))?.value;
    else if (isSeq(node) && typeof part === 'number') node = node.items[part];
    else return undefined;
  }
  return isScalar(node) && typeof node.source === 'string' ? node.source : undefined;
}

function keyMatches(pair: Pair, part: string | number): boolean {
  const key = scalarKey(pair);
  return key !== undefined && String(key) === String(part);
}

function scalarKey(pair: unknown): string | number | undefined {
  if (!isPair(pair)) return undefined;
  const key = pair.key;
  if (isScalar(key) && (typeof key.value === 'string' || typeof key.value === 'number')) return key.value;
  return undefined;
}

function resolveAlias(node: unknown, document: Document.Parsed): unknown {
  return isAlias(node) ? node.resolve(document) : node;
}

function firstAliasLocation(
  document: Document.Parsed,
  nodeLocation: (node: YamlNode | null | undefined) => SourceLocation | undefined,
): SourceLocation | undefined {
  let found: SourceLocation | undefined;
  const visit = (node: unknown): void => {
    if (found) return;
    if (isAlias(node)) {
      if (node.resolve(document) === undefined) found = nodeLocation(node);
    } else if (isMap(node)) {
      for (const pair of node.items) visit(pair.value);
    } else if (isSeq(node)) {
      for (const item of node.items) visit(item);
    }
  };
  visit(document.contents);
  return found;
}

function yamlHint(code: string): string | undefined {
  switch (code) {
    case 'DUPLICATE_KEY':
      return 'a key may appear once per map: merge the two entries';
    case 'TAB_AS_INDENT':
      return 'indent with spaces; YAML forbids tabs';
    case 'MULTIPLE_DOCS':
      return 'keep one YAML document in the file (remove the second ---)';
    case 'MISSING_CHAR':
      return 'close the quote or bracket';
    default:
      return undefined;
  }
}

/**
 * A ConfigError about `keyPath`, placed at where the key (or its value) is written; `locateAt` points elsewhere when
 * the key itself is not in the file.
 */
export function configError(
  source: ConfigSource,
  reason: ConfigErrorReason,
  keyPath: KeyPath,
  message: string,
  options: { target?: LocateTarget; locateAt?: KeyPath; hint?: string | undefined } = {},
): ConfigError {
  const { location } = source.locate(options.locateAt ?? keyPath, options.target ?? 'value');
  return {
    reason,
    message,
    keyPath: formatKeyPath(keyPath),
    location,
    ...(options.hint === undefined ? {} : { hint: options.hint }),
  };
}
