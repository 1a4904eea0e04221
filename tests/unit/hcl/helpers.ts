import {
  HclEvalError,
  evaluateJson,
  evaluateSource,
  standardFunctions,
  type HclFunction,
  type LazyValue,
  type Scope,
  type Value,
} from '../../../discover/hcl/index.js';

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
