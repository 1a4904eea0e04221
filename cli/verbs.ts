/**
 * Every verb platctl knows, in the order `--help` lists them. Add a verb by writing `cli/<verb>.ts` that exports a
 * `Verb` and listing it here.
 */
import type { Verb } from './verb.js';
import { configVerb } from './config.js';
import { graphVerb } from './graph.js';
import { bootstrapVerb } from './bootstrap.js';
import { teardownVerb } from './teardown.js';
import { statusVerb } from './status.js';
import { validateVerb } from './validate.js';
import { kubeconfigVerb } from './kubeconfig.js';
import { accessVerb } from './access.js';
import { downVerb } from './down.js';
import { upVerb } from './up.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each verb has its own argument type
export const VERBS: Verb<any>[] = [
  graphVerb,
  bootstrapVerb,
  teardownVerb,
  statusVerb,
  validateVerb,
  kubeconfigVerb,
  accessVerb,
  downVerb,
  upVerb,
  configVerb,
];
