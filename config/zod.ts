/**
 * The parts of zod the configuration uses, from one place. The build replaces the compiled form of this file with a
 * bundle of just these parts (scripts/bundle-deps.ts): zod's own entry point loads some 220 modules, every locale
 * among them, which took 70 to 110 ms of every run that validates the configuration; the bundle takes about 20 ms.
 * Tests and `tsc` see the plain re-export below. Runtime code imports zod through this module only, so one copy of
 * zod is ever loaded; type-only imports may name zod directly.
 */
export {
  NEVER,
  array,
  boolean,
  discriminatedUnion,
  enum,
  literal,
  looseObject,
  number,
  record,
  strictObject,
  string,
  toJSONSchema,
  union,
  unknown,
  url,
} from 'zod';
export type { output } from 'zod';
