/** `ArgsOf`, where the verbs import it from: options are declared in config/command-line/options.ts. */
export type { ArgsOf } from '../config/command-line/options.js';
