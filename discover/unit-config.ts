/**
 * One unit's merged configuration, as far as the graph needs it: includes, locals, `dependency` and `dependencies`
 * blocks, `remote_state`. This follows Terragrunt v1's partial parse (docs/discovery.md):
 *
 * - include paths are evaluated first (functions only), relative to the unit's directory;
 * - functions in an included file run in the unit's context; its `local.*` are its own locals;
 * - the unit's locals may read `include.<name>.locals` when the include has `expose = true`;
 * - relative dependency paths resolve against the unit's directory, even when written in an included file;
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
import type { CallInfo, HclFunction, LazyValue, Scope, Value } from './hcl/index.js';
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
      const value = fn(args, context, calls.functionHost);
      if (value instanceof Unknown) calls.noteUnknownCall(name);
      return value;
    };
  }
  const sample = fsBuiltins({ baseDir: '/', readFile: () => undefined, exists: () => false, glob: () => [] });
  for (const [name, fn] of Object.entries(sample)) {
    if (hasOwn(out, name)) continue;
    const bound: HclFunction = (args, call) => {
      const { context, calls } = callSite(call);
      return (calls.fsFunctions(context.configFile)[name] as HclFunction)(args, call);
    };
    out[name] = fn.acceptsUnknown ? Object.assign(bound, { acceptsUnknown: true }) : bound;
  }
  for (const [name, fn] of Object.entries(pureBuiltins)) if (!hasOwn(out, name)) out[name] = fn;
  return Object.freeze(out);
})();

type Json = Record<string, unknown>;

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

interface IncludeScope {
  readonly decl: IncludeDecl;
  readonly parsed: ParsedFile;
  readonly json: Json;
  readonly scope: Scope;
}

/** Variables every scope of a unit shares. */
interface SharedVariables {
  readonly values: Value | undefined;
  readonly features: Value;
  /** Filled as the included files are read: `dependency.<name>` is read lazily, after all of them are. */
  readonly dependencyNames: Set<string>;
}

const NOT_AVAILABLE = 'dependency outputs are not available while building the graph';

/** Terragrunt's block types with a label, and without (the others are attributes). */
const LABELLED_BLOCKS = new Set(['dependency', 'generate', 'feature']);
const UNLABELLED_BLOCKS = new Set(['terraform', 'remote_state', 'dependencies', 'exclude', 'errors', 'engine']);

/** Evaluates one unit. Throws `NeedFiles` when more files must be parsed first. */
export function evaluateUnitConfig(unit: UnitConfigInput, host: EvaluationHost): UnitConfig {
  return new UnitEvaluation(unit, host).run();
}

class UnitEvaluation {
  readonly #unit: UnitConfigInput;
  readonly #host: EvaluationHost;
  readonly #problems: Problem[] = [];
  readonly #needed = new Set<string>();
  readonly #readWithDeps = new Map<string, SourceLocation>();
  readonly #includes = new Map<string, string>();
  readonly #calls: EvaluationCalls;
  /** The filesystem built-ins per config file, built when an expression there first calls one. */
  readonly #fsFunctions = new Map<string, Record<string, HclFunction>>();
  /** Calls so far of functions that need a real run (run_cmd, sops, AWS), which returned an Unknown; the latest. */
  #unknownCalls = 0;
  #lastUnknownCall = '';

  constructor(unit: UnitConfigInput, host: EvaluationHost) {
    this.#unit = unit;
    this.#host = host;
    this.#calls = {
      functionHost: {
        kind: (p) => host.kind(p),
        findUp: (dir, probes) => host.findUp(dir, probes),
        env: host.env,
        repoRoot: (d) => host.repoRoot(d),
        readConfig: (path, context) => this.#readConfig(path, context),
        readTfvars: (path) => this.#readTfvars(path),
      },
      noteUnknownCall: (name) => this.#noteUnknownCall(name),
      fsFunctions: (configFile) => this.#fsFunctionsFor(configFile),
    };
  }

  /**
   * The phases of Terragrunt's partial parse, each its own method: one long method was slow to compile, and a
   * deoptimisation anywhere in it threw all of it away (it was compiled again and again on a cold run).
   */
  run(): UnitConfig {
    const file = this.#need(this.#unit.configFile);
    const valuesFile = childPath(this.#unit.absDir, 'terragrunt.values.hcl');
    const autoincludeFile = childPath(this.#unit.absDir, 'terragrunt.autoinclude.hcl');
    const hasValues = this.#host.kind(valuesFile) === 'file';
    const hasAutoinclude = this.#host.kind(autoincludeFile) === 'file';
    const values = hasValues ? this.#need(valuesFile) : undefined;
    const autoinclude = hasAutoinclude ? this.#need(autoincludeFile) : undefined;
    this.#flushNeeds();
    if (!file) return this.#result([], []);
    if (!file.outcome.ok) {
      this.#parseProblem(file);
      return this.#result([], []);
    }
    const json = sourceJson(file.outcome.json, file.content);

    // 1. Includes: their paths use functions only (Terragrunt parses include before locals).
    const includeDecls = this.#includeDecls(file, json);
    for (const inc of includeDecls) this.#includes.set(inc.name, inc.file);
    const included = includeDecls.map((inc) => ({ inc, parsed: this.#need(inc.file) }));
    this.#flushNeeds();

    const baseContext = this.#unitContext(this.#includes);

    // 2. values and features, visible to the unit and its includes.
    const featureSources: Json[] = [json];
    for (const { parsed } of included) {
      if (parsed?.outcome.ok) featureSources.push(sourceJson(parsed.outcome.json, parsed.content));
    }
    const shared: SharedVariables = {
      values: values ? this.#valuesObject(values, baseContext) : undefined,
      features: this.#features(featureSources, baseContext),
      dependencyNames: new Set(Object.keys(blockMap(json.dependency))),
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
    const merging: ConfigSource[] = [...includeScopes.values()]
      .filter((e) => e.decl.mergeStrategy !== 'no_merge')
      .map((e) => ({ file: e.parsed, json: e.json, scope: e.scope }));
    const sources = [...merging, unitSource];
    const remoteState = this.#host.remoteState ? this.#mergedRemoteState(sources) : undefined;
    const preventDestroy = this.#preventDestroy(sources, unitSource);
    for (const source of sources) this.#checkTerraformSource(source.file, source.json);
    const exclude = this.#mergedExclude(sources);
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
      for (const name of Object.keys(blockMap(incJson.dependency))) shared.dependencyNames.add(name);
      const context: FunctionContext = {
        unitDir: baseContext.unitDir,
        originalDir: baseContext.originalDir,
        configFile: baseContext.configFile,
        includes: baseContext.includes,
        includedFile: parsed.path,
      };
      const scope = this.#scope(context, incJson, shared, undefined);
      includeScopes.set(inc.name, { decl: inc, parsed, json: incJson, scope });
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
    for (const { decl, parsed, json: incJson, scope } of includeScopes.values()) {
      if (decl.mergeStrategy === 'no_merge') continue;
      for (const [name, block] of Object.entries(blockMap(incJson.dependency))) {
        const dep: DependencyDecl = {
          name,
          block,
          file: parsed,
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
      pathsFrom.push({ file: parsed, json: incJson, scope });
    }
    if (auto) {
      // terragrunt.autoinclude.hcl merges shallowly with no include block, and wins over the unit.
      for (const source of [unit, auto]) {
        for (const [name, block] of Object.entries(blockMap(source.json.dependency))) {
          const occurrence = lastOccurrence(source.json.dependency, name);
          const { file, scope } = source;
          mergedBlocks.set(name, [{ name, block, file, scope, merge: 'child', occurrence }]);
        }
      }
      pathsFrom.push(auto);
    } else {
      for (const [name, block] of Object.entries(blockMap(unit.json.dependency))) {
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
    for (const source of pathsFrom)
      declarations.push(...this.#duplicateDependencies(source.file, source.json, source.scope));
    for (const source of pathsFrom)
      declarations.push(...this.#dependenciesPaths(source.file, source.json, source.scope));
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
    const readFilesWithDependencies = [...this.#readWithDeps].map(([file, location]) => ({ file, location }));
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
      this.#needed.add(path);
      return undefined;
    }
    return this.#host.files.get(path);
  }

  #flushNeeds(): void {
    if (this.#needed.size > 0) throw new NeedFiles([...this.#needed]);
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
    // No includes yet: their paths are what this reads.
    const scope = this.#bareScope(this.#unitContext(new Map()));
    const entries: [string, Json][] = Array.isArray(json.include)
      ? (json.include as Json[]).map((b) => ['', b])
      : Object.entries(blockMap(json.include));
    for (const [name, block] of entries) {
      const location = (): SourceLocation | undefined =>
        this.#attributeLocation(file, 'include', name ? [name] : [], 'path');
      const path = this.#evaluate(block.path, scope, location, 'include path');
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
      const strategy = this.#evaluate(block.merge_strategy ?? 'shallow', scope, location, 'merge_strategy');
      const mergeStrategy = strategy === 'deep' || strategy === 'no_merge' ? strategy : 'shallow';
      const expose = this.#evaluate(block.expose ?? false, scope, location, 'expose') === true;
      out.push({ name, file: resolveFrom(this.#unit.absDir, path), expose, mergeStrategy });
    }
    return out;
  }

  /** A scope with no variables, for expressions written in `context` (include paths, values, feature defaults). */
  #bareScope(context: FunctionContext): Scope {
    return { variables: {}, functions: FUNCTIONS, context: this.#site(context) };
  }

  #site(context: FunctionContext): CallSite {
    return { context, calls: this.#calls };
  }

  #fsFunctionsFor(configFile: string): Record<string, HclFunction> {
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

  #noteUnknownCall(name: string): void {
    this.#unknownCalls += 1;
    this.#lastUnknownCall = name;
  }

  /**
   * The locals object, noting which locals called a function that returned an Unknown when they were computed, so
   * that reading one again later (locals are computed once) counts that call again.
   */
  #trackLocals(locals: LazyValue | undefined): LazyValue | undefined {
    if (!locals || typeof locals !== 'object' || Array.isArray(locals) || locals instanceof Unknown) return locals;
    const tainted = new Map<string, string>();
    return new Proxy(locals, {
      get: (target, key) => {
        if (typeof key !== 'string') return Reflect.get(target, key) as unknown;
        const before = this.#unknownCalls;
        const value = Reflect.get(target, key) as unknown;
        if (this.#unknownCalls > before) tainted.set(key, this.#lastUnknownCall);
        else {
          const call = tainted.get(key);
          if (call !== undefined) this.#noteUnknownCall(call);
        }
        return value;
      },
    });
  }

  #scope(context: FunctionContext, json: Json, extra: SharedVariables, exposed: (() => Value) | undefined): Scope {
    const localsRaw = mergeLocals(json.locals);
    const variables: Scope['variables'] = {
      feature: extra.features,
      dependency: () => {
        const out: Record<string, Value> = {};
        for (const name of extra.dependencyNames) {
          out[name] = { outputs: new Unknown(NOT_AVAILABLE, `dependency.${name}`), inputs: new Unknown(NOT_AVAILABLE) };
        }
        return out;
      },
    };
    const scope: Scope = { variables, functions: FUNCTIONS, context: this.#site(context) };
    // Lazy: each local is evaluated on first use, in this same scope (locals may refer to each other).
    const locals = this.#trackLocals(evaluateLocals(localsRaw, () => scope));
    if (locals !== undefined) variables.local = locals;
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
  #features(sources: Json[], context: FunctionContext): Value {
    const out: Record<string, Value> = {};
    const scope = this.#bareScope(context);
    for (const json of sources) {
      for (const [name, block] of Object.entries(blockMap(json.feature))) {
        out[name] = { value: this.#evaluateQuietly(block.default ?? null, scope) };
      }
    }
    for (const pair of (this.#host.env.TG_FEATURE ?? '').split(',')) {
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const raw = pair.slice(eq + 1).trim();
      const value: Value =
        raw === 'true' ? true : raw === 'false' ? false : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
      out[pair.slice(0, eq).trim()] = { value };
    }
    return out;
  }

  /** Evaluates an edge-feeding value; reports problems and returns undefined when it cannot be used. */
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
        // values.* exists only beside a terragrunt.values.hcl, which terragrunt stack generate writes.
        hint: /unknown variable "values"/.test(error.message)
          ? 'values.* is set only in units generated from a terragrunt.stack.hcl (they get a terragrunt.values.hcl): if this directory is a unit template, run `terragrunt stack generate` where the stack file is and add the template directory to exclude: in .platctl.yaml'
          : undefined,
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
  #duplicateDependencies(file: ParsedFile, json: Json, scope: Scope): DeclaredDependency[] {
    const out: DeclaredDependency[] = [];
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
    return out;
  }

  #dependenciesPaths(file: ParsedFile, json: Json, scope: Scope): DeclaredDependency[] {
    const out: DeclaredDependency[] = [];
    const blocks = Array.isArray(json.dependencies) ? (json.dependencies as Json[]) : [];
    for (const block of blocks) {
      if (block.paths === undefined) continue;
      const location = this.#attributeLocation(file, 'dependencies', [], 'paths');
      const value = this.#evaluate(block.paths, scope, location, 'dependencies paths');
      if (value === undefined) continue;
      const list = Array.isArray(value) ? value : [value];
      for (const [i, entry] of list.entries()) {
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
    return out;
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
    if (names.length > 0 && !this.#readWithDeps.has(path)) {
      this.#readWithDeps.set(
        path,
        this.#blockLocation(parsed, 'dependency', [names[0] ?? '']) ?? { file: path, line: 1 },
      );
    }
    const readContext: FunctionContext = {
      unitDir: context.unitDir,
      originalDir: context.originalDir,
      configFile: path,
      includes: new Map(),
      readChain: [...chain, path],
    };
    const scope = this.#scope(
      readContext,
      json,
      { values: undefined, features: {}, dependencyNames: new Set(names) },
      undefined,
    );
    const out = lazyObject(
      Object.keys(json)
        .filter((key) => key !== 'locals' && key !== 'dependency' && key !== 'include')
        .map((key) => [key, () => this.#evaluateQuietly(json[key], scope)]),
    );
    const locals = scope.variables.local;
    out.locals = typeof locals === 'function' ? locals() : (locals ?? {});
    const dependency: Record<string, Value> = {};
    for (const name of names) dependency[name] = { outputs: new Unknown(NOT_AVAILABLE, `dependency.${name}`) };
    out.dependency = dependency;
    return out;
  }

  #readTfvars(path: string): Value {
    const parsed = this.#need(path);
    this.#flushNeeds();
    if (!parsed?.outcome.ok) throw new HclEvalError(`read_tfvars_file: ${path} could not be parsed`);
    const scope: Scope = { variables: {}, functions: {} };
    const out: Record<string, Value> = {};
    for (const [key, raw] of Object.entries(sourceJson(parsed.outcome.json, parsed.content)))
      out[key] = this.#evaluateQuietly(raw, scope);
    return out;
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

/** Labels compare joined by NUL (so a label holding NUL may match two), without joining the common ones. */
function sameLabels(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === b.length && a.every((label, i) => label === b[i])) return true;
  const hasNul = (label: string): boolean => label.includes('\u0000');
  return (a.some(hasNul) || b.some(hasNul)) && a.join('\u0000') === b.join('\u0000');
}

/** An object whose properties are computed on first access, then kept. */
function lazyObject(entries: [string, () => Value][]): Record<string, Value> {
  const out: Record<string, Value> = {};
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

/** The index of the last block with this label (the one blockMap returns). */
/** A value that is not a path, in words for a message ("the number 3", "a tuple", "an empty string", "null"). */
function describePathEntry(entry: Value): string {
  if (entry === '') return 'an empty string';
  if (entry === null) return 'null';
  const type = typeName(entry);
  if (type === 'tuple' || type === 'object') return `${type === 'tuple' ? 'a' : 'an'} ${type}`;
  return `the ${type} ${describeValue(entry)}`;
}

function lastOccurrence(value: unknown, name: string): number {
  return Math.max(0, (blockBodies(value)[name]?.length ?? 1) - 1);
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
    const m = /^\$\{([\s\S]*)\}$/.exec(raw);
    return m && !m[1]?.includes('${') ? (m[1] ?? raw) : JSON.stringify(raw);
  }
  return JSON.stringify(raw);
}
