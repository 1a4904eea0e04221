/**
 * Terragrunt files in HCL's JSON syntax (`root.hcl.json`), turned into the shape hcl2json gives native files, so
 * the rest of discovery reads both alike. hcl2json itself only parses the native syntax.
 *
 * In the JSON syntax a string is a template (`"${local.x}/vpc"`), exactly as hcl2json writes a native expression,
 * so attribute values carry over unchanged. What the JSON cannot say by itself is which keys are blocks: that comes
 * from Terragrunt's schema. Blocks become what hcl2json writes: a list of bodies (`{"terraform": [{...}]}`), keyed by
 * label first for labelled blocks (`{"dependency": {"vpc": [{...}]}}`). A key `"//"` is a comment.
 */
import type { ParseOutcome } from './hcl2json.js';
import type { BlockPosition } from './hcl/file-parser.js';

/** Terragrunt's top-level block types: with one label, and without. */
const LABELLED = new Set(['include', 'dependency', 'generate', 'feature']);
const UNLABELLED = new Set([
  'locals',
  'dependencies',
  'terraform',
  'remote_state',
  'exclude',
  'errors',
  'engine',
  'catalog',
]);

/** True for the files read with the JSON syntax, by name, as HCL decides. */
export function isHclJson(path: string): boolean {
  return path.endsWith('.json');
}

/** The hcl2json-shaped body of an HCL JSON file, or the error at its line and column. */
export function parseHclJson(file: string, content: string): ParseOutcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = /at position (\d+)/.exec(message);
    const { line, column } = position(content, at ? Number(at[1]) : 0);
    return {
      ok: false,
      message: `invalid JSON: ${message.replace(/ in JSON at position \d+.*$/, '')}`,
      location: { file, line, column },
    };
  }
  if (!isObject(parsed)) {
    return {
      ok: false,
      message: 'an HCL JSON file must hold one object at its top level',
      location: { file, line: 1, column: 1 },
    };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (key === '//') continue;
    if (UNLABELLED.has(key)) {
      const bodies = asBodies(value);
      if (!bodies) return shapeError(file, content, key, 'a block: an object, or a list of objects');
      out[key] = bodies;
    } else if (LABELLED.has(key)) {
      if (!isObject(value)) return shapeError(file, content, key, 'an object keyed by the block label');
      const labelled: Record<string, unknown[]> = {};
      for (const [label, body] of Object.entries(value)) {
        const bodies = asBodies(body);
        if (!bodies) return shapeError(file, content, `${key}.${label}`, 'a block: an object, or a list of objects');
        labelled[label] = bodies;
      }
      out[key] = labelled;
    } else {
      out[key] = value;
    }
  }
  return { ok: true, json: out };
}

function asBodies(value: unknown): Record<string, unknown>[] | undefined {
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (!list.every(isObject)) return undefined;
  return list.map((body) => Object.fromEntries(Object.entries(body).filter(([key]) => key !== '//')));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

function shapeError(file: string, content: string, key: string, expected: string): ParseOutcome {
  const name = key.split('.').pop() ?? key;
  const index = content.indexOf(JSON.stringify(name));
  const { line, column } = position(content, Math.max(0, index));
  return { ok: false, message: `"${key}" must be ${expected}`, location: { file, line, column } };
}

/** 1-based line and column of a character offset. */
function position(content: string, offset: number): { line: number; column: number } {
  const before = content.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

export type { BlockPosition };

/** Positions of the blocks of a parsed HCL JSON body (from {@link parseHclJson}) in its text. Never throws. */
export function hclJsonPositions(content: string, json: Record<string, unknown>): BlockPosition[] {
  const out: BlockPosition[] = [];
  const find = (key: string, from: number): number => content.indexOf(JSON.stringify(key), from);
  const block = (type: string, labels: string[], at: number, body: unknown): void => {
    const attributes: Record<string, [number, number]> = {};
    if (isObject(body)) {
      for (const name of Object.keys(body)) {
        const index = find(name, at);
        if (index < 0) continue;
        const { line, column } = position(content, index);
        attributes[name] = [line, column];
      }
    }
    const { line, column } = position(content, at);
    out.push({ type, labels, line, column, attributes });
  };
  for (const [type, value] of Object.entries(json)) {
    const typeAt = find(type, 0);
    if (typeAt < 0) continue;
    if (UNLABELLED.has(type) && Array.isArray(value)) {
      for (const body of value) block(type, [], typeAt, body);
    } else if (LABELLED.has(type) && isObject(value)) {
      for (const [label, bodies] of Object.entries(value)) {
        const labelAt = find(label, typeAt);
        for (const body of Array.isArray(bodies) ? (bodies as unknown[]) : []) {
          block(type, [label], labelAt < 0 ? typeAt : labelAt, body);
        }
      }
    }
  }
  return out;
}
