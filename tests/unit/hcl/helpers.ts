import { BigNumber } from '../../../discover/hcl/number.js';
import {
  HclEvalError,
  Unknown,
  evaluateJson,
  evaluateSource,
  standardFunctions,
  type HclFunction,
  type LazyValue,
  type Scope,
  type Value,
} from '../../../discover/hcl/index.js';

/**
 * A value with every number a plain JavaScript number, for comparing with literals in tests: counts are cty's
 * 64-bit NumberIntVals and fractions 512-bit numbers (BigNumber), whose precision number.test.ts checks.
 */
export function plain(value: Value): unknown {
  if (value instanceof BigNumber) return value.toJSON();
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object' && !(value instanceof Unknown)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  }
  return value;
}

/** A scope with the pure built-ins plus the given variables and extra functions. */
export function scopeOf(variables: Record<string, LazyValue> = {}, functions: Record<string, HclFunction> = {}): Scope {
  return { variables, functions: { ...standardFunctions(), ...functions } };
}

/** Evaluates HCL expression source. */
export function run(
  source: string,
  variables: Record<string, LazyValue> = {},
  functions: Record<string, HclFunction> = {},
): Value {
  return evaluateSource(source, scopeOf(variables, functions));
}

/** Evaluates an hcl2json-style value. */
export function runJson(
  value: unknown,
  variables: Record<string, LazyValue> = {},
  functions: Record<string, HclFunction> = {},
): Value {
  return evaluateJson(value, scopeOf(variables, functions));
}

/** The HclEvalError an evaluation throws (fails the test when it does not throw one). */
export function failure(body: () => unknown): HclEvalError {
  try {
    body();
  } catch (error) {
    if (error instanceof HclEvalError) return error;
    throw error;
  }
  throw new Error('expected an HclEvalError, but evaluation succeeded');
}
