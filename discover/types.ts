/**
 * What discovery produces: the unit graph, per-unit facts later stages need, and every problem found. Problems are
 * data: discovery never throws for something a user wrote; it reports all of it and lets the CLI decide.
 */
import type { Graph, SourceLocation, UnitId } from '../engine/graph.js';
import type { PlatctlConfig } from '../config/schema.js';

export type ProblemKind =
  /** The HCL parser rejected a file, or it is not UTF-8. */
  | 'parse-error'
  /** A file or directory discovery must read cannot be read (permission denied, I/O error). */
  | 'read-error'
  /** A dependency path resolves to a directory without terragrunt.hcl or terragrunt.stack.hcl. */
  | 'dangling-path'
  /** `implicit_deps` or `units` names a unit that discovery did not find. */
  | 'unknown-id'
  /** An expression feeding an edge needs something not available offline (run_cmd, sops, AWS, outputs). */
  | 'unresolved-expression'
  /** An expression could not be evaluated (unknown local, wrong type, bad function call). */
  | 'evaluation-error'
  /** A cycle of dependencies. */
  | 'cycle'
  /** A `dependency` block inside a file read by read_terragrunt_config: not an edge, as in Terragrunt. */
  | 'read-config-dependency'
  /** An include or read file is missing, or an include nests another include. */
  | 'include-error'
  /** A directory holding both terragrunt.hcl and terragrunt.stack.hcl. */
  | 'unit-and-stack'
  /** A terragrunt.stack.hcl whose units were never generated (no .terragrunt-stack beside it). */
  | 'stack-not-generated'
  /** Two `dependency` blocks with one label in a file: both are edges, as in Terragrunt v1.1.3 (a warning). */
  | 'duplicate-dependency'
  /** A value took a fallback (try()) over a function that needs a real run, such as run_cmd (a warning). */
  | 'fallback-taken'
  /**
   * A remote_state block whose backend or config Terragrunt's discovery cannot know (it reads dependency outputs):
   * `terragrunt find` leaves out the unit's dependencies and `run --all` stops; platctl keeps them (a warning).
   */
  | 'terragrunt-drops-dependencies'
  /** A bug in platctl that discovery worked around, so the result is still right (a warning asking for a report). */
  | 'internal-error';

export interface Problem {
  readonly severity: 'error' | 'warning';
  readonly kind: ProblemKind;
  /** One sentence: what is wrong. */
  readonly message: string;
  /** Where it is written. */
  readonly location?: SourceLocation;
  /** The unit concerned, when there is one. */
  readonly unit?: UnitId;
  /**
   * What to do about it. A did-you-mean hint may be worked out when first read (see {@link withLazyHint}); to a
   * reader it is an ordinary property.
   */
  readonly hint?: string;
  /** Extra lines (a cycle's edges, the expression as written). */
  readonly details?: readonly string[];
}

/** A Terraform backend as the unit's merged `remote_state` block declares it, evaluated offline where possible. */
export interface RemoteState {
  readonly backend: string;
  /** `config` attributes that evaluated (bucket, key, region, ...); unresolvable ones are absent. */
  readonly config: Readonly<Record<string, unknown>>;
}

export interface UnitInfo {
  readonly id: UnitId;
  readonly env: string;
  /** Relative to the repository root, posix separators. */
  readonly dir: string;
  readonly absDir: string;
  /** Absolute path of the unit's terragrunt.hcl. */
  readonly configFile: string;
  /** Absolute paths of the files it includes (in merge order). */
  readonly includes: readonly string[];
  readonly remoteState?: RemoteState;
  /** `prevent_destroy = true`: teardown keeps the unit and everything it depends on, as Terragrunt does. */
  readonly preventDestroy?: boolean;
  /** An active Terragrunt `exclude` block (its `if` is true): see {@link excludedUnits}. */
  readonly exclude?: ExcludeSpec;
}

/** A Terragrunt `exclude` block whose `if` is true. */
export interface ExcludeSpec {
  /** Lower-cased: Terraform commands (`apply`, `destroy`, `plan`...), `all`, or `all_except_output`. */
  readonly actions: readonly string[];
  /** `exclude_dependencies = true`: the unit's direct dependencies are left out too. */
  readonly excludeDependencies: boolean;
  readonly location?: SourceLocation;
}

export interface DiscoverOptions {
  /** The repository root: the directory of .platctl.yaml. */
  readonly root: string;
  readonly config: PlatctlConfig;
  /** Environment for `get_env()`; discovery never reads process.env itself. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Downgrade unresolvable expressions from errors to warnings. */
  readonly allowUnresolved?: boolean;
  /**
   * Evaluate each unit's `remote_state` block into `UnitInfo.remoteState` (validate needs it; the graph does not,
   * and it costs about a fifth of evaluation).
   */
  readonly remoteState?: boolean;
  /** On-disk parse cache directory (`.platctl-cache`); false disables it. */
  readonly cacheDir?: string | false;
}

export interface DiscoveryResult {
  readonly root: string;
  readonly graph: Graph;
  readonly units: ReadonlyMap<UnitId, UnitInfo>;
  readonly problems: readonly Problem[];
}

/** True when the graph may be walked: no error-severity problems. */
export function isUsable(result: Pick<DiscoveryResult, 'problems'>): boolean {
  return !result.problems.some((p) => p.severity === 'error');
}

/** Builds a Problem, dropping optional fields that are undefined (so callers can pass `location: maybeLocation`). */
export function problem(fields: {
  severity: Problem['severity'];
  kind: ProblemKind;
  message: string;
  location?: SourceLocation | undefined;
  unit?: UnitId | undefined;
  hint?: string | undefined;
  details?: readonly string[] | undefined;
}): Problem {
  const out: { -readonly [K in keyof Problem]: Problem[K] } = {
    severity: fields.severity,
    kind: fields.kind,
    message: fields.message,
  };
  if (fields.location) out.location = fields.location;
  if (fields.unit !== undefined) out.unit = fields.unit;
  if (fields.hint !== undefined) out.hint = fields.hint;
  if (fields.details !== undefined) out.details = fields.details;
  return out;
}

/**
 * The problem with a hint that is worked out when first read, then kept. A did-you-mean over thousands of units
 * costs real time, and only the problems that are shown need one: people see 20 of a kind. The hint is an
 * enumerable property, so JSON.stringify and spreading see it like any other.
 */
export function withLazyHint(base: Problem, hint: () => string | undefined): Problem {
  const out = { ...base };
  Object.defineProperty(out, 'hint', {
    enumerable: true,
    configurable: true,
    get(): string | undefined {
      const value = hint();
      Object.defineProperty(out, 'hint', { value, enumerable: value !== undefined, configurable: true });
      return value;
    },
  });
  return out;
}

/** Members of a chain shown at each end by {@link chainText} when it is too long for one line. */
const CHAIN_ENDS = 5;

/**
 * A chain of unit ids for one line of text: `a -> b -> c`, or, past a dozen ids, its first and last few around a
 * count (`a -> ... (9,990 more) -> z`). A cycle of 10,000 units would otherwise be a line of hundreds of kilobytes.
 */
export function chainText(ids: readonly string[]): string {
  if (ids.length <= CHAIN_ENDS * 2 + 2) return ids.join(' -> ');
  const hidden = ids.length - CHAIN_ENDS * 2;
  return [
    ...ids.slice(0, CHAIN_ENDS),
    `... (${hidden.toLocaleString('en-US')} more)`,
    ...ids.slice(ids.length - CHAIN_ENDS),
  ].join(' -> ');
}
