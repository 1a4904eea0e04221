/**
 * HCL's type system (cty's), on top of the plain JavaScript values the evaluator computes with.
 *
 * A JavaScript array is a tuple and a plain object is an object, unless it is registered as a list, set or map
 * (with its element type) here. Primitives carry their type (string, number, bool); null and Unknown are of the
 * dynamic type. With the types known, equality, conversion and unification follow cty's rules:
 *
 * - `==` is true only between values of the same type: `tolist([1]) == [1]` is false (list vs tuple), and
 *   `{a = 1} == tomap({a = 1})` is false (object vs map).
 * - Conversion (to a function's parameter type, by `tolist`/`toset`/`tomap`, to a conditional's result type):
 *   number and bool become strings safely; strings become numbers ("12") and bools ("true", "1") only when asked
 *   to (cty calls those unsafe); a tuple becomes a list of the unified element type, an object a map.
 * - Unification (a conditional's two results, `tolist`'s elements): the most general type every input converts to,
 *   strings preferred among primitives; tuples of different lengths become lists, objects with different
 *   attributes maps.
 */
import { Unknown, compareStrings, formatNumber, hasKey, isObject, setKey } from './values.js';
import type { Value, ValueObject } from './values.js';
import { BigNumber, compare, isNum, numbersEqual, parseNumber as parseNum } from './number.js';
import type { Num } from './number.js';

/** A cty type. Primitive types are strings; the rest are small objects. */
export type Type =
  | 'string'
  | 'number'
  | 'bool'
  | 'dynamic'
  | { readonly list: Type }
  | { readonly set: Type }
  | { readonly map: Type }
  | { readonly tuple: readonly Type[] }
  | { readonly object: Readonly<Record<string, Type>> };

type CollectionKind = 'list' | 'set' | 'map';

/** Arrays registered as lists or sets, objects registered as maps, with their element type. */
const collections = new WeakMap<object, { readonly kind: CollectionKind; readonly element: Type }>();

/** Marks `items` as a list of `element` (the array is returned, not copied). */
export function asList(items: Value[], element?: Type): Value[] {
  collections.set(items, { kind: 'list', element: element ?? elementTypeOf(items) });
  return items;
}

/** Marks `items` (already distinct and in set order) as a set of `element`. */
export function asSetValue(items: Value[], element?: Type): Value[] {
  collections.set(items, { kind: 'set', element: element ?? elementTypeOf(items) });
  return items;
}

/** Marks `object` as a map of `element`. */
export function asMap(object: ValueObject, element?: Type): ValueObject {
  collections.set(object, { kind: 'map', element: element ?? elementTypeOf(Object.values(object)) });
  return object;
}

/** 'list', 'set', 'map', 'tuple' or 'object' for a collection value; undefined otherwise. */
export function collectionKind(value: Value): CollectionKind | 'tuple' | 'object' | undefined {
  if (Array.isArray(value))
    return collections.get(value)?.kind === 'set' ? 'set' : (collections.get(value)?.kind ?? 'tuple');
  if (isObject(value)) return collections.has(value) ? 'map' : 'object';
  return undefined;
}

function elementTypeOf(items: readonly Value[]): Type {
  if (items.length === 0) return 'dynamic';
  return unify(items.map(typeOf), true) ?? 'dynamic';
}

/** The type of a value. */
export function typeOf(value: Value): Type {
  if (value === null || value instanceof Unknown) return 'dynamic';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number' || value instanceof BigNumber) return 'number';
  if (typeof value === 'boolean') return 'bool';
  const tag = collections.get(value);
  if (Array.isArray(value)) {
    if (tag?.kind === 'list') return { list: tag.element };
    if (tag?.kind === 'set') return { set: tag.element };
    return { tuple: value.map(typeOf) };
  }
  if (tag?.kind === 'map') return { map: tag.element };
  const object: Record<string, Type> = {};
  for (const key of Object.keys(value)) object[key] = typeOf(value[key] as Value);
  return { object };
}

/** True for the same type (attribute order does not matter). */
export function sameType(a: Type, b: Type): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if ('list' in a) return 'list' in b && sameType(a.list, b.list);
  if ('set' in a) return 'set' in b && sameType(a.set, b.set);
  if ('map' in a) return 'map' in b && sameType(a.map, b.map);
  if ('tuple' in a) {
    return (
      'tuple' in b && a.tuple.length === b.tuple.length && a.tuple.every((t, i) => sameType(t, b.tuple[i] as Type))
    );
  }
  if (!('object' in b)) return false;
  const keys = Object.keys(a.object);
  if (keys.length !== Object.keys(b.object).length) return false;
  return keys.every((k) => hasKey(b.object as ValueObject, k) && sameType(a.object[k] as Type, b.object[k] as Type));
}

/** The type as cty names it in messages ("list of string", "tuple", "object"). */
export function typeLabel(type: Type): string {
  if (typeof type === 'string') return type === 'dynamic' ? 'any' : type;
  if ('list' in type) return `list of ${typeLabel(type.list)}`;
  if ('set' in type) return `set of ${typeLabel(type.set)}`;
  if ('map' in type) return `map of ${typeLabel(type.map)}`;
  if ('tuple' in type) return 'tuple';
  return 'object';
}

function isPrimitive(type: Type): type is 'string' | 'number' | 'bool' {
  return type === 'string' || type === 'number' || type === 'bool';
}

function kindOf(type: Type): 'primitive' | 'dynamic' | 'list' | 'set' | 'map' | 'tuple' | 'object' {
  if (type === 'dynamic') return 'dynamic';
  if (typeof type === 'string') return 'primitive';
  if ('list' in type) return 'list';
  if ('set' in type) return 'set';
  if ('map' in type) return 'map';
  if ('tuple' in type) return 'tuple';
  return 'object';
}

function elementOf(type: Type): Type {
  if (typeof type === 'string') return 'dynamic';
  if ('list' in type) return type.list;
  if ('set' in type) return type.set;
  if ('map' in type) return type.map;
  return 'dynamic';
}

// --- conversion ------------------------------------------------------------------------------------------

/** A value cannot be converted to a type; the message says why, in cty's words. */
export class ConversionError extends Error {
  override readonly name = 'ConversionError';
}

/**
 * Whether a conversion from `from` to `to` exists at all (the type-level check unification makes). An unsafe
 * conversion (string to number or bool) may still fail for a particular value.
 */
export function canConvert(from: Type, to: Type, unsafe: boolean): boolean {
  if (to === 'dynamic' || from === 'dynamic' || sameType(from, to)) return true;
  if (isPrimitive(to)) {
    if (!isPrimitive(from)) return false;
    if (to === 'string') return true;
    return unsafe && from === 'string';
  }
  if (typeof from === 'string') return false;
  const toKind = kindOf(to);
  const fromKind = kindOf(from);
  if (toKind === 'list' || toKind === 'set') {
    const element = elementOf(to);
    if (fromKind === 'list' || fromKind === 'set') return canConvert(elementOf(from), element, unsafe);
    if (fromKind === 'tuple') {
      const items = (from as { tuple: readonly Type[] }).tuple;
      if (items.length === 0) return true;
      if (element === 'dynamic') {
        // cty (conversionTupleToList/Set) finds one element type; when that is still dynamic, only a tuple of dynamic
        // items converts: `[{ a = 1 }, null]` is no list (a null is dynamic, the object is not).
        const unified = unify(items, unsafe);
        return unified !== undefined && (unified !== 'dynamic' || items.every((t) => t === 'dynamic'));
      }
      return items.every((t) => canConvert(t, element, unsafe));
    }
    return false;
  }
  if (toKind === 'map') {
    const element = elementOf(to);
    if (fromKind === 'map') return canConvert(elementOf(from), element, unsafe);
    if (fromKind === 'object') {
      const attrs = Object.values((from as { object: Record<string, Type> }).object);
      if (attrs.length === 0) return true;
      if (element === 'dynamic') return unify(attrs, unsafe) !== undefined;
      return attrs.every((t) => canConvert(t, element, unsafe));
    }
    return false;
  }
  if (toKind === 'tuple') {
    const want = (to as { tuple: readonly Type[] }).tuple;
    if (fromKind === 'tuple') {
      const have = (from as { tuple: readonly Type[] }).tuple;
      return have.length === want.length && have.every((t, i) => canConvert(t, want[i] as Type, unsafe));
    }
    // Only a tuple converts to a tuple: cty has no conversion from a list or set (convert.getConversion), so
    // unifying a tuple with a set skips the tuple and takes the set (`true ? [1] : toset(["a"])` is a set of
    // strings).
    return false;
  }
  if (toKind === 'object') {
    const want = (to as { object: Record<string, Type> }).object;
    if (fromKind === 'object') {
      const have = (from as { object: Record<string, Type> }).object;
      return Object.keys(want).every(
        (k) => hasKey(have as ValueObject, k) && canConvert(have[k] as Type, want[k] as Type, unsafe),
      );
    }
    // A map converts to an object when its element type converts to every attribute type.
    if (fromKind === 'map') return Object.values(want).every((t) => canConvert(elementOf(from), t, unsafe));
    return false;
  }
  return false;
}

/** cty's string-to-number parse (cty.ParseNumberVal): decimal notation, no spaces, no hex; see number.ts. */
export function parseNumber(text: string): Num | undefined {
  return parseNum(text);
}

/**
 * Converts a value to a type, as cty.convert does (`unsafe` allows string to number and bool). Throws a
 * {@link ConversionError}. Unknowns inside pass through.
 */
export function convert(value: Value, to: Type, unsafe = true): Value {
  if (value === null || value instanceof Unknown || to === 'dynamic') return value;
  const from = typeOf(value);
  if (sameType(from, to)) return value;
  if (isPrimitive(to)) return convertPrimitive(value, to, unsafe);
  if (typeof value !== 'object' || value instanceof BigNumber) throw new ConversionError(`${typeLabel(to)} required`);
  const toKind = kindOf(to);
  if (toKind === 'list' || toKind === 'set') {
    if (!Array.isArray(value)) throw new ConversionError(`${typeLabel(to)} required`);
    let element = elementOf(to);
    if (element === 'dynamic' && kindOf(from) === 'tuple' && value.length > 0) {
      const items = (from as { tuple: readonly Type[] }).tuple;
      const unified = unify(items, unsafe);
      // Still dynamic: a list of any type only when every item is (a null beside an object is no list), as in cty.
      if (unified === undefined || (unified === 'dynamic' && items.some((t) => t !== 'dynamic')))
        throw new ConversionError('all elements must have the same type');
      element = unified;
    } else if (element === 'dynamic') {
      element = elementOf(from);
    }
    const items = value.map((item) => convert(item, element, unsafe));
    return toKind === 'list' ? asList(items, element) : asSetValue(setOrder(items), element);
  }
  if (toKind === 'map') {
    if (!isObject(value)) throw new ConversionError(`${typeLabel(to)} required`);
    let element = elementOf(to);
    if (element === 'dynamic' && kindOf(from) === 'object') {
      const attrs = Object.values((from as { object: Record<string, Type> }).object);
      if (attrs.length > 0) {
        const unified = unify(attrs, unsafe);
        if (unified === undefined) throw new ConversionError('all map elements must have the same type');
        element = unified;
      }
    } else if (element === 'dynamic') {
      element = elementOf(from);
    }
    const out: ValueObject = {};
    for (const key of Object.keys(value)) setKey(out, key, convert(value[key] as Value, element, unsafe));
    return asMap(out, element);
  }
  if (toKind === 'tuple') {
    const want = (to as { tuple: readonly Type[] }).tuple;
    if (!Array.isArray(value) || kindOf(from) !== 'tuple' || value.length !== want.length)
      throw new ConversionError(`tuple required`);
    return value.map((item, i) => convert(item, want[i] as Type, unsafe));
  }
  const want = (to as { object: Record<string, Type> }).object;
  if (!isObject(value)) throw new ConversionError('object required');
  const out: ValueObject = {};
  for (const key of Object.keys(want)) {
    if (!hasKey(value, key)) throw new ConversionError(`attribute "${key}" is required`);
    setKey(out, key, convert(value[key] as Value, want[key] as Type, unsafe));
  }
  return out;
}

function convertPrimitive(value: Value, to: 'string' | 'number' | 'bool', unsafe: boolean): Value {
  if (to === 'string') {
    if (isNum(value)) return formatNumber(value);
    if (typeof value === 'boolean') return value ? 'true' : 'false';
    throw new ConversionError('string required');
  }
  if (typeof value === 'string' && unsafe) {
    if (to === 'number') {
      const number = parseNumber(value);
      if (number === undefined) throw new ConversionError('a number is required');
      return number;
    }
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    const lower = value.toLowerCase();
    if (lower === 'true' || lower === 'false') {
      throw new ConversionError(`a bool is required; to convert from string, use lowercase "${lower}"`);
    }
    throw new ConversionError('a bool is required');
  }
  throw new ConversionError(`${to} required`);
}

// --- unification -----------------------------------------------------------------------------------------

/** cty's preference between two types when unifying: negative when `a` is the more general. */
function compareTypes(a: Type, b: Type): number {
  if (a === 'dynamic' || b === 'dynamic') {
    if (a !== 'dynamic') return -1;
    if (b !== 'dynamic') return 1;
    return 0;
  }
  if (isPrimitive(a) && isPrimitive(b)) {
    if (a === 'string' || b === 'string') {
      if (a !== 'string') return 1;
      if (b !== 'string') return -1;
    }
    return 0;
  }
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === kb && (ka === 'list' || ka === 'set' || ka === 'map')) return compareTypes(elementOf(a), elementOf(b));
  let [x, y, swap] = [a, b, 1];
  if (
    (ka === 'tuple' && kb === 'list') ||
    (ka === 'object' && kb === 'map') ||
    (ka === 'set' && (kb === 'tuple' || kb === 'list'))
  ) {
    [x, y, swap] = [b, a, -1];
  }
  const kx = kindOf(x);
  const ky = kindOf(y);
  if (ky === 'set' && (kx === 'tuple' || kx === 'list')) return -swap;
  if (kx === 'list' && ky === 'tuple') return -swap;
  if (kx === 'map' && ky === 'object') return -swap;
  return 0;
}

/** cty's topological preference order over the input types (indices). */
function preferenceOrder(types: readonly Type[]): number[] {
  const edges: number[][] = types.map(() => []);
  for (let i = 0; i < types.length - 1; i++) {
    for (let j = i + 1; j < types.length; j++) {
      const cmp = compareTypes(types[i] as Type, types[j] as Type);
      if (cmp < 0) edges[i]?.push(j);
      else if (cmp > 0) edges[j]?.push(i);
    }
  }
  const inDegree = types.map(() => 0);
  for (const outs of edges) for (const j of outs) inDegree[j] = (inDegree[j] ?? 0) + 1;
  const order: number[] = [];
  inDegree.forEach((n, i) => {
    if (n === 0) order.push(i);
  });
  for (let at = 0; at < order.length; at++) {
    for (const j of edges[order[at] as number] ?? []) {
      inDegree[j] = (inDegree[j] ?? 0) - 1;
      if (inDegree[j] === 0) order.push(j);
    }
  }
  return order;
}

/** The type all of `types` convert to, as cty.convert.Unify(Unsafe) finds it; undefined when there is none. */
export function unify(types: readonly Type[], unsafe: boolean): Type | undefined {
  if (types.length === 0) return undefined;
  const count = { map: 0, list: 0, set: 0, object: 0, tuple: 0, dynamic: 0 };
  for (const type of types) {
    const kind = kindOf(type);
    if (kind !== 'primitive') count[kind] += 1;
  }
  const n = types.length;
  const dynamic = count.dynamic > 0;
  if (count.map > 0 && count.map + count.dynamic === n)
    return dynamic ? 'dynamic' : unifyCollections('map', types, unsafe);
  if (count.map > 0 && count.map + count.object + count.dynamic === n) {
    const asMaps = unifyObjectsToMap(types, unsafe);
    if (asMaps !== undefined) return asMaps;
  } else if (count.list > 0 && count.list + count.dynamic === n) {
    return dynamic ? 'dynamic' : unifyCollections('list', types, unsafe);
  } else if (count.list > 0 && count.list + count.tuple + count.dynamic === n) {
    const asList = unifyTuplesToList(types, unsafe);
    if (asList !== undefined) return asList;
  } else if (count.set > 0 && count.set + count.dynamic === n) {
    return dynamic ? 'dynamic' : unifyCollections('set', types, unsafe);
  } else if (count.object > 0 && count.object + count.dynamic === n) {
    return dynamic ? 'dynamic' : unifyObjects(types, unsafe);
  } else if (count.tuple > 0 && count.tuple + count.dynamic === n) {
    return dynamic ? 'dynamic' : unifyTuples(types, unsafe);
  } else if (count.object > 0 && count.tuple > 0) {
    return undefined;
  }
  for (const want of preferenceOrder(types)) {
    const target = types[want] as Type;
    if (types.every((type, i) => i === want || sameType(type, target) || canConvert(type, target, unsafe)))
      return target;
  }
  return undefined;
}

function unifyCollections(kind: 'list' | 'set' | 'map', types: readonly Type[], unsafe: boolean): Type | undefined {
  const element = unify(types.map(elementOf), unsafe);
  if (element === undefined) return undefined;
  const result: Type = kind === 'list' ? { list: element } : kind === 'set' ? { set: element } : { map: element };
  return types.every((t) => canConvert(t, result, unsafe)) ? result : undefined;
}

function attributesOf(type: Type): Readonly<Record<string, Type>> {
  return typeof type === 'object' && 'object' in type ? type.object : {};
}

function tupleItems(type: Type): readonly Type[] {
  return typeof type === 'object' && 'tuple' in type ? type.tuple : [];
}

function unifyObjectsToMap(types: readonly Type[], unsafe: boolean): Type | undefined {
  const objects = types.filter((t) => kindOf(t) === 'object');
  const attrs = objects.flatMap((t) => Object.values(attributesOf(t)));
  const element = unify(attrs, unsafe);
  if (element === undefined) return undefined;
  const mapped = types.map((t) => (kindOf(t) === 'object' ? { map: element } : t));
  const result = unify(mapped, unsafe);
  return result !== undefined && kindOf(result) === 'map' ? result : undefined;
}

function unifyTuplesToList(types: readonly Type[], unsafe: boolean): Type | undefined {
  const tuples = types.filter((t) => kindOf(t) === 'tuple');
  const element = unify(
    tuples.flatMap((t) => tupleItems(t)),
    unsafe,
  );
  if (element === undefined) return undefined;
  // Each tuple must convert to that list, as cty's unifyTupleTypesToList asks.
  const list: Type = { list: element };
  if (!tuples.every((t) => canConvert(t, list, unsafe))) return undefined;
  const listed = types.map((t) => (kindOf(t) === 'tuple' ? list : t));
  const result = unify(listed, unsafe);
  return result !== undefined && kindOf(result) === 'list' ? result : undefined;
}

function unifyObjects(types: readonly Type[], unsafe: boolean): Type | undefined {
  const first = attributesOf(types[0] as Type);
  const names = Object.keys(first);
  for (const type of types.slice(1)) {
    const attrs = attributesOf(type);
    if (Object.keys(attrs).length !== names.length || !names.every((k) => hasKey(attrs as ValueObject, k))) {
      return unifyObjectsAsMapOnly(types, unsafe);
    }
  }
  const object: Record<string, Type> = {};
  for (const name of names) {
    const unified = unify(
      types.map((t) => attributesOf(t)[name] as Type),
      unsafe,
    );
    if (unified === undefined) return undefined;
    object[name] = unified;
  }
  const result: Type = { object };
  return types.every((t) => canConvert(t, result, unsafe)) ? result : unifyObjectsAsMapOnly(types, unsafe);
}

function unifyObjectsAsMapOnly(types: readonly Type[], unsafe: boolean): Type | undefined {
  const element = unify(
    types.flatMap((t) => Object.values(attributesOf(t))),
    unsafe,
  );
  if (element === undefined) return undefined;
  const result: Type = { map: element };
  return types.every((t) => canConvert(t, result, unsafe)) ? result : undefined;
}

function unifyTuples(types: readonly Type[], unsafe: boolean): Type | undefined {
  const length = tupleItems(types[0] as Type).length;
  if (types.some((t) => tupleItems(t).length !== length)) return unifyTuplesAsListOnly(types, unsafe);
  const items: Type[] = [];
  for (let i = 0; i < length; i++) {
    const unified = unify(
      types.map((t) => tupleItems(t)[i] as Type),
      unsafe,
    );
    if (unified === undefined) return undefined;
    items.push(unified);
  }
  const result: Type = { tuple: items };
  return types.every((t) => canConvert(t, result, unsafe)) ? result : unifyTuplesAsListOnly(types, unsafe);
}

function unifyTuplesAsListOnly(types: readonly Type[], unsafe: boolean): Type | undefined {
  const element = unify(
    types.flatMap((t) => tupleItems(t)),
    unsafe,
  );
  if (element === undefined) return undefined;
  const result: Type = { list: element };
  return types.every((t) => canConvert(t, result, unsafe)) ? result : undefined;
}

// --- sets and equality -------------------------------------------------------------------------------------

/**
 * Distinct elements in cty's set order: numbers ascending, strings lexically (by UTF-8 bytes, which UTF-16 order
 * matches outside astral characters), false before true; other elements keep their first-seen order.
 */
export function setOrder(items: readonly Value[]): Value[] {
  const unique: Value[] = [];
  for (const item of items) {
    if (!unique.some((seen) => equals(seen, item) === true)) unique.push(item);
  }
  if (unique.every(isNum)) return unique.sort(compare);
  if (unique.every((item) => typeof item === 'string')) return unique.sort(compareStrings);
  if (unique.every((item) => typeof item === 'boolean')) return unique.sort((a, b) => Number(a) - Number(b));
  return unique;
}

/**
 * cty's equality: values of different types are never equal (`1 == "1"`, a list and a tuple); nulls of any type
 * are equal; numbers are equal when they print the same. An Unknown makes the answer unknown.
 */
export function equals(a: Value, b: Value): boolean | Unknown {
  if (a instanceof Unknown) return a;
  if (b instanceof Unknown) return b;
  if (a === null || b === null) return a === b;
  if (!sameType(typeOf(a), typeOf(b))) return false;
  if (isNum(a)) return numbersEqual(a, b as Num);
  if (typeof a !== 'object') return a === b;
  if (Array.isArray(a)) {
    const other = b as Value[];
    if (a.length !== other.length) return false;
    const set = collectionKind(a) === 'set';
    let pending: Unknown | undefined;
    for (let i = 0; i < a.length; i++) {
      const result = set
        ? other.some((o) => equals(a[i] as Value, o) === true)
        : equals(a[i] as Value, other[i] as Value);
      if (result === false) return false;
      if (result instanceof Unknown) pending ??= result;
    }
    return pending ?? true;
  }
  const other = b as ValueObject;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(other).length) return false;
  let pending: Unknown | undefined;
  for (const key of keys) {
    if (!hasKey(other, key)) return false;
    const result = equals(a[key] as Value, other[key] as Value);
    if (result === false) return false;
    if (result instanceof Unknown) pending ??= result;
  }
  return pending ?? true;
}
