/**
 * Reading the zod schema as a tree: which keys are allowed at a path (for did-you-mean on unknown keys), what a key
 * means (its description, for hints), and every key path the schema has (so a test can hold the example file to
 * "every key present"). zod 4 exposes its definitions under `_zod.def`; only the node kinds this schema uses are
 * followed.
 */
import type { z } from 'zod';
import type { KeyPath } from './errors.js';

type AnySchema = z.core.$ZodType;

interface Def {
  readonly type: string;
  readonly innerType?: AnySchema;
  readonly in?: AnySchema;
  readonly shape?: Record<string, AnySchema>;
  readonly valueType?: AnySchema;
  readonly element?: AnySchema;
  readonly options?: readonly AnySchema[];
  readonly discriminator?: string;
  readonly values?: readonly unknown[];
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

function defOf(schema: AnySchema): Def {
  return schema._zod.def;
}

function descriptionOf(schema: AnySchema): string | undefined {
  const description = (schema as { description?: unknown }).description;
  return typeof description === 'string' ? description : undefined;
}

/** Peels wrappers (optional, default, pipe's input side) off a schema, keeping the first description seen. */
function unwrap(schema: AnySchema): { schema: AnySchema; description: string | undefined } {
  let current = schema;
  let description = descriptionOf(current);
  for (;;) {
    const def = defOf(current);
    const next = WRAPPERS.has(def.type) ? def.innerType : def.type === 'pipe' ? def.in : undefined;
    if (!next) return { schema: current, description };
    current = next;
    description ??= descriptionOf(current);
  }
}

function isRecordLike(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The literal a discriminated-union option fixes its discriminator to. */
function discriminatorValue(option: AnySchema, discriminator: string): unknown {
  const field = defOf(option).shape?.[discriminator];
  if (!field) return undefined;
  return defOf(unwrap(field).schema).values?.[0];
}

/** The candidate schemas at `keyPath`, choosing union options by the data written there when it can. */
function schemasAt(
  root: AnySchema,
  keyPath: KeyPath,
  data: unknown,
): { schema: AnySchema; description?: string; data: unknown }[] {
  let current: { schema: AnySchema; description?: string; data: unknown }[] = [{ schema: root, data }];
  for (const part of keyPath) {
    const next: { schema: AnySchema; description?: string; data: unknown }[] = [];
    for (const candidate of current) {
      for (const option of expandUnion(candidate.schema, candidate.data)) {
        const def = defOf(option);
        const childData: unknown = isRecordLike(candidate.data)
          ? candidate.data[String(part)]
          : Array.isArray(candidate.data) && typeof part === 'number'
            ? candidate.data[part]
            : undefined;
        let child: AnySchema | undefined;
        if (def.type === 'object' && typeof part === 'string') child = def.shape?.[part];
        else if (def.type === 'record' && typeof part === 'string') child = def.valueType;
        else if (def.type === 'array' && typeof part === 'number') child = def.element;
        if (child) {
          const unwrapped = unwrap(child);
          next.push({
            schema: unwrapped.schema,
            data: childData,
            ...(unwrapped.description === undefined ? {} : { description: unwrapped.description }),
          });
        }
      }
    }
    current = next;
  }
  return current;
}

/** The options of a union (picked by discriminator when the data names one), or the schema itself. */
function expandUnion(schema: AnySchema, data: unknown): AnySchema[] {
  const plain = unwrap(schema).schema;
  const def = defOf(plain);
  if (def.type !== 'union' || !def.options) return [plain];
  const options = def.options.map((option) => unwrap(option).schema);
  if (def.discriminator !== undefined && isRecordLike(data)) {
    const discriminator = def.discriminator;
    const chosen = options.filter((option) => discriminatorValue(option, discriminator) === data[discriminator]);
    if (chosen.length > 0) return chosen;
  }
  return options;
}

/**
 * The keys an object at `keyPath` may have, or undefined when the schema has no object there. `data` is the whole
 * document; it picks the option of a discriminated union (a hook's `type`).
 */
export function allowedKeysAt(root: AnySchema, keyPath: KeyPath, data: unknown): string[] | undefined {
  const keys = new Set<string>();
  let found = false;
  for (const candidate of schemasAt(root, keyPath, data)) {
    for (const option of expandUnion(candidate.schema, candidate.data)) {
      const def = defOf(option);
      if (def.type === 'object' && def.shape) {
        found = true;
        for (const key of Object.keys(def.shape)) keys.add(key);
      }
    }
  }
  return found ? [...keys] : undefined;
}

/** The description the schema gives the key at `keyPath`, if any. */
export function describeKeyAt(root: AnySchema, keyPath: KeyPath, data: unknown): string | undefined {
  return schemasAt(root, keyPath, data).find((candidate) => candidate.description !== undefined)?.description;
}

/**
 * Every key path the schema defines: `*` stands for any record key and `[]` for any list item, and each option of a
 * union contributes its own keys (`hooks.[].min_free_ips`).
 */
export function schemaKeyPaths(root: AnySchema): string[][] {
  const out: string[][] = [];
  const walk = (schema: AnySchema, prefix: string[], depth: number): void => {
    if (depth > 20) return;
    for (const option of expandUnion(schema, undefined)) {
      const def = defOf(option);
      if (def.type === 'object' && def.shape) {
        for (const [key, child] of Object.entries(def.shape)) {
          out.push([...prefix, key]);
          walk(child, [...prefix, key], depth + 1);
        }
      } else if (def.type === 'record' && def.valueType) {
        walk(def.valueType, [...prefix, '*'], depth + 1);
      } else if (def.type === 'array' && def.element) {
        walk(def.element, [...prefix, '[]'], depth + 1);
      }
    }
  };
  walk(root, [], 0);
  // Union options share keys (every hook has `units`): list each path once.
  const seen = new Set<string>();
  return out.filter((keyPath) => {
    const key = keyPath.join('\u0000');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
