/**
 * One unit's merged configuration, as far as the graph needs it: includes, locals, `dependency` and `dependencies`
 * blocks, `remote_state`. This follows Terragrunt v1's partial parse (docs/discovery.md):
 *
 * - include paths are evaluated first (functions only), relative to the unit's directory;
 * - functions in an included file run in the unit's context; its `local.*` are its own locals;
 * - the unit's locals may read `include.<name>.locals` when the include has `expose = true`;
 * - relative dependency paths resolve against the unit's directory, even when written in an included file; so do
 *   read_terragrunt_config(), read_tfvars_file() and abspath(), but file(), fileexists(), fileset() and
 *   templatefile() resolve against the directory of the file the call is written in;
 * - `merge_strategy`: shallow (default) merges dependency blocks by name, child wins, and concatenates
 *   `dependencies.paths` together with the paths of the parent's own dependency blocks (so a block the child
 *   overrides can leave a stale edge, as in Terragrunt); deep merges blocks by name and keeps only the merged paths;
 *   no_merge adds nothing;
 * - `enabled = false` removes a dependency block's edge; mocks and skip_outputs do not;
 * - dependency blocks inside files read by read_terragrunt_config are not edges.
 *
 * Evaluation is synchronous; when it needs a file that has not been parsed yet it throws `NeedFiles`, the caller
 * parses the files (in worker threads) and evaluates the unit again.
 */
import { dirname } from 'node:path';
import type { EdgeOrigin, SourceLocation } from '../engine/graph.js';
import { contextualFunctions, resolveFrom } from './functions.js';
import type { FunctionContext, FunctionHost } from './functions.js';
import {
  HclEvalError,
  Unknown,
  describeValue,
  evaluateJson,
  isObject,
  evaluateLocals,
  fsBuiltins,
  jsonReferences,
  pureBuiltins,
  typeName,
} from './hcl/index.js';
import type { CallInfo, HclFunction, Scope, Value } from './hcl/index.js';
import type { BlockPosition, ParsedFile } from './parsed-files.js';
import { restoreNumberLiterals } from './hcl/number-literals.js';
import { problem } from './types.js';
import { childPath } from './scan.js';
import type { ExcludeSpec, Problem, RemoteState } from './types.js';

/** Thrown when evaluation needs files that are not parsed yet. */
export class NeedFiles extends Error {
  constructor(readonly paths: readonly string[]) {
    super(`need ${paths.length} more file(s) parsed`);
  }
}

/** A dependency the unit declares, before it is matched against the discovered units. */
export interface DeclaredDependency {
  /** Absolute path the declaration resolves to (a directory, or a file inside one). */
  readonly target: string;
  readonly origin: EdgeOrigin;
  /** The expression as written, for messages. */
  readonly expression: string;
}

export interface UnitConfig {
  readonly dependencies: readonly DeclaredDependency[];
  readonly includes: readonly string[];
  readonly remoteState?: RemoteState;
  /** `prevent_destroy = true` in the merged config. */
  readonly preventDestroy?: true;
  /** The merged config's exclude block, when its `if` is true. */
  readonly exclude?: ExcludeSpec;
  readonly problems: readonly Problem[];
  /** Files read by read_terragrunt_config that declare dependency blocks (not edges; warned about once each). */
  readonly readFilesWithDependencies: readonly { file: string; location: SourceLocation }[];
}

export interface UnitConfigInput {
  readonly id: string;
  readonly absDir: string;
  readonly configFile: string;
}

/** The parsed files evaluation reads (ParsedFiles, or a recording view of it). */
export interface FileSource {
  /** True once the path was read (parsed, or found missing). */
  has(path: string): boolean;
  get(path: string): ParsedFile | undefined;
  /** The content hash of a file read in this run (null: missing; undefined: not read yet). */
  hashOf(path: string): string | null | undefined;
  positions(file: ParsedFile): readonly BlockPosition[];
}

/**
 * Everything evaluation may ask of the outside world. Evaluation reads nothing else, which is what lets
 * unit-cache.ts record a unit's inputs and reuse its result while they are unchanged.
 */
export interface EvaluationHost {
  readonly files: FileSource;
  kind(path: string): 'file' | 'dir' | undefined;
  /** `kind(childPath(dir, name))`, for a caller that has the two apart (a host may answer from dir's listing). */
  kindOf(dir: string, name: string): 'file' | 'dir' | undefined;
  /** find_in_parent_folders' search (functions.ts `findUp`), recorded as one input rather than a probe per folder. */
  findUp(dir: string, probes: readonly string[]): string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  repoRoot(dir: string): string | undefined;
  /** Whether to evaluate remote_state blocks. */
  readonly remoteState: boolean;
  readText(path: string): string | undefined;
  /** Files matching `pattern` below `baseDir`, relative to it, sorted. */
  glob(pattern: string, baseDir: string): string[];
}

/** What a unit's evaluation offers the functions its expressions call. */
interface EvaluationCalls {
  readonly functionHost: FunctionHost;
  /** Counts a call of a Terragrunt function that returned an Unknown (see UnitEvaluation's #evaluate). */
  noteUnknownCall(name: string): void;
  /** A call of a Terragrunt function, where it was made and its answer (an exception: `undefined`), for the memos. */
  noteCall(name: string, args: readonly Value[], answer: Value | undefined, context: FunctionContext): void;
  /** The filesystem built-ins for expressions written in this config file. */
  fsFunctions(configFile: string): Record<string, HclFunction>;
}

/** A scope's `context`: where its expressions are written, and whose evaluation they belong to. */
interface CallSite {
  readonly context: FunctionContext;
  readonly calls: EvaluationCalls;
}

function callSite(call: CallInfo): CallSite {
  const site = call.scope.context as CallSite | undefined;
  if (!site) throw new Error(`bug: ${call.name}() called in a scope that has no evaluation context`);
  return site;
}

const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

/**
 * The functions every expression sees, in one table shared by all units and contexts: Terragrunt's (each reading
 * its context from the scope it is called in, and counting the calls that return an Unknown), then the filesystem
 * built-ins for the config's directory, then the pure built-ins; the first that has a name wins. A table per
 * context, even layered, was a large share of what a cold discovery allocated.
 */
const FUNCTIONS: Readonly<Record<string, HclFunction>> = (() => {
  const out: Record<string, HclFunction> = {};
  for (const [name, fn] of Object.entries(contextualFunctions)) {
    out[name] = (args, call) => {
      const { context, calls } = callSite(call);
      let value: Value | undefined;
      try {
        value = fn(args, context, calls.functionHost);
      } finally {
        calls.noteCall(name, args, value, context);
      }
      if (value instanceof Unknown) calls.noteUnknownCall(name);
      return value;
    };
  }
  const sample = fsBuiltins({ baseDir: '/', readFile: () => undefined, exists: () => false, glob: () => [] });
  for (const [name, fn] of Object.entries(sample)) {
    if (hasOwn(out, name)) continue;
    // abspath() resolves against the unit's directory; the others against the file the call is written in.
    const relativeToWrittenFile = name !== 'abspath';
    const bound: HclFunction = (args, call) => {
      const { context, calls } = callSite(call);
      // What a file holds is not a question the memos replay.
      calls.noteCall(name, args, undefined, context);
      const base = relativeToWrittenFile ? (context.includedFile ?? context.configFile) : context.configFile;
      return (calls.fsFunctions(base)[name] as HclFunction)(args, call);
    };
    out[name] = fn.acceptsUnknown ? Object.assign(bound, { acceptsUnknown: true }) : bound;
  }
  for (const [name, fn] of Object.entries(pureBuiltins)) if (!hasOwn(out, name)) out[name] = fn;
  return Object.freeze(out);
})();

type Json = Record<string, unknown>;

/**
 * Include paths evaluated before, by their text (`find_in_parent_folders("root.hcl")`, or a template around it):
 * what it gave, and every call of a Terragrunt function it made with the answer, in order. An include path is
 * evaluated with functions only, no variables, and the built-ins are pure, so its value follows from its text and
 * those answers: when the same calls, made again for the next unit, give the same answers, so does the path. Made
 * again, they also ask the host again, so the unit cache records for each unit the inputs its path depends on.
 * (Every unit evaluates one or two include paths; replaying one call costs a fraction of evaluating the template.)
 */
interface ReplayableCall {
  readonly name: string;
  readonly args: readonly Value[];
  readonly answer: string | boolean | null;
  /**
   * Where it was made: null for the context being remembered (the unit's, for an include path; the included file's,
   * for a local), or a file that context read with read_terragrunt_config, made again with the new unit's directory.
   */
  readonly context: FunctionContext | null;
}

const includePathMemo = new Map<string, { readonly calls: readonly ReplayableCall[]; readonly value: string }>();

/**
 * What a file's locals block gives every scope that evaluates it: the block as one map, which locals read only other
 * locals (a static check of each expression: `feature`, `values` and `dependency` differ from unit to unit), and an
 * included file's locals computed before (see UnitEvaluation's #evaluateLocal).
 */
interface LocalsInfo {
  readonly locals: Readonly<Record<string, unknown>>;
  readonly readsOnlyLocals: Map<string, boolean>;
  readonly memos: Map<string, LocalMemo[]>;
}

/** A local of an included file as computed for an earlier unit: what it gave and the calls it made. */
interface LocalMemo {
  /** The included file (the same text may be included from two places). */
  readonly file: string;
  readonly calls: readonly ReplayableCall[];
  readonly value: string | boolean | null;
}

const localsInfo = new WeakMap<Json, LocalsInfo>();

/** How many answers are remembered for one local (one per environment, say): a guard, not a tuning. */
const LOCAL_MEMOS = 16;

function localsInfoOf(json: Json): LocalsInfo {
  let info = localsInfo.get(json);
  if (info === undefined) {
    info = { locals: mergeLocals(json.locals), readsOnlyLocals: new Map(), memos: new Map() };
    localsInfo.set(json, info);
  }
  return info;
}

/** Whether the local's expression reads no variable but `local`. */
function readsOnlyLocals(info: LocalsInfo, name: string): boolean {
  let only = info.readsOnlyLocals.get(name);
  if (only === undefined) {
    only = jsonReferences(info.locals[name]).variables.every((v) => v === 'local' || v.startsWith('local.'));
    info.readsOnlyLocals.set(name, only);
  }
  return only;
}

/** A file read by read_terragrunt_config, as a logged answer: its path and content hash. */
const readKey = (path: string, hash: string): string => `${path}\u0000${hash}`;

/**
 * The locals object of one scope, and the calls each local computed so far made (null: not known or not
 * replayable).
 */
interface LocalsState {
  readonly info: LocalsInfo;
  readonly context: FunctionContext;
  logs: Map<string, readonly ReplayableCall[] | null> | undefined;
}

/** Terragrunt's functions whose answer depends only on their arguments, the context and the host's answers. */
const REPLAYABLE = new Set([
  'get_terragrunt_dir',
  'get_original_terragrunt_dir',
  'get_parent_terragrunt_dir',
  'path_relative_to_include',
  'path_relative_from_include',
  'find_in_parent_folders',
  'get_repo_root',
  'get_path_from_repo_root',
  'get_path_to_repo_root',
  'get_env',
  'get_platform',
]);

const isPlain = (value: Value | undefined): value is string | boolean | null =>
  value === null || typeof value === 'string' || typeof value === 'boolean';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const restoredJson = new WeakMap<Json, Json>();

/**
 * A file's hcl2json output as discovery evaluates it: number literals hcl2json rounded through a float64 are read
 * from the source instead (see number-literals.ts). Memoised per parsed JSON.
 */
function sourceJson(json: Json, content: string): Json {
  let out = restoredJson.get(json);
  if (out === undefined) {
    out = restoreNumberLiterals(json, content);
    restoredJson.set(json, out);
  }
  return out;
}

/** Where an attribute is written, or how to find out when it is needed. */
type Where = SourceLocation | undefined | (() => SourceLocation | undefined);

interface IncludeDecl {
  readonly name: string;
  readonly file: string;
  readonly expose: boolean;
  readonly mergeStrategy: 'shallow' | 'deep' | 'no_merge';
}

interface DependencyDecl {
  readonly name: string;
  readonly block: Json;
  readonly file: ParsedFile;
  readonly scope: Scope;
  readonly merge: 'child' | 'shallow' | 'deep';
  /** Which of the file's blocks with this label it is (0: the first); a label may be declared more than once. */
  readonly occurrence: number;
}

/** A file of the merged config, with the scope its expressions are evaluated in. */
interface ConfigSource {
  readonly file: ParsedFile;
  readonly json: Json;
  readonly scope: Scope;
}

interface IncludeScope extends ConfigSource {
  readonly decl: IncludeDecl;
}

/** Variables every scope of a unit shares. */
interface SharedVariables {
  readonly values: Value | undefined;
  readonly features: Value;
  /** Filled as the included files are read: `dependency.<name>` is read lazily, after all of them are. */
  readonly dependencyNames: Set<string>;
  /** The `dependency` variable of every scope, built from dependencyNames when an expression first reads it. */
  readonly dependency: () => Value;
}

const NOT_AVAILABLE = 'dependency outputs are not available while building the graph';

/** Terragrunt's block types with a label, and without (the others are attributes). */
const LABELLED_BLOCKS = new Set(['dependency', 'generate', 'feature']);
const UNLABELLED_BLOCKS = new Set(['terraform', 'remote_state', 'dependencies', 'exclude', 'errors', 'engine']);

/** Evaluates one unit. Throws `NeedFiles` when more files must be parsed first. */
export function evaluateUnitConfig(unit: UnitConfigInput, host: EvaluationHost): UnitConfig {
  return new UnitEvaluation(unit, host).run();
}

/** No includes (yet): shared, never written. */
const NO_INCLUDES: ReadonlyMap<string, string> = new Map();

/**
 * One unit's evaluation. It is also what its expressions' functions call (the FunctionHost and EvaluationCalls of
 * every scope it builds), through methods rather than a table of closures per unit. The collections it may not need
 * are made on first use: a unit of a typical repository allocated about 25 KB, a fifth of a cold run's garbage, and
 * empty Maps, Sets and closures were a large part of it.
 */
class UnitEvaluation implements FunctionHost, EvaluationCalls {
  readonly #unit: UnitConfigInput;
  readonly #host: EvaluationHost;
  readonly #problems: Problem[] = [];
  #needed: string[] | undefined;
  #readWithDeps: Map<string, SourceLocation> | undefined;
  #includes: ReadonlyMap<string, string> = NO_INCLUDES;
  /** The filesystem built-ins per config file, built when an expression there first calls one. */
  #fsFunctions: Map<string, Record<string, HclFunction>> | undefined;
  /** Calls so far of functions that need a real run (run_cmd, sops, AWS), which returned an Unknown; the latest. */
  #unknownCalls = 0;
  #lastUnknownCall = '';
  /** While an include path is evaluated for includePathMemo, the calls it made; otherwise, or once one cannot be
   * replayed, undefined. */
  #callLog: ReplayableCall[] | undefined;
  /**
   * While an included file's local is computed, the calls of each local being computed, innermost last (null: one
   * that cannot be replayed); the context of the included file they belong to; and the last file read by
   * read_terragrunt_config on the way, as its logged answer.
   */
  #frames: (ReplayableCall[] | null)[] | undefined;
  #logOwner: FunctionContext | undefined;
  #lastRead: { readonly value: Value; readonly key: string } | undefined;
  /** While a remembered read_terragrunt_config call is made again: read the file, but build nothing. */
  #replayingRead = false;

  constructor(unit: UnitConfigInput, host: EvaluationHost) {
    this.#unit = unit;
    this.#host = host;
  }

  // FunctionHost: what Terragrunt's functions ask, answered by the host (recorded there) or by this evaluation.
  get functionHost(): FunctionHost {
    return this;
  }
  get env(): Readonly<Record<string, string | undefined>> {
    return this.#host.env;
  }
  kind(path: string): 'file' | 'dir' | undefined {
    return this.#host.kind(path);
  }
  findUp(dir: string, probes: readonly string[]): string | undefined {
    return this.#host.findUp(dir, probes);
  }
  repoRoot(dir: string): string | undefined {
    return this.#host.repoRoot(dir);
  }
  readConfig(path: string, context: FunctionContext): Value {
    return this.#readConfig(path, context);
  }
  readTfvars(path: string): string {
    return this.#readTfvars(path);
  }
  // EvaluationCalls
  noteUnknownCall(name: string): void {
    this.#unknownCalls += 1;
    this.#lastUnknownCall = name;
  }
  fsFunctions(configFile: string): Record<string, HclFunction> {
    return this.#fsFunctionsFor(configFile);
  }
  noteCall(name: string, args: readonly Value[], answer: Value | undefined, context: FunctionContext): void {
    if (this.#callLog !== undefined) {
      if (REPLAYABLE.has(name) && isPlain(answer) && args.every(isPlain))
        this.#callLog.push({ name, args, answer, context: null });
      else this.#callLog = undefined;
    }
    if (!this.#logging) return;
    const call = this.#loggedCall(name, args, answer, context);
    this.#appendLog(call ? [call] : null);
  }

  /** Whether an included file's local is being computed for the memo (see #evaluateLocal). */
  get #logging(): boolean {
    return this.#frames !== undefined && this.#frames.length > 0;
  }

  /**
   * The phases of Terragrunt's partial parse, each its own method: one long method was slow to compile, and a
   * deoptimisation anywhere in it threw all of it away (it was compiled again and again on a cold run).
   */
  run(): UnitConfig {
    const file = this.#need(this.#unit.configFile);
    const { absDir } = this.#unit;
    const hasValues = this.#host.kindOf(absDir, 'terragrunt.values.hcl') === 'file';
    const hasAutoinclude = this.#host.kindOf(absDir, 'terragrunt.autoinclude.hcl') === 'file';
    const values = hasValues ? this.#need(childPath(absDir, 'terragrunt.values.hcl')) : undefined;
    const autoinclude = hasAutoinclude ? this.#need(childPath(absDir, 'terragrunt.autoinclude.hcl')) : undefined;
    this.#flushNeeds();
    if (!file) return this.#result([], []);
    if (!file.outcome.ok) {
      this.#parseProblem(file);
      return this.#result([], []);
    }
    const json = sourceJson(file.outcome.json, file.content);

    // 1. Includes: their paths use functions only (Terragrunt parses include before locals).
    const includeDecls = this.#includeDecls(file, json);
    if (includeDecls.length > 0) {
      const includes = new Map<string, string>();
      for (const inc of includeDecls) includes.set(inc.name, inc.file);
      this.#includes = includes;
    }
    const included = includeDecls.map((inc) => ({ inc, parsed: this.#need(inc.file) }));
    this.#flushNeeds();

    const baseContext = this.#unitContext(this.#includes);

    // 2. values and features, visible to the unit and its includes.
    const dependencyNames = new Set<string>();
    addBlockLabels(dependencyNames, json.dependency);
    const shared: SharedVariables = {
      values: values ? this.#valuesObject(values, baseContext) : undefined,
      features: this.#features(json, included, baseContext),
      dependencyNames,
      dependency: () => dependencyObject(dependencyNames),
    };

    // 3. Each included file gets its own scope: its own locals, the unit's context.
    const includeScopes = this.#includeScopes(file, included, baseContext, shared);
    this.#flushNeeds();

    // 4. The unit's own scope, with exposed includes.
    const exposed = (): Value => {
      const out: Record<string, Value> = {};
      for (const [name, entry] of includeScopes) {
        if (!entry.decl.expose) continue;
        out[name] = this.#exposedObject(entry.json, entry.scope);
      }
      return out;
    };
    const unitScope = this.#scope(baseContext, json, shared, exposed);
    const unitSource: ConfigSource = { file, json, scope: unitScope };

    // 5. Dependency declarations, merged.
    const autoSource = this.#autoincludeSource(autoinclude, baseContext, shared, exposed);
    const declarations = this.#declarations(unitSource, includeScopes, autoSource);

    // 6.-9. The other blocks: the unit's own wins over its (merging) includes'.
    const sources: ConfigSource[] = [];
    for (const entry of includeScopes.values()) if (entry.decl.mergeStrategy !== 'no_merge') sources.push(entry);
    sources.push(unitSource);
    const remoteState = this.#host.remoteState ? this.#mergedRemoteState(sources) : undefined;
    const preventDestroy = this.#preventDestroy(sources, unitSource);
    for (const source of sources) this.#checkTerraformSource(source.file, source.json);
    const exclude = this.#mergedExclude(sources);
    // Terragrunt parses every include, whatever its merge strategy.
    this.#checkDiscoverableRemoteState(unitSource, [...includeScopes.values()], declarations.length);
    this.#flushNeeds();

    return this.#result(declarations, [...this.#includes.values()], remoteState, preventDestroy, exclude);
  }

  /** Step 3: a scope per included file that could be read; what is wrong with the others is reported. */
  #includeScopes(
    file: ParsedFile,
    included: readonly { inc: IncludeDecl; parsed: ParsedFile | undefined }[],
    baseContext: FunctionContext,
    shared: SharedVariables,
  ): Map<string, IncludeScope> {
    const includeScopes = new Map<string, IncludeScope>();
    for (const { inc, parsed } of included) {
      if (!parsed) {
        this.#report({
          severity: 'error',
          kind: 'include-error',
          message: `include "${inc.name || '(bare)'}" points at ${inc.file}, which does not exist`,
          location: this.#blockLocation(file, 'include', inc.name ? [inc.name] : []),
          hint: 'fix the include path; platctl cannot see this unit’s inherited dependencies until it resolves',
        });
        continue;
      }
      if (!parsed.outcome.ok) {
        this.#parseProblem(parsed);
        continue;
      }
      const incJson = sourceJson(parsed.outcome.json, parsed.content);
      if (incJson.include !== undefined) {
        this.#report({
          severity: 'error',
          kind: 'include-error',
          message: `${parsed.path} is included by ${this.#unit.configFile} and has an include block of its own; Terragrunt allows only one level of includes`,
          location: this.#blockLocation(parsed, 'include', []),
          hint: 'merge the nested include into the parent file, or include both files from the unit',
        });
      }
      // The set is shared by every scope: `dependency.<name>` lists the blocks of the unit and all its includes.
      addBlockLabels(shared.dependencyNames, incJson.dependency);
      const context: FunctionContext = {
        unitDir: baseContext.unitDir,
        originalDir: baseContext.originalDir,
        configFile: baseContext.configFile,
        includes: baseContext.includes,
        includedFile: parsed.path,
      };
      const scope = this.#scope(context, incJson, shared, undefined);
      includeScopes.set(inc.name, { decl: inc, file: parsed, json: incJson, scope });
    }
    return includeScopes;
  }

  /** terragrunt.autoinclude.hcl with its scope, when it parsed (a parse error is reported). */
  #autoincludeSource(
    autoinclude: ParsedFile | undefined,
    baseContext: FunctionContext,
    shared: SharedVariables,
    exposed: () => Value,
  ): ConfigSource | undefined {
    if (!autoinclude) return undefined;
    if (!autoinclude.outcome.ok) {
      this.#parseProblem(autoinclude);
      return undefined;
    }
    const json = sourceJson(autoinclude.outcome.json, autoinclude.content);
    return { file: autoinclude, json, scope: this.#scope(baseContext, json, shared, exposed) };
  }

  /**
   * Step 5: every dependency the merged config declares. Dependency blocks merge by name (see the module comment);
   * `dependencies.paths` of every merging file add up.
   */
  #declarations(
    unit: ConfigSource,
    includeScopes: ReadonlyMap<string, IncludeScope>,
    auto: ConfigSource | undefined,
  ): DeclaredDependency[] {
    const mergedBlocks = new Map<string, DependencyDecl[]>();
    const pathsFrom: ConfigSource[] = [];
    const staleFrom: DependencyDecl[] = [];
    for (const source of includeScopes.values()) {
      const { decl, file, json: incJson, scope } = source;
      if (decl.mergeStrategy === 'no_merge') continue;
      for (const name of blockLabels(incJson.dependency)) {
        const block = lastBody(incJson.dependency, name);
        if (!block) continue;
        const dep: DependencyDecl = {
          name,
          block,
          file,
          scope,
          merge: decl.mergeStrategy,
          occurrence: lastOccurrence(incJson.dependency, name),
        };
        const list = mergedBlocks.get(name) ?? [];
        if (decl.mergeStrategy === 'shallow') {
          // A later include replaces the block; the replaced one's path stays in Dependencies.Paths.
          staleFrom.push(...list);
          mergedBlocks.set(name, [dep]);
        } else {
          mergedBlocks.set(name, [...list, dep]);
        }
      }
      pathsFrom.push(source);
    }
    if (auto) {
      // terragrunt.autoinclude.hcl merges shallowly with no include block, and wins over the unit.
      for (const source of [unit, auto]) {
        for (const name of blockLabels(source.json.dependency)) {
          const block = lastBody(source.json.dependency, name);
          if (!block) continue;
          const occurrence = lastOccurrence(source.json.dependency, name);
          const { file, scope } = source;
          mergedBlocks.set(name, [{ name, block, file, scope, merge: 'child', occurrence }]);
        }
      }
      pathsFrom.push(auto);
    } else {
      for (const name of blockLabels(unit.json.dependency)) {
        const block = lastBody(unit.json.dependency, name);
        if (!block) continue;
        const previous = mergedBlocks.get(name) ?? [];
        const occurrence = lastOccurrence(unit.json.dependency, name);
        const child: DependencyDecl = { name, block, file: unit.file, scope: unit.scope, merge: 'child', occurrence };
        const deepParents = previous.filter((p) => p.merge === 'deep');
        staleFrom.push(...previous.filter((p) => p.merge === 'shallow'));
        mergedBlocks.set(name, [...deepParents, child]);
      }
    }
    pathsFrom.push(unit);

    const declarations: DeclaredDependency[] = [];
    // By name, in code-unit order (the names are distinct).
    for (const name of [...mergedBlocks.keys()].sort()) {
      const decl = this.#mergedDependency(name, mergedBlocks.get(name) ?? []);
      if (decl) declarations.push(decl);
    }
    for (const dep of staleFrom) {
      const decl = this.#mergedDependency(dep.name, [dep]);
      if (decl) declarations.push(decl);
    }
    for (const source of pathsFrom) this.#duplicateDependencies(source.file, source.json, source.scope, declarations);
    for (const source of pathsFrom) this.#dependenciesPaths(source.file, source.json, source.scope, declarations);
    return declarations;
  }

  /** Step 6, remote_state: the unit's own block wins; otherwise the last merging include's. */
  #mergedRemoteState(sources: readonly ConfigSource[]): RemoteState | undefined {
    let remoteState: RemoteState | undefined;
    for (const source of sources) {
      const block = firstBlock(source.json.remote_state) ?? asObject(source.json.remote_state);
      if (block) remoteState = this.#remoteState(block, source.scope) ?? remoteState;
    }
    return remoteState;
  }

  /**
   * Step 7, prevent_destroy: like any attribute, the unit's own value wins over its includes'. Terragrunt spares such
   * a unit, and everything it depends on, on destroy; platctl's teardown does the same.
   */
  #preventDestroy(sources: readonly ConfigSource[], unit: ConfigSource): boolean {
    let preventDestroy = false;
    for (const source of sources) {
      if (source.json.prevent_destroy === undefined) continue;
      const location = source.json === unit.json ? this.#topAttributeLocation(unit.file, 'prevent_destroy') : undefined;
      const value = this.#evaluate(source.json.prevent_destroy, source.scope, location, 'prevent_destroy');
      // A value that cannot be known protects the unit: sparing it is the safe mistake.
      preventDestroy = value === undefined ? true : value === true;
    }
    return preventDestroy;
  }

  /**
   * Step 9, the exclude block: like any block, the unit's own wins over its includes' (inherited since Terragrunt
   * v1.0.4). Terragrunt's run --all leaves an excluded unit out for the listed commands and treats it as applied.
   */
  #mergedExclude(sources: readonly ConfigSource[]): ExcludeSpec | undefined {
    const source = sources.filter((s) => firstBlock(s.json.exclude)).pop();
    return source ? this.#exclude(source.file, source.json, source.scope) : undefined;
  }

  /** The active exclude block, as data; undefined when `if` is false. Evaluation problems are reported. */
  #exclude(file: ParsedFile, json: Json, scope: Scope): ExcludeSpec | undefined {
    const block = firstBlock(json.exclude);
    if (!block) return undefined;
    const location = this.#blockLocation(file, 'exclude', []);
    const where = (attribute: string) => (): SourceLocation | undefined =>
      this.#attributeLocation(file, 'exclude', [], attribute);
    const active = this.#evaluate(block.if ?? false, scope, where('if'), 'exclude if');
    if (active === undefined) return undefined;
    if (typeof active !== 'boolean') {
      this.#report({
        severity: 'error',
        kind: 'evaluation-error',
        message: `exclude if must be a bool, got ${JSON.stringify(active)}`,
        location: where('if')(),
      });
      return undefined;
    }
    if (!active) return undefined;
    const actions = this.#evaluate(block.actions ?? [], scope, where('actions'), 'exclude actions');
    if (!Array.isArray(actions) || !actions.every((a): a is string => typeof a === 'string')) {
      if (actions !== undefined) {
        this.#report({
          severity: 'error',
          kind: 'evaluation-error',
          message: `exclude actions must be a list of strings, got ${JSON.stringify(actions)}`,
          location: where('actions')(),
        });
      }
      return undefined;
    }
    const dependencies = this.#evaluate(
      block.exclude_dependencies ?? false,
      scope,
      where('exclude_dependencies'),
      'exclude exclude_dependencies',
    );
    // bootstrap and teardown honour it (engine/plan.ts, through excludedUnits): no warning needed.
    return {
      actions: actions.map((a) => a.toLowerCase()),
      excludeDependencies: dependencies === true,
      ...(location ? { location } : {}),
    };
  }

  /**
   * Step 10: a remote_state block whose `backend` or whole `config` is built from a dependency's outputs. Terragrunt
   * v1.1.3 builds its graph without fetching outputs (mocks are not used either), so it cannot parse such a file
   * while discovering: `terragrunt find`, `list` and `dag graph` silently leave out the dependencies of the unit (all
   * of them when the block is in the unit's own file; those of the include, or all of them when the unit reads
   * `include.<name>` in a dependency, when it is in an included file), and `terragrunt run --all` stops with an error
   * (`json: cannot unmarshal string into Go struct field CtyJSONOutput.Value`, or `the remote_state.backend field
   * cannot be empty`). A single unit's run reads the outputs and works: platctl keeps the edges it computes, the
   * order the unit needs, and says so.
   */
  #checkDiscoverableRemoteState(unit: ConfigSource, includes: readonly IncludeScope[], dependencies: number): void {
    for (const source of [unit, ...includes]) {
      const block = firstBlock(source.json.remote_state) ?? asObject(source.json.remote_state);
      if (!block || !mayReadDependency(source.json, block)) continue;
      for (const attribute of ['backend', 'config'] as const) {
        if (block[attribute] === undefined) continue;
        const value = this.#evaluateQuietly(block[attribute], source.scope);
        if (!(value instanceof Unknown) || !value.origin?.startsWith('dependency')) continue;
        this.#terragruntDropsDependencies(source, attribute, value.origin, dependencies, block[attribute]);
        break;
      }
    }
  }

  #terragruntDropsDependencies(
    source: ConfigSource,
    attribute: 'backend' | 'config',
    origin: string,
    dependencies: number,
    raw: unknown,
  ): void {
    const own = source.file.path === this.#unit.configFile;
    const what = `remote_state ${attribute} reads ${origin}.outputs, which Terragrunt does not fetch while building its graph (mock_outputs are not used there either)`;
    const kept =
      dependencies === 0 ? 'platctl finds none here either' : `platctl keeps the ${dependencies} it computes`;
    this.#report({
      severity: 'warning',
      kind: 'terragrunt-drops-dependencies',
      message: own
        ? `Terragrunt would order ${this.#unit.id} without its dependencies (terragrunt find leaves them out, run --all stops with an error); ${kept}`
        : 'Terragrunt would order the units including this file without its dependencies, or without any when a unit reads include.<name> in one (terragrunt find leaves them out, run --all stops with an error); platctl keeps them',
      hint: `build remote_state ${attribute} from literals, locals or get_env() rather than another unit's outputs, so that terragrunt run --all can order this unit; until then, run it through platctl`,
      details: [what, `expression: ${expressionText(raw)}`],
      location: this.#attributeLocation(source.file, 'remote_state', [], attribute),
    });
  }

  #checkTerraformSource(file: ParsedFile, json: Json): void {
    const block = firstBlock(json.terraform);
    if (!block || block.source === undefined) return;
    const read = jsonReferences(block.source).variables.find((v) => v === 'dependency' || v.startsWith('dependency.'));
    if (!read) return;
    this.#report({
      severity: 'error',
      kind: 'evaluation-error',
      message: `terraform.source reads ${read}: Terragrunt rejects a unit whose source depends on another unit's outputs (the source must be known before anything is applied)`,
      hint: 'build the source from literals, locals or values; pass the output to the module as an input instead',
      details: [`expression: ${expressionText(block.source)}`],
      location: this.#attributeLocation(file, 'terraform', [], 'source'),
    });
  }

  #result(
    dependencies: DeclaredDependency[],
    includes: string[],
    remoteState?: RemoteState,
    preventDestroy = false,
    exclude?: ExcludeSpec,
  ): UnitConfig {
    const readFilesWithDependencies: { file: string; location: SourceLocation }[] = [];
    if (this.#readWithDeps)
      for (const [file, location] of this.#readWithDeps) readFilesWithDependencies.push({ file, location });
    // Built property by property (object spreads were a visible share of a unit's evaluation); the optional ones
    // are present only when set, in this order (the unit cache stores the object as JSON).
    const out: Mutable<UnitConfig> = { dependencies, includes, problems: this.#problems, readFilesWithDependencies };
    if (remoteState) out.remoteState = remoteState;
    if (preventDestroy) out.preventDestroy = true;
    if (exclude) out.exclude = exclude;
    return out;
  }

  /** Where a top-level attribute of the file is written (the line scan knows blocks, so this reads the text). */
  #topAttributeLocation(file: ParsedFile, name: string): SourceLocation | undefined {
    const match = new RegExp(`^[ \\t]*${name}[ \\t]*=`, 'm').exec(file.content);
    if (!match) return undefined;
    const line = file.content.slice(0, match.index).split('\n').length;
    return { file: file.path, line, column: 1 };
  }

  /** The parsed file, or undefined; records the path as needed when it has not been read yet. */
  #need(path: string): ParsedFile | undefined {
    if (!this.#host.files.has(path)) {
      this.#needed ??= [];
      if (!this.#needed.includes(path)) this.#needed.push(path);
      return undefined;
    }
    return this.#host.files.get(path);
  }

  #flushNeeds(): void {
    if (this.#needed !== undefined && this.#needed.length > 0) throw new NeedFiles([...this.#needed]);
  }

  #report(fields: Parameters<typeof problem>[0]): void {
    this.#problems.push(problem({ unit: this.#unit.id, ...fields }));
  }

  /** The context of an expression written in the unit's own terragrunt.hcl, with `includes` as known so far. */
  #unitContext(includes: ReadonlyMap<string, string>): FunctionContext {
    return {
      unitDir: this.#unit.absDir,
      originalDir: this.#unit.absDir,
      configFile: this.#unit.configFile,
      includes,
    };
  }

  #parseProblem(file: ParsedFile): void {
    if (file.outcome.ok) return;
    this.#report({
      severity: 'error',
      kind: file.unusable === 'unreadable' ? 'read-error' : 'parse-error',
      unit: this.#unit.id,
      message: file.outcome.message,
      location: file.outcome.location,
      details: file.outcome.ok ? undefined : file.outcome.others,
      hint:
        file.unusable === 'unreadable'
          ? 'make the file readable by the user running platctl (chmod/chown), or exclude its directory in .platctl.yaml'
          : file.unusable === 'encoding'
            ? 'save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`); Terragrunt rejects it too'
            : file.unusable === 'nesting'
              ? 'write it flatter: name the inner parts in locals, or build the value with a for expression'
              : 'fix the HCL syntax; `terragrunt hcl validate` in the unit shows the same error',
    });
  }

  #includeDecls(file: ParsedFile, json: Json): IncludeDecl[] {
    const out: IncludeDecl[] = [];
    if (json.include === undefined) return out;
    // No includes yet: their paths are what this reads.
    const scope = this.#bareScope(this.#unitContext(NO_INCLUDES));
    const entries: [string, Json][] = Array.isArray(json.include)
      ? (json.include as Json[]).map((b) => ['', b])
      : Object.entries(blockMap(json.include));
    for (const [name, block] of entries) {
      const location = (): SourceLocation | undefined =>
        this.#attributeLocation(file, 'include', name ? [name] : [], 'path');
      const path = this.#includePath(block.path, scope, location);
      if (path === undefined) continue;
      if (typeof path !== 'string') {
        this.#report({
          severity: 'error',
          kind: 'include-error',
          message: `include "${name}" path is not a string`,
          location: location(),
        });
        continue;
      }
      // Both usually absent or a literal bool: nothing to evaluate (every unit reads them for every include).
      const strategy =
        block.merge_strategy === undefined
          ? 'shallow'
          : this.#evaluate(block.merge_strategy, scope, location, 'merge_strategy');
      const mergeStrategy = strategy === 'deep' || strategy === 'no_merge' ? strategy : 'shallow';
      const expose =
        typeof block.expose === 'boolean'
          ? block.expose
          : block.expose !== undefined && this.#evaluate(block.expose, scope, location, 'expose') === true;
      out.push({ name, file: resolveFrom(this.#unit.absDir, path), expose, mergeStrategy });
    }
    return out;
  }

  /** An include block's path, through includePathMemo when it is written as a string. */
  #includePath(raw: unknown, scope: Scope, where: Where): Value | undefined {
    if (typeof raw !== 'string') return this.#evaluate(raw, scope, where, 'include path');
    const memo = includePathMemo.get(raw);
    if (memo && this.#replays(memo.calls, (scope.context as CallSite).context)) return memo.value;
    const problems = this.#problems.length;
    this.#callLog = [];
    let value: Value | undefined;
    let calls: ReplayableCall[] | undefined;
    try {
      value = this.#evaluate(raw, scope, where, 'include path');
    } finally {
      calls = this.#callLog;
      this.#callLog = undefined;
    }
    if (calls && typeof value === 'string' && this.#problems.length === problems && includePathMemo.size < MEMO_LIMIT) {
      includePathMemo.set(raw, { calls, value });
    }
    return value;
  }

  /**
   * Whether each call, made again in `context` (or a file it read, for this unit), gives the answer it gave (see
   * includePathMemo and #evaluateLocal). The evaluation is the same up to the first answer that differs, so the
   * calls made again before it are calls the evaluation makes anyway: what the unit cache records stays the same.
   */
  #replays(calls: readonly ReplayableCall[], context: FunctionContext): boolean {
    for (const call of calls) {
      const fn = contextualFunctions[call.name];
      if (!fn) return false;
      const where =
        call.context === null
          ? context
          : { ...call.context, unitDir: context.unitDir, originalDir: context.originalDir };
      this.#replayingRead = call.name === 'read_terragrunt_config';
      try {
        if (fn(call.args as Value[], where, this) !== call.answer) return false;
      } catch (error) {
        if (error instanceof HclEvalError) return false;
        throw error;
      } finally {
        this.#replayingRead = false;
      }
    }
    return true;
  }

  /**
   * A call made while an included file's local is computed, as the memo logs it; undefined when it cannot be made
   * again for another unit: a function that is not replayable, an answer other than a string, bool or null (a
   * file read by read_terragrunt_config is logged as its path and content hash), or a context that is neither the
   * included file's nor one of a file it read.
   */
  #loggedCall(
    name: string,
    args: readonly Value[],
    answer: Value | undefined,
    context: FunctionContext,
  ): ReplayableCall | undefined {
    let logged: string | boolean | null | undefined;
    if (name === 'read_terragrunt_config') {
      logged = answer !== undefined && answer === this.#lastRead?.value ? this.#lastRead.key : undefined;
    } else if (REPLAYABLE.has(name) && isPlain(answer)) logged = answer;
    const owner = this.#logOwner;
    if (logged === undefined || owner === undefined || !args.every(isPlain)) return undefined;
    if (context === owner) return { name, args, answer: logged, context: null };
    const read =
      context.readChain?.[0] === owner.includedFile &&
      context.unitDir === owner.unitDir &&
      context.originalDir === owner.originalDir;
    return read ? { name, args, answer: logged, context } : undefined;
  }

  /**
   * A local computed on its first access. An included file's local that reads only other locals follows from the
   * file's text and the answers of the Terragrunt functions its computation called (the built-ins are pure, and a
   * file it read is logged with its content hash): when those calls, made again for this unit, answer as they did
   * for an earlier one, it is that unit's value. Made again, they ask the host again, so the unit cache records the
   * same inputs. Never remembered: a value other than a string, bool or null, one computed with a call that cannot
   * be made again (a filesystem built-in, run_cmd, a fallback of read_terragrunt_config), one that failed, or one
   * whose computation read something not logged (a local whose calls are not known, or an attribute of a read
   * file other than its locals).
   */
  #evaluateLocal(state: LocalsState, name: string, evaluate: () => Value): Value {
    const logging = this.#logging;
    const own: FunctionContext = state.context;
    const memos = own.includedFile !== undefined && own.readChain === undefined ? state.info.memos : undefined;
    const logs = (state.logs ??= new Map());
    if (memos === undefined && !logging) {
      logs.set(name, null);
      return evaluate();
    }
    const known = memos?.get(name);
    if (known) {
      for (const memo of known) {
        if (memo.file !== own.includedFile || !this.#replays(memo.calls, own)) continue;
        logs.set(name, memo.calls);
        // Its calls belong to its own file's context: the log of another file's local cannot take them.
        if (logging) this.#appendLog(own === this.#logOwner ? memo.calls : null);
        return memo.value;
      }
    }
    const stack = (this.#frames ??= []);
    if (stack.length === 0) this.#logOwner = own;
    stack.push(readsOnlyLocals(state.info, name) ? [] : null);
    let value: Value;
    try {
      value = evaluate();
    } catch (error) {
      stack.pop();
      logs.set(name, null);
      this.#appendLog(null);
      throw error;
    }
    const log = stack.pop() ?? null;
    logs.set(name, log);
    this.#appendLog(log);
    const remember = memos !== undefined && own === this.#logOwner;
    if (remember && log !== null && isPlain(value) && (known?.length ?? 0) < LOCAL_MEMOS) {
      const file = own.includedFile as string;
      if (known) known.push({ file, calls: log, value });
      else memos.set(name, [{ file, calls: log, value }]);
    }
    return value;
  }

  /** Adds the calls of a local read to the local being computed, if any (null: it cannot be replayed). */
  #appendLog(calls: readonly ReplayableCall[] | null): void {
    const frames = this.#frames;
    if (frames === undefined || frames.length === 0) return;
    const top = frames[frames.length - 1];
    if (top === null || top === undefined) return;
    if (calls === null) frames[frames.length - 1] = null;
    else for (const call of calls) top.push(call);
  }

  /** A scope with no variables, for expressions written in `context` (include paths, values, feature defaults). */
  #bareScope(context: FunctionContext): Scope {
    return { variables: {}, functions: FUNCTIONS, context: this.#site(context) };
  }

  #site(context: FunctionContext): CallSite {
    return { context, calls: this };
  }

  #fsFunctionsFor(configFile: string): Record<string, HclFunction> {
    this.#fsFunctions ??= new Map();
    let table = this.#fsFunctions.get(configFile);
    if (!table) {
      table = fsBuiltins({
        baseDir: dirname(configFile),
        readFile: (path) => this.#host.readText(path),
        exists: (path) => this.#host.kind(path) === 'file',
        glob: (pattern, dir) => this.#host.glob(pattern, dir),
        env: this.#host.env,
      });
      this.#fsFunctions.set(configFile, table);
    }
    return table;
  }

  /** A scope's locals object (see #evaluateLocal and #trackLocals). */
  #locals(json: Json, scope: Scope, context: FunctionContext): Value {
    const state: LocalsState = { info: localsInfoOf(json), context, logs: undefined };
    const locals = evaluateLocals(state.info.locals, () => scope, {
      evaluateLocal: (name, evaluate) => this.#evaluateLocal(state, name, evaluate),
    });
    return this.#trackLocals(locals, state);
  }

  /**
   * The locals object, noting which locals called a function that returned an Unknown when they were computed, so
   * that reading one again later (locals are computed once) counts that call again. While a local is computed for
   * the memo, a local read that was computed before adds the calls it made to the log.
   */
  #trackLocals(locals: Record<string, Value>, state: LocalsState): Value {
    let tainted: Map<string, string> | undefined;
    return new Proxy(locals, {
      get: (target, key) => {
        if (typeof key !== 'string') return Reflect.get(target, key) as unknown;
        const logging = this.#logging;
        if (logging && state.logs?.has(key)) this.#appendLog(state.logs.get(key) ?? null);
        const before = this.#unknownCalls;
        let value: unknown;
        try {
          value = Reflect.get(target, key);
        } catch (error) {
          // A local that failed before fails again without being computed: what it read is not known.
          if (logging) this.#appendLog(null);
          throw error;
        }
        if (this.#unknownCalls > before) (tainted ??= new Map()).set(key, this.#lastUnknownCall);
        else {
          const call = tainted?.get(key);
          if (call !== undefined) this.noteUnknownCall(call);
        }
        return value;
      },
    });
  }

  #scope(context: FunctionContext, json: Json, extra: SharedVariables, exposed: (() => Value) | undefined): Scope {
    const variables: Scope['variables'] = { feature: extra.features, dependency: extra.dependency };
    const scope: Scope = { variables, functions: FUNCTIONS, context: this.#site(context) };
    // The locals object is built when `local` (or include.<name>.locals) is first read: most scopes of a unit (its
    // includes' above all) never are. Each local is then evaluated on first use, in this same scope (locals may
    // refer to each other).
    let locals: Value | undefined;
    variables.local = (): Value => (locals ??= this.#locals(json, scope, context));
    if (extra.values !== undefined) variables.values = extra.values;
    if (exposed) variables.include = exposed;
    return scope;
  }

  /**
   * `include.<name>` when exposed: its locals, and its other attributes where they evaluate. Every attribute is
   * evaluated on first access only: a unit usually reads one local of its root include, not its inputs.
   */
  #exposedObject(json: Json, scope: Scope): Value {
    const out = lazyObject(
      Object.keys(json)
        .filter((key) => key !== 'locals' && key !== 'include')
        .map((key) => [key, () => this.#exposedAttribute(key, json[key], scope)]),
    );
    const locals = scope.variables.local;
    out.locals = typeof locals === 'function' ? locals() : (locals ?? {});
    return out;
  }

  /**
   * One top-level entry of an exposed include. Terragrunt exposes its blocks as objects: `dependency.<name>`,
   * `generate.<name>` and `feature.<name>` by label, `terraform` and `remote_state` as the block's attributes.
   * hcl2json writes a block as a list of bodies, which read as a tuple would make
   * `include.x.dependency.vpc.config_path` an error.
   */
  #exposedAttribute(key: string, raw: unknown, scope: Scope): Value {
    const body = (block: Json): Value =>
      lazyObject(Object.keys(block).map((name) => [name, () => this.#evaluateQuietly(block[name], scope)]));
    if (LABELLED_BLOCKS.has(key) && raw && typeof raw === 'object' && !Array.isArray(raw)) {
      const out: Record<string, Value> = {};
      for (const [name, block] of Object.entries(blockMap(raw))) {
        const object = body(block) as Record<string, Value>;
        if (key === 'dependency') object.outputs = new Unknown(NOT_AVAILABLE, `dependency.${name}`);
        out[name] = object;
      }
      return out;
    }
    const block = UNLABELLED_BLOCKS.has(key) ? firstBlock(raw) : undefined;
    return block ? body(block) : this.#evaluateQuietly(raw, scope);
  }

  #evaluateQuietly(raw: unknown, scope: Scope): Value {
    try {
      return evaluateJson(raw, scope);
    } catch (error) {
      if (error instanceof NeedFiles) throw error;
      return new Unknown(error instanceof Error ? error.message : String(error));
    }
  }

  #valuesObject(values: ParsedFile, context: FunctionContext): Value {
    if (!values.outcome.ok) {
      this.#parseProblem(values);
      return {};
    }
    const scope = this.#bareScope({ ...context, configFile: values.path });
    const out: Record<string, Value> = {};
    for (const [key, raw] of Object.entries(sourceJson(values.outcome.json, values.content)))
      out[key] = this.#evaluateQuietly(raw, scope);
    return out;
  }

  /** `feature.<name>.value`: the block's default, overridden by TG_FEATURE=name=value,... */
  #features(json: Json, included: readonly { parsed: ParsedFile | undefined }[], context: FunctionContext): Value {
    const out: Record<string, Value> = {};
    // The unit's own blocks, then each included file's that parsed.
    this.#featureDefaults(json, context, out);
    for (const { parsed } of included) {
      if (parsed?.outcome.ok) this.#featureDefaults(sourceJson(parsed.outcome.json, parsed.content), context, out);
    }
    const overrides = this.#host.env.TG_FEATURE;
    if (overrides === undefined) return out;
    for (const pair of overrides.split(',')) {
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const raw = pair.slice(eq + 1).trim();
      const value: Value =
        raw === 'true' ? true : raw === 'false' ? false : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
      out[pair.slice(0, eq).trim()] = { value };
    }
    return out;
  }

  /** Each `feature` block's default of one file, into `out` (a later file's wins). */
  #featureDefaults(json: Json, context: FunctionContext, out: Record<string, Value>): void {
    if (json.feature === undefined) return;
    const scope = this.#bareScope(context);
    for (const name of blockLabels(json.feature)) {
      const block = lastBody(json.feature, name);
      if (block) out[name] = { value: this.#evaluateQuietly(block.default ?? null, scope) };
    }
  }

  /**
   * Evaluates an attribute, reporting what goes wrong at `where`: a location, or a function that finds it (finding
   * one scans the file's text, so it is left until there is something to report).
   */
  #evaluate(raw: unknown, scope: Scope, where: Where, what: string): Value | undefined {
    const location = (): SourceLocation | undefined => (typeof where === 'function' ? where() : where);
    const unknownCallsBefore = this.#unknownCalls;
    try {
      const value = evaluateJson(raw, scope);
      if (value instanceof Unknown) {
        this.#unresolved(value, location(), what, raw);
        return undefined;
      }
      if (this.#unknownCalls > unknownCallsBefore) this.#fallbackTaken(this.#lastUnknownCall, location(), what, raw);
      return value;
    } catch (error) {
      if (error instanceof NeedFiles) throw error;
      if (error instanceof Unknown) {
        this.#unresolved(error, location(), what, raw);
        return undefined;
      }
      if (!(error instanceof HclEvalError)) throw error;
      this.#report({
        severity: 'error',
        kind: 'evaluation-error',
        message: `cannot evaluate ${what}: ${error.message}`,
        details: [`expression: ${expressionText(raw)}`],
        location: location(),
        hint: evaluationHint(error.message),
      });
      return undefined;
    }
  }

  /**
   * A value known although a function on the way needed a real run: `try(run_cmd(...), "../vpc")` took its
   * fallback. Terragrunt would have run the command and may have used its output: say so.
   */
  #fallbackTaken(call: string, location: SourceLocation | undefined, what: string, raw: unknown): void {
    this.#report({
      severity: 'warning',
      kind: 'fallback-taken',
      message: `${what} used a fallback: ${call}() was not run (platctl runs nothing while building the graph), so this value, and any edge it gives, may not be the one Terragrunt would use`,
      hint: `make the edge explicit: declare it in implicit_deps (e.g. implicit_deps: { ${this.#unit.id}: [<env>/<unit>] }) and write the path without ${call}()`,
      details: [`expression: ${expressionText(raw)}`],
      location,
    });
  }

  #unresolved(value: Unknown, location: SourceLocation | undefined, what: string, raw: unknown): void {
    this.#report({
      severity: 'error',
      kind: 'unresolved-expression',
      unit: this.#unit.id,
      message: `${what} cannot be resolved offline: ${value.reason}`,
      hint: `declare the edge in implicit_deps (e.g. implicit_deps: { ${this.#unit.id}: [<env>/<unit>] }), or pass --allow-unresolved to continue without it`,
      details: [`expression: ${expressionText(raw)}`],
      location,
    });
  }

  /** The edge of a dependency block after merging (deep: later config_path wins when set; enabled likewise). */
  #mergedDependency(name: string, chain: DependencyDecl[]): DeclaredDependency | undefined {
    let pathSource: DependencyDecl | undefined;
    let enabledSource: DependencyDecl | undefined;
    for (const decl of chain) {
      if (decl.block.config_path !== undefined && decl.block.config_path !== '') pathSource = decl;
      if (decl.block.enabled !== undefined) enabledSource = decl;
    }
    if (enabledSource) {
      const file = enabledSource.file;
      const enabled = this.#evaluate(
        enabledSource.block.enabled,
        enabledSource.scope,
        () => this.#attributeLocation(file, 'dependency', [name], 'enabled', enabledSource.occurrence),
        `dependency "${name}" enabled`,
      );
      if (enabled === false || enabled === undefined) return undefined;
    }
    if (!pathSource) {
      const last = chain[chain.length - 1];
      if (!last) return undefined;
      // `config_path = ""` written out: point at that line (in whichever file of the chain wrote it last).
      const empty = chain.filter((decl) => decl.block.config_path === '').pop();
      if (empty) {
        this.#report({
          severity: 'error',
          kind: 'evaluation-error',
          message: `dependency "${name}" config_path is empty`,
          hint: 'set config_path to the directory of the unit it depends on (a path relative to the unit)',
          location:
            this.#attributeLocation(empty.file, 'dependency', [name], 'config_path', empty.occurrence) ??
            this.#blockLocation(empty.file, 'dependency', [name], empty.occurrence),
        });
        return undefined;
      }
      this.#report({
        severity: 'error',
        kind: 'evaluation-error',
        message: `dependency "${name}" has no config_path`,
        hint: 'set config_path to the directory of the unit it depends on',
        location: this.#blockLocation(last.file, 'dependency', [name], last.occurrence),
      });
      return undefined;
    }
    const location = this.#attributeLocation(
      pathSource.file,
      'dependency',
      [name],
      'config_path',
      pathSource.occurrence,
    );
    const value = this.#evaluate(
      pathSource.block.config_path,
      pathSource.scope,
      location,
      `dependency "${name}" config_path`,
    );
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') {
      this.#report({
        severity: 'error',
        kind: 'evaluation-error',
        message: `dependency "${name}" config_path must be a non-empty string, got ${JSON.stringify(value)}`,
        location,
      });
      return undefined;
    }
    const origin: EdgeOrigin = location ? { kind: 'dependency', name, location } : { kind: 'dependency', name };
    return {
      target: resolveFrom(this.#unit.absDir, value),
      origin,
      expression: expressionText(pathSource.block.config_path),
    };
  }

  /**
   * Every `dependency` block but the last of a label declared more than once in a file (the last one merges like any
   * block). Terragrunt v1.1.3 keeps an edge for each, and newer versions warn: platctl does both.
   */
  #duplicateDependencies(file: ParsedFile, json: Json, scope: Scope, out: DeclaredDependency[]): void {
    // Almost every file declares each label once: nothing to look at (blockBodies builds a map of every label).
    if (!hasRepeatedLabel(json.dependency)) return;
    for (const [name, bodies] of Object.entries(blockBodies(json.dependency))) {
      if (bodies.length < 2) continue;
      const lines = bodies.map((_, i) => this.#blockLocation(file, 'dependency', [name], i)?.line ?? '?');
      this.#report({
        severity: 'warning',
        kind: 'duplicate-dependency',
        message: `dependency "${name}" is declared ${bodies.length} times in this file (lines ${lines.join(', ')}); like Terragrunt v1.1.3, platctl keeps an edge for each, but dependency.${name} can name only one of them`,
        hint: 'give each dependency block its own label',
        location: this.#blockLocation(file, 'dependency', [name], 1),
      });
      bodies.slice(0, -1).forEach((block, occurrence) => {
        const decl = this.#mergedDependency(name, [{ name, block, file, scope, merge: 'child', occurrence }]);
        if (decl) out.push(decl);
      });
    }
  }

  #dependenciesPaths(file: ParsedFile, json: Json, scope: Scope, out: DeclaredDependency[]): void {
    const blocks = Array.isArray(json.dependencies) ? (json.dependencies as Json[]) : [];
    for (const block of blocks) {
      if (block.paths === undefined) continue;
      const location = this.#attributeLocation(file, 'dependencies', [], 'paths');
      const value = this.#evaluate(block.paths, scope, location, 'dependencies paths');
      if (value === undefined) continue;
      const list = Array.isArray(value) ? value : [value];
      for (let i = 0; i < list.length; i += 1) {
        const entry = list[i] as Value;
        const what = Array.isArray(value) ? `dependencies paths[${i}]` : 'dependencies paths';
        // One path needs a real run (run_cmd): the same report as a whole expression that does; the rest count.
        if (entry instanceof Unknown) {
          this.#unresolved(entry, location, what, block.paths);
          continue;
        }
        if (typeof entry !== 'string' || entry === '') {
          this.#report({
            severity: 'error',
            kind: 'evaluation-error',
            message: `${what} must be a string (a path to a unit directory), got ${describePathEntry(entry)}`,
            location,
          });
          continue;
        }
        const origin: EdgeOrigin = location ? { kind: 'dependencies', location } : { kind: 'dependencies' };
        out.push({ target: resolveFrom(this.#unit.absDir, entry), origin, expression: JSON.stringify(entry) });
      }
    }
  }

  #remoteState(block: Json, scope: Scope): RemoteState | undefined {
    const backend = this.#evaluateQuietly(block.backend, scope);
    if (typeof backend !== 'string') return undefined;
    const config: Record<string, unknown> = {};
    const rawConfig = block.config;
    const evaluated = this.#evaluateQuietly(rawConfig, scope);
    if (isObject(evaluated)) {
      for (const [key, value] of Object.entries(evaluated)) {
        if (!(value instanceof Unknown) && !containsUnknown(value)) config[key] = value;
      }
    } else if (rawConfig && typeof rawConfig === 'object' && !Array.isArray(rawConfig)) {
      for (const [key, raw] of Object.entries(rawConfig as Json)) {
        const value = this.#evaluateQuietly(raw, scope);
        if (!containsUnknown(value)) config[key] = value;
      }
    }
    return { backend, config };
  }

  /** read_terragrunt_config: the file's locals, inputs and other attributes, in its own directory's context. */
  #readConfig(path: string, context: FunctionContext): Value {
    const chain = context.readChain ?? [context.includedFile ?? context.configFile];
    if (chain.includes(path)) {
      // Terragrunt reads eagerly and never returns from this; say which files read each other.
      throw new HclEvalError(
        `read_terragrunt_config: files read each other in a cycle: ${[...chain, path].join(' -> ')} (Terragrunt never finishes reading them)`,
      );
    }
    const parsed = this.#need(path);
    this.#flushNeeds();
    if (!parsed) throw new HclEvalError(`read_terragrunt_config: ${path} could not be read`);
    if (!parsed.outcome.ok) {
      throw new HclEvalError(
        `read_terragrunt_config: ${path}:${parsed.outcome.location.line}: ${parsed.outcome.message}`,
      );
    }
    const json = sourceJson(parsed.outcome.json, parsed.content);
    const names = Object.keys(blockMap(json.dependency));
    if (names.length > 0 && !this.#readWithDeps?.has(path)) {
      (this.#readWithDeps ??= new Map()).set(
        path,
        this.#blockLocation(parsed, 'dependency', [names[0] ?? '']) ?? { file: path, line: 1 },
      );
    }
    // Made again for the memo of a local (#replays): the file is read, and known by its content.
    if (this.#replayingRead) return readKey(path, parsed.hash);
    const readContext: FunctionContext = {
      unitDir: context.unitDir,
      originalDir: context.originalDir,
      configFile: path,
      includes: NO_INCLUDES,
      readChain: [...chain, path],
    };
    const dependencyNames = new Set(names);
    const scope = this.#scope(
      readContext,
      json,
      { values: undefined, features: {}, dependencyNames, dependency: () => dependencyObject(dependencyNames) },
      undefined,
    );
    // Its other attributes are computed once, so a local computed later would not see the calls they made: reading
    // one keeps that local out of the memo (see #evaluateLocal).
    const out = lazyObject(
      Object.keys(json)
        .filter((key) => key !== 'locals' && key !== 'dependency' && key !== 'include')
        .map((key) => [key, () => this.#evaluateQuietly(json[key], scope)]),
      () => this.#appendLog(null),
    );
    const locals = scope.variables.local;
    out.locals = typeof locals === 'function' ? locals() : (locals ?? {});
    const dependency: Record<string, Value> = {};
    for (const name of names) dependency[name] = { outputs: new Unknown(NOT_AVAILABLE, `dependency.${name}`) };
    out.dependency = dependency;
    if (this.#logging) this.#lastRead = { value: out, key: readKey(path, parsed.hash) };
    return out;
  }

  /**
   * read_tfvars_file: the file's variables as a JSON string, as Terragrunt returns them (`jsondecode()` makes them an
   * object). A file whose name ends in `json` is returned as written once it reads as a JSON object; any other file is
   * HCL whose attributes are evaluated with no variables and no functions, then encoded as jsonencode() would.
   */
  #readTfvars(path: string): string {
    if (path.endsWith('json')) return this.#readJsonTfvars(path);
    const parsed = this.#need(path);
    this.#flushNeeds();
    if (!parsed) throw new HclEvalError(`read_tfvars_file: ${path} could not be read`);
    if (!parsed.outcome.ok) {
      throw new HclEvalError(`read_tfvars_file: ${path}:${parsed.outcome.location.line}: ${parsed.outcome.message}`);
    }
    const scope: Scope = { variables: {}, functions: {} };
    const out: Record<string, Value> = {};
    for (const [key, raw] of Object.entries(sourceJson(parsed.outcome.json, parsed.content))) {
      try {
        out[key] = evaluateJson(raw, scope);
      } catch (error) {
        if (!(error instanceof HclEvalError)) throw error;
        throw new HclEvalError(`read_tfvars_file: ${path}: ${key}: ${error.message} (a tfvars file holds only values)`);
      }
    }
    const text = (pureBuiltins.jsonencode as HclFunction)([out], { name: 'read_tfvars_file', scope });
    if (typeof text !== 'string') throw new Error('bug: jsonencode returned something other than a string');
    return text;
  }

  /** A `.json` variables file, returned as its text once it reads as a JSON object (or null), as Terragrunt checks. */
  #readJsonTfvars(path: string): string {
    const text = this.#host.readText(path);
    if (text === undefined) throw new HclEvalError(`read_tfvars_file: ${path} could not be read`);
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new HclEvalError(
        `read_tfvars_file: could not unmarshal json body of tfvar file ${path}: ${(error as Error).message}`,
      );
    }
    if (data !== null && (typeof data !== 'object' || Array.isArray(data))) {
      throw new HclEvalError(
        `read_tfvars_file: could not unmarshal json body of tfvar file ${path}: it holds ${Array.isArray(data) ? 'an array' : `a ${typeof data}`}, not an object`,
      );
    }
    return text;
  }

  /** The `occurrence`-th top-level block of that type and labels (the first by default). */
  #findBlock(file: ParsedFile, type: string, labels: string[], occurrence = 0): BlockPosition | undefined {
    let seen = 0;
    for (const block of this.#host.files.positions(file)) {
      if (block.type !== type || (labels.length > 0 && !sameLabels(block.labels, labels))) continue;
      if (seen === occurrence) return block;
      seen += 1;
    }
    return undefined;
  }

  #blockLocation(file: ParsedFile, type: string, labels: string[], occurrence = 0): SourceLocation | undefined {
    const block = this.#findBlock(file, type, labels, occurrence);
    return block ? { file: file.path, line: block.line, column: block.column } : undefined;
  }

  #attributeLocation(
    file: ParsedFile,
    type: string,
    labels: string[],
    attribute: string,
    occurrence = 0,
  ): SourceLocation | undefined {
    const block = this.#findBlock(file, type, labels, occurrence);
    if (!block) return undefined;
    const at = block.attributes[attribute];
    return at
      ? { file: file.path, line: at[0], column: at[1] }
      : { file: file.path, line: block.line, column: block.column };
  }
}

const remoteStateReadsDependency = new WeakMap<Json, boolean>();

/**
 * Whether a remote_state block's `backend` or `config` may read `dependency` (directly, or through the file's
 * locals): a static look, so that only such a block is evaluated. Remembered per block.
 */
function mayReadDependency(json: Json, block: Json): boolean {
  let reads = remoteStateReadsDependency.get(block);
  if (reads === undefined) {
    const locals = localsInfoOf(json).locals;
    const seen = new Set<string>();
    const readsDependency = (raw: unknown): boolean =>
      jsonReferences(raw).variables.some((v) => {
        if (v === 'dependency' || v.startsWith('dependency.')) return true;
        if (!v.startsWith('local.')) return false;
        const name = v.slice('local.'.length).split('.')[0] ?? '';
        if (seen.has(name) || !hasOwn(locals, name)) return false;
        seen.add(name);
        return readsDependency(locals[name]);
      });
    reads = readsDependency(block.backend) || readsDependency(block.config);
    remoteStateReadsDependency.set(block, reads);
  }
  return reads;
}

/** A hint for an evaluation error whose usual cause is known, from its message. */
function evaluationHint(message: string): string | undefined {
  // values.* exists only beside a terragrunt.values.hcl, which terragrunt stack generate writes.
  if (/unknown variable "values"/.test(message)) {
    return 'values.* is set only in units generated from a terragrunt.stack.hcl (they get a terragrunt.values.hcl): if this directory is a unit template, run `terragrunt stack generate` where the stack file is and add the template directory to exclude: in .platctl.yaml';
  }
  if (/of read_tfvars_file\(.*\): it is a string/.test(message)) {
    return 'read_tfvars_file() returns the variables as a JSON string, as in Terragrunt: wrap it in jsondecode(), e.g. jsondecode(read_tfvars_file("vars.tfvars")).name';
  }
  return undefined;
}

/** Labels compare joined by NUL (so a label holding NUL may match two), without joining the common ones. */
function sameLabels(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === b.length && a.every((label, i) => label === b[i])) return true;
  const hasNul = (label: string): boolean => label.includes('\u0000');
  return (a.some(hasNul) || b.some(hasNul)) && a.join('\u0000') === b.join('\u0000');
}

/**
 * An object whose properties are computed on first access, then kept. With `onRead`, every access of one calls it
 * (the property stays a getter).
 */
function lazyObject(entries: [string, () => Value][], onRead?: () => void): Record<string, Value> {
  const out: Record<string, Value> = {};
  if (onRead) {
    for (const [key, compute] of entries) {
      let value: Value | undefined;
      let computed = false;
      const get = (): Value => {
        onRead();
        if (!computed) {
          value = compute();
          computed = true;
        }
        return value as Value;
      };
      Object.defineProperty(out, key, { enumerable: true, configurable: true, get });
    }
    return out;
  }
  for (const [key, compute] of entries) {
    Object.defineProperty(out, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        const value = compute();
        Object.defineProperty(out, key, { value, enumerable: true, configurable: true, writable: true });
        return value;
      },
    });
  }
  return out;
}

/** hcl2json writes a labelled block as `{label: [body]}`. */
function blockMap(value: unknown): Record<string, Json> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: Record<string, Json> = {};
  for (const [name, bodies] of Object.entries(value as Record<string, unknown>)) {
    const body = Array.isArray(bodies) ? (bodies[bodies.length - 1] as unknown) : bodies;
    if (body && typeof body === 'object') out[name] = body as Json;
  }
  return out;
}

/** hcl2json's `{label: [body, ...]}`: every body of each label, in file order. */
function blockBodies(value: unknown): Record<string, Json[]> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: Record<string, Json[]> = {};
  for (const [name, bodies] of Object.entries(value as Record<string, unknown>)) {
    const list = (Array.isArray(bodies) ? (bodies as unknown[]) : [bodies]).filter(
      (body): body is Json => !!body && typeof body === 'object',
    );
    if (list.length > 0) out[name] = list;
  }
  return out;
}

/** A value that is not a path, in words for a message ("the number 3", "a tuple", "an empty string", "null"). */
function describePathEntry(entry: Value): string {
  if (entry === '') return 'an empty string';
  if (entry === null) return 'null';
  const type = typeName(entry);
  if (type === 'tuple' || type === 'object') return `${type === 'tuple' ? 'a' : 'an'} ${type}`;
  return `the ${type} ${describeValue(entry)}`;
}

/** The index of the last body of this label among its bodies that are objects (0 when there are none). */
function lastOccurrence(value: unknown, name: string): number {
  const bodies = asObject(value)?.[name];
  if (!Array.isArray(bodies)) return 0;
  let count = 0;
  for (const body of bodies as unknown[]) if (body && typeof body === 'object') count += 1;
  return Math.max(0, count - 1);
}

/** The labels of hcl2json's `{label: [body, ...]}` (none when it is not an object), in order. */
function blockLabels(value: unknown): string[] {
  return value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
}

/** The body blockMap keeps for a label (its last, when that is an object), without building the whole map. */
function lastBody(value: unknown, name: string): Json | undefined {
  const bodies = (value as Record<string, unknown>)[name];
  const body = Array.isArray(bodies) ? (bodies[bodies.length - 1] as unknown) : bodies;
  return body && typeof body === 'object' ? (body as Json) : undefined;
}

/** Adds the labels blockMap would keep to `names`. */
function addBlockLabels(names: Set<string>, value: unknown): void {
  for (const name of blockLabels(value)) if (lastBody(value, name)) names.add(name);
}

/** Whether some label has two or more bodies (blockBodies would list it with more than one). */
function hasRepeatedLabel(value: unknown): boolean {
  for (const name of blockLabels(value)) {
    const bodies = (value as Record<string, unknown>)[name];
    if (Array.isArray(bodies) && bodies.length > 1) return true;
  }
  return false;
}

/** The `dependency` variable: each name's outputs and inputs, which only a real run knows. */
function dependencyObject(names: ReadonlySet<string>): Value {
  const out: Record<string, Value> = {};
  for (const name of names) {
    out[name] = { outputs: new Unknown(NOT_AVAILABLE, `dependency.${name}`), inputs: new Unknown(NOT_AVAILABLE) };
  }
  return out;
}

function firstBlock(value: unknown): Json | undefined {
  if (!Array.isArray(value)) return undefined;
  const first = value[0] as unknown;
  return first && typeof first === 'object' ? (first as Json) : undefined;
}

function asObject(value: unknown): Json | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** All `locals` blocks of a file, as one map (Terragrunt allows one; be lenient). */
function mergeLocals(value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Array.isArray(value))
    for (const block of value) if (block && typeof block === 'object') Object.assign(out, block);
  return out;
}

function containsUnknown(value: Value): boolean {
  if (value instanceof Unknown) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === 'object') return Object.values(value).some(containsUnknown);
  return false;
}

/** An hcl2json value shown as the user wrote it (roughly): `${expr}` strings lose their wrapper. */
export function expressionText(raw: unknown): string {
  if (typeof raw === 'string') {
    // Every declared dependency keeps its expression's text, and units repeat the same few: remembered.
    let text = expressionTexts.get(raw);
    if (text === undefined) {
      const m = /^\$\{([\s\S]*)\}$/.exec(raw);
      text = m && !m[1]?.includes('${') ? (m[1] ?? raw) : JSON.stringify(raw);
      if (expressionTexts.size < MEMO_LIMIT) expressionTexts.set(raw, text);
    }
    return text;
  }
  return JSON.stringify(raw);
}

/** A bound on each memo of this module: a repository has far fewer distinct expressions; it only guards memory. */
const MEMO_LIMIT = 4096;
const expressionTexts = new Map<string, string>();
