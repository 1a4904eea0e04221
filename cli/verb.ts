/**
 * The contract between `cli/main.ts` and each verb module: a verb declares its options as data (`cli/args.ts`), and
 * runs with arguments that were parsed and checked in full and an injected `CliIo`, returning the process exit code.
 * Only `cli/` touches `process`.
 */
import type { ActionSpec, ArgsOf, OptionSpecs, ParsedArgs, SelectiveGlobal } from './args.js';

/** Exit codes (README.md, docs/architecture.md): the only numbers a verb returns. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  refused: 3,
  /** `status` only: an environment is parked, and nothing else is wrong (README, exit codes). */
  parked: 4,
  /** An exception reached the top: a bug in platctl (EX_SOFTWARE in sysexits.h). */
  bug: 70,
  sigint: 130,
  sigterm: 143,
} as const;

/** Options every verb accepts (declared in `GLOBAL_OPTIONS`). */
export interface GlobalOptions {
  config?: string | undefined;
  env?: string[] | undefined;
  json?: boolean | undefined;
  color?: boolean | undefined;
  verbose?: boolean | undefined;
}

/** Where a verb reads and writes: injected so tests drive verbs in-process. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** True when colours may be used on stderr/stdout (NO_COLOR, FORCE_COLOR, --no-color, TTY). */
  readonly color: boolean;
  /** Raised on the first SIGINT/SIGTERM; long-running verbs stop scheduling when it aborts. */
  readonly signal: AbortSignal;
}

/** A verb's parsed arguments: its options, the global ones, and its action when it has actions. */
export type VerbArgs<O extends OptionSpecs, A extends string = never> = ArgsOf<O> &
  GlobalOptions &
  ([A] extends [never] ? unknown : { action: A });

/** A verb as `cli/main.ts` sees it (arguments untyped: they come from the parser, checked against `options`). */
export interface Verb {
  readonly options: OptionSpecs;
  readonly actions?: Readonly<Record<string, ActionSpec>>;
  readonly defaultAction?: string;
  /** `[command line, what it does]`, shown by `platctl <verb> --help`. */
  readonly examples?: readonly (readonly [string, string])[];
  readonly check?: (args: ParsedArgs) => string | undefined;
  /** Which of the global `--env`/`--json` this verb honours (the parser refuses the others). */
  readonly globals?: readonly SelectiveGlobal[];
  readonly run: (args: ParsedArgs, io: CliIo) => Promise<number>;
}

/** A verb as its module declares it: `run` and `check` see arguments typed from the declared options. */
export interface VerbDefinition<O extends OptionSpecs, A extends string> {
  readonly options: O;
  readonly actions?: Readonly<Record<A, ActionSpec>>;
  readonly defaultAction?: NoInfer<A>;
  readonly examples?: readonly (readonly [string, string])[];
  /** Rules between options, checked while parsing (before anything runs): a message, or undefined when fine. */
  readonly check?: (args: VerbArgs<O, A>) => string | undefined;
  /** Which of the global `--env`/`--json` this verb honours; the parser refuses the others before `run`. */
  readonly globals?: readonly SelectiveGlobal[];
  readonly run: (args: VerbArgs<O, A>, io: CliIo) => Promise<number>;
}

/** Declares a verb; the parser guarantees `run` only ever sees arguments that match `options` and `check`. */
export function defineVerb<const O extends OptionSpecs, const A extends string = never>(
  definition: VerbDefinition<O, A>,
): Verb {
  return definition as unknown as Verb;
}
