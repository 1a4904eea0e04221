/**
 * Reading a configuration document as written, before the schema has checked it: each helper answers for a value of
 * the shape it expects and gives an empty answer for anything else, so a check can walk the document without
 * throwing on a wrong shape (the schema reports that).
 */

/** A mapping (a YAML map, a JSON object), not a list or a scalar. */
export type Json = Record<string, unknown>;

/** Whether `value` is a mapping. */
export function isMap(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A mapping's key/value pairs, or none when `value` is not a mapping. */
export function entries(value: unknown): [string, unknown][] {
  return isMap(value) ? Object.entries(value) : [];
}

/** A list's items, or none when `value` is not a list. */
export function items(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
