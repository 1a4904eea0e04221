/**
 * Number literals hcl2json has rounded. hcl2json writes a literal that stands alone (`n = 12345678901234567890`, an
 * element of a literal tuple or object, `"${100000000000000000000000}"`) as a JSON number, which has already been
 * through a float64: 12345678901234567890 arrives as 12345678901234567000, 9007199254740993 as 9007199254740992.
 * OpenTofu reads the literal's digits at 512 bits. Where the JSON holds a number that may have lost digits (an
 * integer beyond 2^53, or a fraction of 16 or more significant digits), the attribute's JSON value is replaced by
 * its source text as one interpolation (`${[12345678901234567890, 7]}`), which the evaluator parses itself and which
 * evaluates to the same value and type (a whole-string interpolation keeps its type). Files without such numbers
 * are returned as they are, without scanning their source.
 */
import { outlineBody } from './outline.js';
import type { OutlineAttribute, OutlineBlock } from './outline.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a float64 may be a rounded literal: beyond 2^53, or printed with 16 or more significant digits. */
export function mayHaveLostDigits(n: number): boolean {
  if (!Number.isFinite(n) || Number.isSafeInteger(n)) return false;
  if (Number.isInteger(n)) return true;
  const digits = String(n).replace(/e.*$/, '').replace(/[-.]/g, '').replace(/^0+/, '');
  return digits.length >= 16;
}

/** Whether the value holds such a number; walked with plain loops (no array of values per object, no closure). */
function hasLossyNumber(value: unknown): boolean {
  if (typeof value === 'number') return mayHaveLostDigits(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (hasLossyNumber(item)) return true;
    return false;
  }
  for (const key in value) {
    if (hasLossyNumber((value as Json)[key])) return true;
  }
  return false;
}

function restoreAttributes(body: Json, attributes: readonly OutlineAttribute[]): Json {
  let out = body;
  for (const attribute of attributes) {
    if (!Object.prototype.hasOwnProperty.call(body, attribute.name)) continue;
    if (!hasLossyNumber(body[attribute.name])) continue;
    if (out === body) out = { ...body };
    out[attribute.name] = `\${${attribute.source}}`;
  }
  return out;
}

function restoreBlocks(body: Json, blocks: readonly OutlineBlock[]): Json {
  let out = body;
  const occurrences = new Map<string, number>();
  for (const block of blocks) {
    const key = JSON.stringify([block.type, ...block.labels]);
    const occurrence = occurrences.get(key) ?? 0;
    occurrences.set(key, occurrence + 1);
    // hcl2json nests a block as {type: {label: {label: [body, body, ...]}}}, one body per occurrence.
    const path = [block.type, ...block.labels];
    let node: unknown = out;
    for (const step of path) node = isRecord(node) ? node[step] : undefined;
    if (!Array.isArray(node) || !isRecord(node[occurrence]) || !hasLossyNumber(node[occurrence])) continue;
    const inner = node[occurrence];
    const restored = restoreBlocks(restoreAttributes(inner, block.attributes), block.blocks);
    if (restored === inner) continue;
    // Copy the path down to the body, so the parser's (cached) JSON is never changed.
    if (out === body) out = { ...body };
    let parent: Json = out;
    for (const step of path.slice(0, -1)) {
      const copy = { ...(parent[step] as Json) };
      parent[step] = copy;
      parent = copy;
    }
    const last = path[path.length - 1] as string;
    const bodies = [...(parent[last] as unknown[])];
    bodies[occurrence] = restored;
    parent[last] = bodies;
  }
  return out;
}

/**
 * JSON the fast file parser built and saw no such number in (it checks each number it writes): most files, whose JSON
 * then need not be walked again. Walking every file's JSON for numbers cost a cold run of 5,000 units about 20 ms.
 */
const WITHOUT_LOSSY_NUMBERS = new WeakSet<Json>();

/** Records that the parser that built `json` wrote no number into it that may have lost digits. */
export function markWithoutLossyNumbers(json: Json): void {
  WITHOUT_LOSSY_NUMBERS.add(json);
}

/**
 * The file's hcl2json output with every attribute that holds a possibly rounded number literal replaced by its
 * source as an interpolation; the same object when there is none.
 */
export function restoreNumberLiterals(json: Json, content: string): Json {
  if (WITHOUT_LOSSY_NUMBERS.has(json) || !hasLossyNumber(json)) return json;
  const outline = outlineBody(content);
  return restoreBlocks(restoreAttributes(json, outline.attributes), outline.blocks);
}
