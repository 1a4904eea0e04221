/**
 * Turning a template's flat sequence (literals, interpolations, `%{ }` directives) into nested parts, applying
 * HCL's whitespace rules on the way: strip markers (`${~`, `~}`) and the flush heredoc (`<<-`) indentation rule.
 */
import type { Expression, TemplatePart } from './ast.js';

/** A syntax error with the offsets of the offending text; the parser turns it into a ParseResult. */
export class SyntaxFailure extends Error {
  readonly start: number;
  readonly end: number;

  constructor(message: string, start: number, end: number = start) {
    super(message);
    this.start = start;
    this.end = end;
  }
}

interface Marks {
  readonly start: number;
  readonly end: number;
  /** `${~` / `%{~`: trim trailing whitespace of the literal before. */
  readonly stripBefore: boolean;
  /** `~}`: trim leading whitespace of the literal after. */
  readonly stripAfter: boolean;
}

/** One element of a template as the parser reads it, before directives are nested. */
export type FlatItem =
  | { readonly kind: 'literal'; value: string; readonly start: number; readonly end: number }
  | (Marks & { readonly kind: 'interpolation'; readonly expression: Expression })
  | (Marks & { readonly kind: 'if'; readonly condition: Expression })
  | (Marks & { readonly kind: 'else' | 'endif' | 'endfor' })
  | (Marks & {
      readonly kind: 'for';
      readonly keyVar?: string;
      readonly valueVar: string;
      readonly collection: Expression;
    });

const LEADING_SPACE = /^\s*/u;

/**
 * Nests a flat item list into template parts. `flush` applies the `<<-` rule: the smallest indentation among
 * line-leading literals (blank lines excepted) is removed from each of them, judged on the source text so
 * interpolated values cannot change it (as HCL does, after strip markers).
 */
export function assembleTemplate(items: FlatItem[], flush: boolean): TemplatePart[] {
  applyStripMarkers(items);
  if (flush) flushIndentation(items);
  const root: TemplatePart[] = [];
  const stack: { readonly opener: FlatItem; parts: TemplatePart[]; thenParts?: TemplatePart[]; elseSeen: boolean }[] =
    [];
  let current = root;

  for (const item of items) {
    switch (item.kind) {
      case 'literal':
        if (item.value === '') break;
        appendLiteral(current, item.value, item.start, item.end);
        break;
      case 'interpolation':
        current.push({ kind: 'interpolation', expression: item.expression, start: item.start, end: item.end });
        break;
      case 'if':
      case 'for': {
        const frame = { opener: item, parts: [] as TemplatePart[], elseSeen: false };
        stack.push(frame);
        current = frame.parts;
        break;
      }
      case 'else': {
        const frame = stack[stack.length - 1];
        if (!frame || frame.opener.kind !== 'if' || frame.elseSeen) {
          throw new SyntaxFailure('%{ else } without a matching %{ if }', item.start, item.end);
        }
        frame.thenParts = frame.parts;
        frame.parts = [];
        frame.elseSeen = true;
        current = frame.parts;
        break;
      }
      case 'endif':
      case 'endfor': {
        const frame = stack.pop();
        const wanted = item.kind === 'endif' ? 'if' : 'for';
        if (!frame || frame.opener.kind !== wanted) {
          throw new SyntaxFailure(`%{ ${item.kind} } without a matching %{ ${wanted} }`, item.start, item.end);
        }
        const opener = frame.opener;
        const parent = stack[stack.length - 1];
        current = parent ? parent.parts : root;
        if (opener.kind === 'if') {
          current.push({
            kind: 'if',
            condition: opener.condition,
            then: frame.thenParts ?? frame.parts,
            else: frame.thenParts ? frame.parts : [],
            start: opener.start,
            end: item.end,
          });
        } else if (opener.kind === 'for') {
          current.push({
            kind: 'for',
            ...(opener.keyVar !== undefined ? { keyVar: opener.keyVar } : {}),
            valueVar: opener.valueVar,
            collection: opener.collection,
            body: frame.parts,
            start: opener.start,
            end: item.end,
          });
        }
        break;
      }
    }
  }
  const open = stack.pop();
  if (open) {
    const closer = open.opener.kind === 'if' ? 'endif' : 'endfor';
    throw new SyntaxFailure(
      `%{ ${open.opener.kind} } has no matching %{ ${closer} }`,
      open.opener.start,
      open.opener.end,
    );
  }
  return root;
}

function appendLiteral(parts: TemplatePart[], value: string, start: number, end: number): void {
  const last = parts[parts.length - 1];
  if (last?.kind === 'literal') {
    parts[parts.length - 1] = { kind: 'literal', value: last.value + value, start: last.start, end };
  } else {
    parts.push({ kind: 'literal', value, start, end });
  }
}

function applyStripMarkers(items: FlatItem[]): void {
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!item || item.kind === 'literal') continue;
    const before = items[i - 1];
    if (item.stripBefore && before?.kind === 'literal') before.value = before.value.trimEnd();
    const after = items[i + 1];
    if (item.stripAfter && after?.kind === 'literal') after.value = after.value.trimStart();
  }
}

function flushIndentation(items: FlatItem[]): void {
  let minimum = Infinity;
  let lineStart = true;
  const adjust: (FlatItem & { kind: 'literal' })[] = [];
  for (const item of items) {
    if (lineStart) {
      if (item.kind === 'literal') {
        const leading = LEADING_SPACE.exec(item.value)?.[0] ?? '';
        const blank = leading.length === item.value.length && item.value.endsWith('\n');
        if (!blank) {
          minimum = Math.min(minimum, [...leading].length);
          adjust.push(item);
        }
      } else {
        // A line that starts with an interpolation or directive has no indentation to spare.
        minimum = 0;
      }
    }
    lineStart = item.kind === 'literal' && item.value.endsWith('\n');
  }
  if (minimum === Infinity || minimum === 0) return;
  for (const item of adjust) item.value = [...item.value].slice(minimum).join('');
}
