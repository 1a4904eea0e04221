/**
 * The parts of zod platctl uses, from one place: the configuration, the run state, the lock file and every other file
 * read from disk or the bucket are validated with it. The build replaces the compiled form of this file with a
 * bundle of just these parts (scripts/bundle-deps.ts): zod's own entry point loads some 220 modules, every locale
 * among them, which took 70 to 110 ms of every run that validates the configuration; the bundle takes about 20 ms.
 * Tests and `tsc` see the plain re-export below. Runtime code imports zod through this module only, so one copy of
 * zod is ever loaded; type-only imports may name zod directly.
 */
import { config } from 'zod';

// platctl parses each file once per process: zod's compiled fast path (built with `new Function` on the first parse
// of each object schema) costs more to build than one parse saves: a 25-unit state file parsed in 8.7 ms without it,
// 21.5 ms with it (the same for 1,000 units), measured side by side on a loaded machine.
config({ jitless: true });

export {
  NEVER,
  array,
  boolean,
  discriminatedUnion,
  enum,
  literal,
  looseObject,
  number,
  object,
  record,
  strictObject,
  string,
  toJSONSchema,
  union,
  unknown,
  url,
} from 'zod';
export type { ZodType, output } from 'zod';
