/** `ArgsOf`, where the verbs import it from: options are declared in config/command-line/grammar.ts. */
export type { ArgsOf } from '../config/command-line/grammar.js';
