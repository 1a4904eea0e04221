/**
 * A small validator with the shape of the part of zod's API the state file's schema uses (`looseObject`, `record`,
 * `array`, `enum`, `literal`, `string().min()`, `number().int().nonnegative()/.positive()`, `boolean`, `.optional()`,
 * `safeParse`), and zod 4's rules and English messages for exactly that part.
 *
 * Why not zod itself: loading zod costs about as much as starting Node, and `platctl status` (and every run that
 * reads the state) would pay it for one small JSON file. The state schema in engine/state.ts is written against this
 * module instead, unchanged; tests/unit/engine/light-schema.test.ts checks that it accepts and rejects what zod does,
 * with the same first issue (path and message), so the errors people see did not change.
 *
 * Like zod, objects are checked key by key in the schema's order, records and arrays in the input's order, and a
 * number's checks in the order they were added; only the first issue is collected (platctl reports one).
 */

export interface Issue {
  readonly path: (string | number)[];
  readonly message: string;
}

export type SafeParseResult =
  | { readonly success: true; readonly data: unknown }
  | { readonly success: false; readonly error: { readonly issues: readonly Issue[] } };

type Check = (value: unknown, path: (string | number)[]) => Issue | undefined;

/** zod's name for a value's type, as its messages print it. */
function received(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? 'number' : String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function invalidType(expected: string, value: unknown, path: (string | number)[]): Issue {
  return { path, message: `Invalid input: expected ${expected}, received ${received(value)}` };
}

function stringify(value: string | number | boolean): string {
  return typeof value === 'string' ? `"${value}"` : String(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class Schema {
  readonly #check: Check;
  readonly isOptional: boolean;

  constructor(check: Check, isOptional = false) {
    this.#check = check;
    this.isOptional = isOptional;
  }

  /** The first issue, or undefined when `value` is valid. */
  check(value: unknown, path: (string | number)[] = []): Issue | undefined {
    if (value === undefined && this.isOptional) return undefined;
    return this.#check(value, path);
  }

  optional(): Schema {
    return new Schema(this.#check, true);
  }

  safeParse(value: unknown): SafeParseResult {
    const issue = this.check(value);
    return issue === undefined ? { success: true, data: value } : { success: false, error: { issues: [issue] } };
  }
}

/** `number()`: finite numbers; `.int()`, `.nonnegative()`, `.positive()` add checks in the order they are called. */
export class NumberSchema extends Schema {
  readonly #checks: readonly ((value: number) => string | undefined)[];

  constructor(checks: readonly ((value: number) => string | undefined)[] = []) {
    super((value, path) => {
      if (typeof value !== 'number' || !Number.isFinite(value)) return invalidType('number', value, path);
      for (const check of checks) {
        const message = check(value);
        if (message !== undefined) return { path, message };
      }
      return undefined;
    });
    this.#checks = checks;
  }

  int(): NumberSchema {
    return new NumberSchema([
      ...this.#checks,
      (value) => {
        if (!Number.isInteger(value)) return 'Invalid input: expected int, received number';
        if (value > Number.MAX_SAFE_INTEGER) return `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`;
        if (value < Number.MIN_SAFE_INTEGER) return `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}`;
        return undefined;
      },
    ]);
  }

  nonnegative(): NumberSchema {
    return new NumberSchema([
      ...this.#checks,
      (value) => (value >= 0 ? undefined : 'Too small: expected number to be >=0'),
    ]);
  }

  positive(): NumberSchema {
    return new NumberSchema([
      ...this.#checks,
      (value) => (value > 0 ? undefined : 'Too small: expected number to be >0'),
    ]);
  }
}

/** `string()`, and `.min(n)` characters. */
export class StringSchema extends Schema {
  constructor(min = 0) {
    super((value, path) => {
      if (typeof value !== 'string') return invalidType('string', value, path);
      if (value.length < min) return { path, message: `Too small: expected string to have >=${min} characters` };
      return undefined;
    });
  }

  min(length: number): StringSchema {
    return new StringSchema(length);
  }
}

export const z = {
  string: (): StringSchema => new StringSchema(),
  number: (): NumberSchema => new NumberSchema(),
  boolean: (): Schema =>
    new Schema((value, path) => (typeof value === 'boolean' ? undefined : invalidType('boolean', value, path))),
  literal: (expected: string | number | boolean): Schema =>
    new Schema((value, path) =>
      value === expected ? undefined : { path, message: `Invalid input: expected ${stringify(expected)}` },
    ),
  enum: (values: readonly string[]): Schema =>
    new Schema((value, path) =>
      typeof value === 'string' && values.includes(value)
        ? undefined
        : { path, message: `Invalid option: expected one of ${values.map(stringify).join('|')}` },
    ),
  array: (element: Schema): Schema =>
    new Schema((value, path) => {
      if (!Array.isArray(value)) return invalidType('array', value, path);
      for (let i = 0; i < value.length; i += 1) {
        const issue = element.check(value[i], [...path, i]);
        if (issue) return issue;
      }
      return undefined;
    }),
  /** Keys are strings in JSON, so only the values are checked (as zod does for `record(z.string(), value)`). */
  record: (_key: StringSchema, element: Schema): Schema =>
    new Schema((value, path) => {
      if (!isPlainObject(value)) return invalidType('record', value, path);
      for (const key of Object.keys(value)) {
        const issue = element.check(value[key], [...path, key]);
        if (issue) return issue;
      }
      return undefined;
    }),
  /** An object with these keys checked and any other key kept as it is. */
  looseObject: (shape: Readonly<Record<string, Schema>>): Schema =>
    new Schema((value, path) => {
      if (!isPlainObject(value)) return invalidType('object', value, path);
      for (const [key, schema] of Object.entries(shape)) {
        const issue = schema.check(Object.hasOwn(value, key) ? value[key] : undefined, [...path, key]);
        if (issue) return issue;
      }
      return undefined;
    }),
};
