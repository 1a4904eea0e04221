/**
 * Discovery the full way: walk the environments, read and parse the unit files (reusing the parse and unit caches),
 * evaluate what changed, resolve the edges, and keep a snapshot for the next run. docs/discovery.md states the rules
 * followed; index.ts answers from the snapshot first and loads this module only when it cannot.
 */
import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type FastGlob from 'fast-glob';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Graph, compareIds, findCycles } from '../engine/graph.js';
import type { UnitId } from '../engine/graph.js';
import { MAX_FOLDERS_TO_CHECK, findUp } from './functions.js';
import { ParsedFiles } from './parsed-files.js';
import { STACK_FILE, UNIT_FILE, childPath, isPlainName, relativePosix, scan, toPosix } from './scan.js';
import type { ScannedDir } from './scan.js';
import { UnitCache, recordedFiles, recordingHost, stillValid } from './unit-cache.js';
import type { CachedUnit, UnitInputs } from './unit-cache.js';
import { HclParserPool, PARSER_ID } from './hcl2json.js';
import { discoveryCodeHash } from './code-hash.js';
import type { DiscoverExtras, Discovery, ExternalDependency } from './discovery.js';
import type { DeclaredDependency, EvaluationHost, UnitConfig } from './unit-config.js';
import type * as UnitConfigModule from './unit-config.js';
import { chainText, isUsable, problem, withLazyHint } from './types.js';
import type { DiscoverOptions, Problem, UnitInfo } from './types.js';
import { PathSuggester } from './suggest.js';
import { readErrorText } from './parsed-files.js';
import { SnapshotWitness, filesystemNow, writeSnapshot } from './snapshot.js';
import { unitMatcher, unitReferences } from '../config/unit-refs.js';

/** Attempts per unit: each parses the files the previous attempt found it needs (includes, read files). */
const MAX_ROUNDS = 25;
/** Bumped whenever what a cached unit holds changes (2: prevent_destroy; 3: find_in_parent_folders as one input; 4: flat lists). */
const UNIT_CACHE_FORMAT = 4;
/** How long evaluation runs before it lets the parser workers' results in (they may be waiting for more work). */
const YIELD_AFTER_MS = 4;

/**
 * How much bytecode V8's optimising compiler may inline into one function, for the rest of the process (V8's default
 * is 920). A full discovery runs a few hundred functions hot enough to optimise, each once, and the compiler's
 * threads share the machine's cores with the main thread: with deep inlining they took about 1.2 s of CPU beside a
 * 2 s main thread on 5,000 units (`--no-opt` showed it), more than the inlined code saved. At 100 the whole process
 * used about 11 % less CPU and 7 % less wall time, the main thread no more (9 interleaved cold runs; 50 made the main
 * thread slower, 200 saved less). See docs/discovery.md's Performance section. A compiler heuristic only: it changes
 * how fast code runs, never what it does.
 */
const INLINED_BYTECODE_BUDGET = 100;
let compilerTuned = false;

function tuneCompiler(): void {
  if (compilerTuned) return;
  compilerTuned = true;
  setFlagsFromString(`--max-inlined-bytecode-size-cumulative=${INLINED_BYTECODE_BUDGET}`);
}

let fastGlobModule: typeof FastGlob | undefined;
/** fast-glob, loaded on the first glob an expression asks for (`fileset`): most repositories never need it. */
function fastGlob(): typeof FastGlob {
  return (fastGlobModule ??= createRequire(import.meta.url)('fast-glob') as typeof FastGlob);
}

/**
 * The discovery, the full way. `snapshotKey`: keep a snapshot of the result under this key (see snapshot.ts);
 * undefined: keep none.
 */
export async function discoverFully(
  options: DiscoverOptions,
  extras: DiscoverExtras,
  snapshotKey: string | undefined,
): Promise<Discovery> {
  tuneCompiler();
  const root = resolve(options.root);
  const problems: Problem[] = [];
  const envDirs = environmentDirs(root, options);
  const cacheDir = options.cacheDir === undefined ? join(root, '.platctl-cache') : options.cacheDir;
  // The filesystem's clock before anything is read: inputs changed since (or just before) keep the snapshot unwritten.
  const startedAt = snapshotKey !== undefined && cacheDir !== false ? filesystemNow(cacheDir) : undefined;
  const witness = new SnapshotWitness();
  const unitCache = new UnitCache(
    cacheDir,
    `${UNIT_CACHE_FORMAT}/${extras.version ?? 'dev'}/${discoveryCodeHash()}/${PARSER_ID}`,
  );
  await unitCache.load();
  // With no unit to reuse, every unit is evaluated: the evaluator's modules load while the walk runs, instead of
  // after it with the main thread idle (about 50 ms of reading them through the thread pool at load 5).
  const evaluator = unitCache.empty ? loadEvaluator() : undefined;
  // Lazy: a worker (and hcl2json's WASM) starts only for a file the TypeScript file parser declines.
  const pool = extras.parserPool ?? new HclParserPool();

  const { graph, units, unitByDir, stackDirs, listings, visited } = await scanUnits(
    root,
    envDirs,
    options,
    problems,
  ).catch(async (error: unknown) => {
    await pool.close();
    throw error;
  });

  const files = new ParsedFiles({ cacheDir, version: extras.version ?? 'dev', pool });
  const host = evaluationHost(files, witness.watchEnv(options.env), listings, options.remoteState === true, witness);
  const { evaluated, saving } = await evaluateAndSave(units, {
    files,
    host,
    unitCache,
    problems,
    remoteState: options.remoteState === true,
    evaluator,
    root,
  });
  const { configs, rounds, reused } = evaluated;

  const externals = resolveEdges(units, configs, { graph, problems, unitByDir, stackDirs, witness, host, root });

  addConfiguredEdges(graph, options, extras, problems);

  problems.push(...cycleProblems(graph, root));

  if (options.allowUnresolved) softenUnresolved(problems);

  const discovery = { graph, units: publicUnits(units), problems, externals };
  if (snapshotKey !== undefined && cacheDir !== false && startedAt !== undefined && isUsable(discovery)) {
    const racyWindowMs = extras.snapshotRacyWindowMs;
    const inputs = { root, dirs: visited, files: files.seen(), witness, startedAt };
    writeSnapshot(cacheDir, snapshotKey, racyWindowMs === undefined ? inputs : { ...inputs, racyWindowMs }, discovery);
  }
  await saving;
  return {
    root,
    ...discovery,
    stats: {
      units: units.size,
      filesParsed: files.parsedCount,
      unitsReused: reused,
      retries: rounds,
      fromSnapshot: false,
    },
  };
}

/** An environment's directory; `prefix` ends with the separator, for testing what lies below it. */
interface EnvDir {
  readonly env: string;
  readonly absDir: string;
  readonly prefix: string;
}

/** Each environment's directory, longest first, so a unit belongs to the most specific environment directory. */
function environmentDirs(root: string, options: DiscoverOptions): EnvDir[] {
  return Object.entries(options.config.environments)
    .map(([env, settings]) => {
      const absDir = resolve(root, settings.dir);
      return { env, absDir, prefix: absDir.endsWith(sep) ? absDir : absDir + sep };
    })
    .sort((a, b) => b.absDir.length - a.absDir.length);
}

/**
 * Evaluates the units, then starts writing the unit and parse caches: written while the edges are resolved and the
 * snapshot is kept, and awaited before discovery returns. (Awaited here, the main thread sat idle for the thread
 * pool's writes: 40 to 60 ms at load 5.) Each save catches its own I/O errors: a rejection is a bug, and still
 * surfaces where `saving` is awaited.
 */
async function evaluateAndSave(
  units: ReadonlyMap<UnitId, UnitInfo>,
  context: EvaluationContext & { readonly root: string },
): Promise<{ evaluated: Evaluated; saving: Promise<unknown> }> {
  const { files, unitCache, problems, root } = context;
  try {
    const evaluated = await evaluateUnits(units, context);
    const saving = Promise.all([unitCache.save(), files.save()]);
    saving.catch(() => undefined);
    problems.push(...fastParserBugProblems(files, root));
    return { evaluated, saving };
  } finally {
    await files.close();
  }
}

/** With `allowUnresolved`: an expression that cannot be evaluated is a warning, not an error. */
function softenUnresolved(problems: Problem[]): void {
  for (let i = 0; i < problems.length; i += 1) {
    const p = problems[i];
    if (p?.kind === 'unresolved-expression') problems[i] = { ...p, severity: 'warning' };
  }
}

/** The units as discovery returns them, sorted by id, without what the scan kept for evaluating them. */
function publicUnits(units: ReadonlyMap<UnitId, UnitInfo & { scanned: ScannedDir }>): Map<UnitId, UnitInfo> {
  const result = new Map<UnitId, UnitInfo>();
  for (const id of [...units.keys()].sort(compareIds)) {
    const { scanned: _scanned, ...info } = units.get(id) as UnitInfo & { scanned: ScannedDir };
    result.set(id, info);
  }
  return result;
}

/** The environments' units: walked, named, placed in the graph (no edges yet); what the walk could not read, as problems. */
async function scanUnits(
  root: string,
  envDirs: readonly EnvDir[],
  options: DiscoverOptions,
  problems: Problem[],
): Promise<ScannedUnits> {
  const {
    dirs: scanned,
    listings,
    unreadable,
    visited,
  } = await scan({
    root,
    dirs: envDirs.map((e) => e.absDir),
    exclude: options.config.exclude,
  });
  for (const entry of unreadable) {
    problems.push({
      severity: 'error',
      kind: 'read-error',
      message: `cannot read directory ${entry.dir || '.'}: ${readErrorText(entry.error)}; units below it would be missed`,
      details: [`path: ${entry.absDir}`],
      hint: 'make the directory readable by the user running platctl (chmod/chown), or add it to exclude: in .platctl.yaml',
    });
  }
  problems.push(...ungeneratedStacks(scanned, listings));
  const graph = new Graph();
  const units = new Map<UnitId, UnitInfo & { readonly scanned: ScannedDir }>();
  const unitByDir = new Map<string, UnitId>();
  const stackDirs: string[] = [];
  for (const entry of scanned) {
    if (entry.isStack) stackDirs.push(entry.absDir);
    if (!entry.isUnit) continue;
    const env = envDirs.find((e) => entry.absDir === e.absDir || entry.absDir.startsWith(e.prefix));
    if (!env) continue;
    const id = `${env.env}/${relativePosix(env.absDir, entry.absDir) || '.'}`;
    const configFile = childPath(entry.absDir, UNIT_FILE);
    if (entry.isStack) {
      problems.push({
        severity: 'error',
        kind: 'unit-and-stack',
        unit: id,
        message: `${entry.dir} holds both ${UNIT_FILE} and ${STACK_FILE}; Terragrunt refuses such a directory`,
        location: { file: configFile, line: 1 },
        hint: 'move the stack file into a directory of its own',
      });
    }
    units.set(id, { id, env: env.env, dir: entry.dir, absDir: entry.absDir, configFile, includes: [], scanned: entry });
    unitByDir.set(entry.absDir, id);
    graph.addNode(id, env.env, entry.dir);
  }

  return { graph, units, unitByDir, stackDirs, listings, visited };
}

interface ScannedUnits {
  readonly graph: Graph;
  readonly units: Map<UnitId, UnitInfo & { readonly scanned: ScannedDir }>;
  readonly unitByDir: Map<string, UnitId>;
  readonly stackDirs: string[];
  readonly listings: Awaited<ReturnType<typeof scan>>['listings'];
  readonly visited: Awaited<ReturnType<typeof scan>>['visited'];
}

/** What evaluating the units gave: each unit's config, with how often one waited for more files and how many were reused. */
interface Evaluated {
  readonly configs: Map<UnitId, UnitConfig>;
  readonly rounds: number;
  readonly reused: number;
}

/** unit-config.ts, loaded only when some unit must be evaluated. */
type Evaluator = typeof UnitConfigModule;

interface EvaluationContext {
  readonly files: ParsedFiles;
  readonly host: EvaluationHost;
  readonly unitCache: UnitCache;
  readonly problems: Problem[];
  readonly remoteState: boolean;
  /** The evaluator, when its loading was started early (see loadEvaluator). */
  readonly evaluator?: Promise<Evaluator> | undefined;
}

/** Starts loading the evaluator; the promise is marked handled, and a failure surfaces where it is awaited. */
function loadEvaluator(): Promise<Evaluator> {
  const loading = import('./unit-config.js');
  loading.catch(() => undefined);
  return loading;
}

/**
 * Every unit's config: from the unit cache while every input it recorded is unchanged, evaluated otherwise. Files are
 * read (and hashed) first and parsed only when some unit has to be evaluated, in the order units are evaluated.
 */
async function evaluateUnits(units: ReadonlyMap<UnitId, UnitInfo>, ctx: EvaluationContext): Promise<Evaluated> {
  const { files, host, unitCache } = ctx;
  const configs = new Map<UnitId, UnitConfig>();
  let rounds = 0;
  let reused = 0;
  const mode = ctx.remoteState ? 'remote-state' : 'graph';
  const candidates = new Map<UnitId, CachedUnit>();
  for (const [id, unit] of units) {
    const entry = unitCache.candidate(unit.configFile, id, mode);
    if (entry) candidates.set(id, entry);
  }
  // Siblings every unit may read, and the files cached units depend on, are read with the unit files in one
  // batch, so most units evaluate (or are found unchanged) without waiting.
  const siblings = ['terragrunt.values.hcl', 'terragrunt.autoinclude.hcl'];
  const unitFiles = new Map<UnitId, string[]>();
  for (const [id, unit] of units) {
    const present = siblings.filter((name) => host.kindOf(unit.absDir, name) === 'file');
    unitFiles.set(
      id,
      present.length === 0
        ? [unit.configFile]
        : [unit.configFile, ...present.map((name) => childPath(unit.absDir, name))],
    );
  }
  // Read (and hash) first; parse only when some unit has to be evaluated.
  await files.ensure([...[...unitFiles.values()].flat(), ...[...candidates.values()].flatMap(recordedFiles)], {
    parse: false,
  });
  const fresh = new Set(
    [...units.keys()].filter((id) => {
      const cached = candidates.get(id);
      return !(cached && stillValid(cached, host));
    }),
  );
  const order = [...units.keys()].sort(compareIds);
  const freshFiles = order.flatMap((id) => (fresh.has(id) ? (unitFiles.get(id) ?? []) : []));
  // The files are parsed in the order the units are evaluated, while they are evaluated.
  await files.startParsing(freshFiles);
  // Units are evaluated one after another; one that needs a file not parsed yet (its own, an include, a file read
  // by read_terragrunt_config) waits for it, and one that finds it needs more files is evaluated again once they
  // are parsed. Files shared by many units are parsed once, for the first unit that needs them.
  let lastYield = performance.now();
  // The evaluator (and the HCL function library with its YAML parser) is loaded only when a unit needs it: a warm
  // run whose units are all unchanged does without.
  const evaluator = fresh.size > 0 ? await (ctx.evaluator ?? loadEvaluator()) : undefined;
  const freshCtx = { ...ctx, mode };
  for (const id of order) {
    const unit = units.get(id);
    if (!unit) continue;
    const cached = candidates.get(id);
    if (cached && !fresh.has(id)) {
      configs.set(id, cached.config);
      unitCache.keep(unit.configFile, cached, false);
      reused += 1;
      continue;
    }
    if (evaluator === undefined) throw new Error(`bug: ${id} is not reusable, yet every unit was`);
    if (!files.has(unit.configFile)) {
      await files.ensure([unit.configFile]);
      lastYield = performance.now();
    } else if (performance.now() - lastYield > YIELD_AFTER_MS) {
      // The parser workers are fed from this thread: let their results in, and their next batches out.
      await new Promise<void>((resolve) => setImmediate(resolve));
      lastYield = performance.now();
    }
    const evaluated = evaluateFresh(id, unit, evaluator, freshCtx);
    const outcome = evaluated instanceof Promise ? await evaluated : evaluated;
    if (outcome.config) configs.set(id, outcome.config);
    rounds += outcome.rounds;
  }
  return { configs, rounds, reused };
}

/** What evaluating one unit gave: its config (undefined when it could not be evaluated), and how often it waited. */
interface FreshOutcome {
  readonly config: UnitConfig | undefined;
  readonly rounds: number;
}

/**
 * One unit evaluated, again each time it finds it needs files not parsed yet (its includes, the files it reads), at
 * most MAX_ROUNDS times; kept in the unit cache for the next run. Synchronous when every file it needs is parsed
 * already, as for almost every unit: a promise and an await per unit were some 20 ms of a cold run of 5,000 units.
 */
function evaluateFresh(
  id: UnitId,
  unit: UnitInfo,
  evaluator: Evaluator,
  ctx: EvaluationContext & { readonly mode: string },
): FreshOutcome | Promise<FreshOutcome> {
  const first = evaluateAttempt(id, unit, evaluator, ctx, 1);
  return 'need' in first ? evaluateWithMoreFiles(id, unit, evaluator, ctx, first.need) : first;
}

/** The attempts after the first: each once the files the previous one asked for are parsed. */
async function evaluateWithMoreFiles(
  id: UnitId,
  unit: UnitInfo,
  evaluator: Evaluator,
  ctx: EvaluationContext & { readonly mode: string },
  need: readonly string[],
): Promise<FreshOutcome> {
  for (let attempt = 2; ; attempt += 1) {
    await ctx.files.ensure(need);
    const outcome = evaluateAttempt(id, unit, evaluator, ctx, attempt);
    if (!('need' in outcome)) return outcome;
    need = outcome.need;
  }
}

/** One attempt: the unit's config, or the files it needs parsed first. */
function evaluateAttempt(
  id: UnitId,
  unit: UnitInfo,
  evaluator: Evaluator,
  ctx: EvaluationContext & { readonly mode: string },
  attempt: number,
): FreshOutcome | { readonly need: readonly string[] } {
  const { NeedFiles, evaluateUnitConfig } = evaluator;
  const { files, host, unitCache, mode } = ctx;
  const recording = recordingHost(host);
  let config: UnitConfig;
  try {
    config = evaluateUnitConfig(unit, recording.host);
  } catch (error) {
    if (!(error instanceof NeedFiles)) throw error;
    if (attempt < MAX_ROUNDS) return { need: error.paths };
    ctx.problems.push({
      severity: 'error',
      kind: 'include-error',
      unit: id,
      message: `${id}: its includes and read files nest more than ${MAX_ROUNDS} levels deep`,
      location: { file: unit.configFile, line: 1 },
    });
    return { config: undefined, rounds: attempt - 1 };
  }
  // A unit that saw the parser crash on one of its files, or read a file the fast parser failed on, is evaluated
  // again next time, not reused: the crash is retried, and the bug reported again.
  const inputs = recording.inputs();
  const crashed = config.problems.some((p) => p.location && files.failedByWorker(p.location.file));
  if (!crashed && !readsFastParserBug(inputs, files)) {
    unitCache.keep(unit.configFile, { id, mode, inputs, config }, true);
  }
  return { config, rounds: attempt - 1 };
}

/** True when a unit's recorded inputs include a file the fast file parser failed on in this run. */
function readsFastParserBug(inputs: UnitInputs, files: ParsedFiles): boolean {
  const bugs = files.fastParserBugs();
  if (bugs.size === 0) return false;
  for (let i = 0; i < inputs.files.length; i += 2) if (bugs.has(inputs.files[i] as string)) return true;
  return false;
}

/** Lines of a bug's stack shown with its warning. */
const STACK_LINES = 8;

/**
 * A warning per file the fast file parser failed on with an exception: a bug in platctl. The graph is still right
 * (hcl2json parsed the file), but the bug must not stay hidden.
 */
function fastParserBugProblems(files: ParsedFiles, root: string): Problem[] {
  return [...files.fastParserBugs()].map(([path, bug]) => ({
    severity: 'warning',
    kind: 'internal-error',
    message: `platctl bug: its fast HCL parser failed on ${toPosix(relative(root, path))} (${bug.message}); hcl2json parsed the file instead, so the graph is right`,
    location: { file: path, line: 1 },
    details: (bug.stack ?? `${bug.name}: ${bug.message}`).split('\n').slice(0, STACK_LINES),
    hint: "please report it to platctl's maintainers (an issue in platctl's repository) with this warning and the file",
  }));
}

interface EdgeContext {
  readonly graph: Graph;
  readonly problems: Problem[];
  readonly unitByDir: Map<string, UnitId>;
  readonly stackDirs: string[];
  readonly witness: SnapshotWitness;
  readonly host: EvaluationHost;
  readonly root: string;
}

/**
 * Each unit's declared dependencies resolved to edges (or to externals, or to problems), its problems collected (one
 * written in a file several units include is reported once, naming them), and its config's facts on its UnitInfo.
 * Returns the edges that point outside every environment.
 */
function resolveEdges(
  units: Map<UnitId, UnitInfo & { readonly scanned: ScannedDir }>,
  configs: ReadonlyMap<UnitId, UnitConfig>,
  ctx: EdgeContext,
): ExternalDependency[] {
  const { graph, problems, unitByDir, stackDirs, witness, host, root } = ctx;
  const externals: ExternalDependency[] = [];
  const unitDirs = new UnitDirs(root, [...unitByDir.keys()]);
  const warnedReadFiles = new Set<string>();
  const realDirs = new RealDirs(unitByDir, stackDirs, witness);
  // Many dependency paths name the same directory: each is looked up on disk once.
  const resolutions = new Map<string, Resolution>();
  // A problem written in a file several units include is reported once, naming the units (see withIncludingUnits).
  const sharedProblems = new Map<string, { index: number; units: UnitId[] }>();
  for (const id of [...configs.keys()].sort(compareIds)) {
    const config = configs.get(id);
    const unit = units.get(id);
    if (!config || !unit) continue;
    collectProblems(id, unit.configFile, config.problems, problems, sharedProblems);
    units.set(id, {
      ...unit,
      includes: config.includes,
      ...(config.remoteState ? { remoteState: config.remoteState } : {}),
      ...(config.preventDestroy ? { preventDestroy: true } : {}),
      ...(config.exclude ? { exclude: config.exclude } : {}),
    });
    for (const dep of config.dependencies) {
      let resolved = resolutions.get(dep.target);
      if (!resolved) {
        resolved = resolveTarget(dep.target, { unitByDir, stackDirs, realDirs, host, root });
        resolutions.set(dep.target, resolved);
      }
      switch (resolved.type) {
        case 'units':
          for (const target of resolved.ids) {
            graph.addEdge(id, target, resolved.viaStack ? { ...dep.origin, kind: 'stack' } : dep.origin);
          }
          break;
        case 'external':
          externals.push({ unit: id, dir: toPosix(relative(root, resolved.dir)), origin: dep.origin });
          break;
        case 'dangling':
          problems.push(danglingProblem(id, dep, resolved.dir, resolved.why, unitDirs));
          break;
        case 'unreadable':
          problems.push(unreadableProblem(id, dep, resolved.dir, resolved.why, root));
          break;
      }
    }
    for (const read of config.readFilesWithDependencies) {
      if (warnedReadFiles.has(read.file)) continue;
      warnedReadFiles.add(read.file);
      problems.push({
        severity: 'warning',
        kind: 'read-config-dependency',
        unit: id,
        message: `${toPosix(relative(root, read.file))} declares dependency blocks and is read with read_terragrunt_config; like Terragrunt, platctl does not count them as edges`,
        location: read.location,
        hint: 'move the dependency block into an include, or declare the order in implicit_deps',
      });
    }
  }

  for (const { index, units: including } of sharedProblems.values()) {
    const shared = problems[index];
    if (shared) problems[index] = withIncludingUnits(shared, including);
  }
  return externals;
}

/**
 * A unit's problems added to the discovery's; one written in a file the unit includes is added once, and the other
 * units including it are noted on `shared` (see withIncludingUnits).
 */
function collectProblems(
  id: UnitId,
  configFile: string,
  unitProblems: readonly Problem[],
  problems: Problem[],
  shared: Map<string, { index: number; units: UnitId[] }>,
): void {
  for (const p of unitProblems) {
    const key = p.location && p.location.file !== configFile ? sharedProblemKey(p) : undefined;
    const seen = key === undefined ? undefined : shared.get(key);
    if (seen) seen.units.push(id);
    else {
      if (key !== undefined) shared.set(key, { index: problems.length, units: [id] });
      problems.push(p);
    }
  }
}

/** A dependency whose directory exists but cannot be read. */
function unreadableProblem(id: UnitId, dep: DeclaredDependency, dir: string, why: string, root: string): Problem {
  return problem({
    severity: 'error',
    kind: 'read-error',
    unit: id,
    message: `${dep.origin.kind === 'dependency' ? `dependency "${dep.origin.name ?? ''}"` : 'a dependencies path'} points at ${toPosix(relative(root, dir)) || '.'}, which cannot be read: ${why}`,
    location: dep.origin.location,
    details: [`expression: ${dep.expression}`, `resolved to: ${dir}`],
    hint: 'make the directory readable by the user running platctl (chmod/chown)',
  });
}

/** Every dependency cycle, as an error naming its units and where each of its edges is written. */
function cycleProblems(graph: Graph, root: string): Problem[] {
  const problems: Problem[] = [];
  for (const cycle of findCycles(graph)) {
    const first = cycle.edges[0]?.origins[0]?.location;
    const base = {
      severity: 'error' as const,
      kind: 'cycle' as const,
      unit: cycle.members[0] ?? '',
      message:
        cycle.members.length > 12
          ? `dependency cycle through ${cycle.members.length.toLocaleString('en-US')} units: ${chainText(cycle.path)}`
          : `dependency cycle: ${chainText(cycle.path)}`,
      hint: 'remove one of these edges (or turn it into a data lookup); nothing on a cycle can be applied',
      details: cycle.edges.map((edge) => {
        const where = edge.origins
          .map((o) => (o.location ? `${toPosix(relative(root, o.location.file))}:${o.location.line}` : o.kind))
          .join(', ');
        return `${edge.from} -> ${edge.to}${where ? `  (${where})` : ''}`;
      }),
    };
    problems.push(first ? { ...base, location: first } : base);
  }

  return problems;
}

type Resolution =
  | { type: 'units'; ids: UnitId[]; viaStack: boolean }
  | { type: 'external'; dir: string }
  | { type: 'dangling'; dir: string; why: string }
  | { type: 'unreadable'; dir: string; why: string };

/** The directory `terragrunt stack generate` writes a stack's units into. */
const GENERATED_DIR = '.terragrunt-stack';

/**
 * Stacks whose units were never generated: discovery reads generated units and does not generate them (that
 * downloads every unit's source), so without `.terragrunt-stack` the stack's units are missing from the graph, and
 * the unit templates they come from fail on `values.*`. Stacks inside a generated directory are generated with
 * their parent and are not checked.
 */
function ungeneratedStacks(
  scanned: readonly ScannedDir[],
  listings: ReadonlyMap<string, ReadonlyMap<string, 'file' | 'dir' | 'other'>>,
): Problem[] {
  const out: Problem[] = [];
  for (const entry of scanned) {
    if (!entry.isStack || entry.isUnit || entry.dir.split('/').includes(GENERATED_DIR)) continue;
    if (listings.get(entry.absDir)?.get(GENERATED_DIR) === 'dir') continue;
    const dir = entry.dir || '.';
    out.push({
      severity: 'error',
      kind: 'stack-not-generated',
      message: `${dir}/${STACK_FILE} has not been generated: its units are not in the graph`,
      location: { file: childPath(entry.absDir, STACK_FILE), line: 1 },
      hint: `run \`terragrunt stack generate --working-dir ${dir}\` from the repository root (as terragrunt run --all does first), then run platctl again`,
    });
  }
  return out;
}

function stackUnits(dir: string, unitByDir: Map<string, UnitId>): Resolution {
  const ids = [...unitByDir.entries()]
    .filter(([unitDir]) => unitDir.startsWith(dir + sep))
    .map(([, id]) => id)
    .sort(compareIds);
  return { type: 'units', ids, viaStack: true };
}

/**
 * Discovered unit and stack directories by their real path (symlinks resolved), built on the first dependency path
 * that misses the plain lookup: most repositories never need it.
 */
class RealDirs {
  readonly #unitByDir: ReadonlyMap<string, UnitId>;
  readonly #stackDirs: readonly string[];
  readonly #witness: SnapshotWitness;
  #index: { units: Map<string, UnitId>; stacks: Map<string, string> } | undefined;

  constructor(unitByDir: ReadonlyMap<string, UnitId>, stackDirs: readonly string[], witness: SnapshotWitness) {
    this.#unitByDir = unitByDir;
    this.#stackDirs = stackDirs;
    this.#witness = witness;
  }

  /** The path with every symlink resolved, or undefined when it does not exist (or cannot be resolved). */
  canonical(path: string): string | undefined {
    let real: string | undefined;
    try {
      real = realpathSync(path);
    } catch {
      real = undefined;
    }
    this.#witness.realpaths.set(path, real);
    return real;
  }

  index(): { units: Map<string, UnitId>; stacks: Map<string, string> } {
    if (this.#index) return this.#index;
    const units = new Map<string, UnitId>();
    for (const [dir, id] of this.#unitByDir) units.set(this.canonical(dir) ?? dir, id);
    const stacks = new Map<string, string>();
    for (const dir of this.#stackDirs) stacks.set(this.canonical(dir) ?? dir, dir);
    return (this.#index = { units, stacks });
  }
}

function resolveTarget(
  dir: string,
  ctx: {
    unitByDir: Map<string, UnitId>;
    stackDirs: string[];
    realDirs: RealDirs;
    host: EvaluationHost;
    root: string;
  },
): Resolution {
  // Terragrunt takes config_path as a unit directory: a file path there becomes a phantom unit named after the
  // file (seen with terragrunt v1.1.3), which then fails at run time. Say so now.
  const kind = ctx.host.kind(dir);
  if (kind === 'file') {
    return { type: 'dangling', dir, why: 'is a file; config_path and dependencies paths name a unit directory' };
  }
  const unit = ctx.unitByDir.get(dir);
  if (unit) return { type: 'units', ids: [unit], viaStack: false };
  if (ctx.stackDirs.includes(dir)) return stackUnits(dir, ctx.unitByDir);
  // Nothing there (or nothing this user may look into): no symlink to resolve and no unit file to find, so the
  // common dangling path costs no realpath walk (an lstat per component) and no stats of files inside it.
  if (kind === undefined) {
    const denied = accessDenied(dir);
    return denied ? { type: 'unreadable', dir, why: denied } : { type: 'dangling', dir, why: 'does not exist' };
  }
  // Terragrunt compares dependency paths with symlinks resolved: a path through a symlink to a unit is that unit.
  const real = ctx.realDirs.canonical(dir);
  if (real !== undefined && real !== dir) {
    const { units, stacks } = ctx.realDirs.index();
    const viaLink = units.get(real);
    if (viaLink) return { type: 'units', ids: [viaLink], viaStack: false };
    const stack = stacks.get(real);
    if (stack !== undefined) return stackUnits(stack, ctx.unitByDir);
  }
  if (ctx.host.kind(childPath(dir, UNIT_FILE)) === 'file' || ctx.host.kind(childPath(dir, STACK_FILE)) === 'file') {
    return { type: 'external', dir };
  }
  const denied = accessDenied(dir);
  if (denied) return { type: 'unreadable', dir, why: denied };
  return { type: 'dangling', dir, why: `has no ${UNIT_FILE}` };
}

/**
 * Why a path (or a directory on the way to it) cannot be looked into, when that is the reason nothing was found
 * there: "permission denied" rather than "has no terragrunt.hcl". Undefined when it is simply absent.
 */
function accessDenied(dir: string): string | undefined {
  for (const probe of [dir, childPath(dir, UNIT_FILE)]) {
    try {
      statSync(probe);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM') return readErrorText(error);
      // A directory that is not there: nothing below it can be denied (the common dangling path, made cheap).
      if (probe === dir) return undefined;
    }
  }
  try {
    readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') return readErrorText(error);
  }
  return undefined;
}

/**
 * The units' directories relative to the root, and a did-you-mean over them: both built when a hint first asks (a
 * repository without dangling paths never does).
 */
class UnitDirs {
  readonly root: string;
  readonly #absDirs: Iterable<string>;
  #relative: Set<string> | undefined;
  #suggester: PathSuggester | undefined;

  constructor(root: string, absDirs: Iterable<string>) {
    this.root = root;
    this.#absDirs = absDirs;
  }

  has(rel: string): boolean {
    return this.#relativeDirs().has(rel);
  }

  suggest(rel: string): string | undefined {
    this.#suggester ??= new PathSuggester(this.#relativeDirs());
    return this.#suggester.suggest(rel);
  }

  #relativeDirs(): Set<string> {
    return (this.#relative ??= new Set([...this.#absDirs].map((d) => relativePosix(this.root, d))));
  }
}

function danglingProblem(id: UnitId, dep: DeclaredDependency, dir: string, why: string, units: UnitDirs): Problem {
  const rel = toPosix(relative(units.root, dir)) || '.';
  const what = dep.origin.kind === 'dependency' ? `dependency "${dep.origin.name ?? ''}"` : 'a dependencies path';
  const base = problem({
    severity: 'error',
    kind: 'dangling-path',
    unit: id,
    message: `${what} points at ${rel}, which ${why}`,
    details: [`expression: ${dep.expression}`, `resolved to: ${dir}`],
    location: dep.origin.location,
  });
  return withLazyHint(base, () => {
    // For a file inside a unit directory, the directory is the obvious fix.
    const parent = toPosix(relative(units.root, dirname(dir)));
    const suggestion = units.has(parent) ? parent : units.suggest(rel);
    return suggestion
      ? `did you mean ${suggestion}? (fix the path, or remove the dependency if that unit is gone)`
      : 'fix the path, or remove the dependency if that unit is gone';
  });
}

function addConfiguredEdges(graph: Graph, options: DiscoverOptions, extras: DiscoverExtras, problems: Problem[]): void {
  let suggester: PathSuggester | undefined;
  const unknown = (id: UnitId, keyPath: (string | number)[], role: string, glob = false): void => {
    const base = problem({
      severity: 'error',
      kind: 'unknown-id',
      unit: id,
      message: glob
        ? `${role} names the pattern "${id}", which matches no unit discovery found`
        : `${role} names unit "${id}", which discovery did not find`,
      location: extras.locate?.(keyPath),
    });
    problems.push(
      withLazyHint(base, () => {
        suggester ??= new PathSuggester(graph.ids());
        const suggestion = suggester.suggest(id);
        return suggestion
          ? `did you mean ${suggestion}?`
          : 'unit ids are <env>/<path inside the env dir>; see platctl graph';
      }),
    );
  };
  // Every unit id the configuration names (config/unit-refs.ts), whatever the key: a misspelt one in a hook or a
  // step would be silently never run, and lockdown would run its apply in <root>/<id>.
  for (const { id, keyPath, role, glob } of unitReferences(options.config)) {
    if (glob === true ? !graph.ids().some(unitMatcher(id)) : !graph.has(id)) unknown(id, [...keyPath], role, glob);
  }
  for (const [from, targets] of Object.entries(options.config.implicit_deps)) {
    if (!graph.has(from)) continue;
    targets.forEach((to, i) => {
      if (!graph.has(to)) return;
      const location = extras.locate?.(['implicit_deps', from, i]);
      graph.addEdge(from, to, location ? { kind: 'implicit', location } : { kind: 'implicit' });
    });
  }
}

/** The filesystem as evaluation sees it: memoised stats, git roots found by walking up (no `git` process). */
function evaluationHost(
  files: ParsedFiles,
  env: Readonly<Record<string, string | undefined>>,
  listings: ReadonlyMap<string, ReadonlyMap<string, 'file' | 'dir' | 'other'>>,
  remoteState: boolean,
  witness: SnapshotWitness,
): EvaluationHost {
  const { kind, kindOf } = pathKinds(listings, witness);
  const readText = (path: string): string | undefined => {
    witness.texts.add(path);
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  };
  return {
    files,
    kind,
    kindOf,
    findUp: memoisedFindUp(kind),
    env,
    remoteState,
    repoRoot: memoisedRepoRoot(kind),
    readText,
    glob: (pattern, baseDir) => {
      witness.globbed = true;
      return fastGlob().sync(pattern, { cwd: baseDir, dot: false, onlyFiles: true }).sort();
    },
  };
}

type PathKind = (path: string) => 'file' | 'dir' | undefined;

/** What a path is (file, directory, neither): from the scan's listings where they tell, else a memoised stat. */
function pathKinds(
  listings: ReadonlyMap<string, ReadonlyMap<string, 'file' | 'dir' | 'other'>>,
  witness: SnapshotWitness,
): { kind: PathKind; kindOf: EvaluationHost['kindOf'] } {
  const kinds = new Map<string, 'file' | 'dir' | undefined>();
  const kind = (path: string): 'file' | 'dir' | undefined => {
    // Inside a directory the scan read, its listing answers without a stat (a dangling name is simply absent); it
    // is asked first, as it answers almost every check. (Split at the last separator by hand where that is what
    // dirname and basename would do: this runs for every existence check of every unit.)
    const cut = sep === '/' ? path.lastIndexOf('/') : -1;
    const plain = cut > 0 && cut < path.length - 1;
    const listing = listings.get(plain ? path.slice(0, cut) : dirname(path));
    const listed = listing ? (listing.get(plain ? path.slice(cut + 1) : basename(path)) ?? 'absent') : undefined;
    if (listed === 'file' || listed === 'dir') return listed;
    if (listed === 'absent') return undefined;
    if (kinds.has(path)) return kinds.get(path);
    let result: 'file' | 'dir' | undefined;
    try {
      const stat = statSync(path);
      result = stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : undefined;
    } catch {
      result = undefined;
    }
    kinds.set(path, result);
    witness.kinds.set(path, result);
    return result;
  };
  // kind(childPath(dir, name)) from dir's listing, found by the very string the scan keyed it by (a unit's directory):
  // the path is neither built, cut again nor hashed. Every unit asks this for its siblings, twice: through kind(),
  // 20,000 such checks of a cold run of 5,000 units took 60 to 130 ms.
  const kindOf = (dir: string, name: string): 'file' | 'dir' | undefined => {
    // Only where childPath(dir, name) is dir, a slash and name: then the listing is the one kind() would consult.
    const plain = sep === '/' && !dir.endsWith('/') && !name.includes('/') && isPlainName(name);
    const listing = plain ? listings.get(dir) : undefined;
    const listed = listing?.get(name);
    if (listed === 'file' || listed === 'dir') return listed;
    if (listing && listed === undefined) return undefined;
    return kind(childPath(dir, name));
  };
  return { kind, kindOf };
}

/** find_in_parent_folders, memoised per folder and names. */
function memoisedFindUp(kind: PathKind): EvaluationHost['findUp'] {
  // find_in_parent_folders' answers, per folder and names. Where the walk from a folder to the filesystem root is
  // within Terragrunt's folder limit, a folder's answer is its own match or its parent's answer, so units that
  // share ancestors share the walk.
  // Keyed by the probes, then the folder, without building a key string per question: every unit asks this.
  const finds = new Map<string, Map<string, string | undefined>>();
  const findUpMemo = (dir: string, probes: readonly string[]): string | undefined => {
    const probeKey = probes.length === 1 ? (probes[0] as string) : probes.join('\u0000');
    let byDir = finds.get(probeKey);
    if (!byDir) {
      byDir = new Map();
      finds.set(probeKey, byDir);
    }
    if (byDir.has(dir)) return byDir.get(dir);
    let found: string | undefined;
    if (depthAtLeast(dir, MAX_FOLDERS_TO_CHECK)) found = findUp(dir, probes, kind);
    else {
      found = findUp(dir, probes, kind, 1);
      const parent = dirname(dir);
      if (found === undefined && parent !== dir) found = findUpMemo(parent, probes);
    }
    byDir.set(dir, found);
    return found;
  };
  return findUpMemo;
}

/** The git repository's root above a directory (the nearest one holding `.git`), memoised per directory. */
function memoisedRepoRoot(kind: PathKind): EvaluationHost['repoRoot'] {
  const repoRoots = new Map<string, string | undefined>();
  const repoRoot = (dir: string): string | undefined => {
    if (repoRoots.has(dir)) return repoRoots.get(dir);
    const found = kind(childPath(dir, '.git')) ? dir : dirname(dir) === dir ? undefined : repoRoot(dirname(dir));
    repoRoots.set(dir, found);
    return found;
  };
  return repoRoot;
}

/** `dir.split('/').length >= depth`, without building the array (find_in_parent_folders asks it per folder). */
function depthAtLeast(dir: string, depth: number): boolean {
  let parts = 1;
  for (let i = dir.indexOf('/'); i >= 0 && parts < depth; i = dir.indexOf('/', i + 1)) parts += 1;
  return parts >= depth;
}

/** Problems written at one place of a shared file (an include, a file read by several units) are the same problem. */
function sharedProblemKey(p: Problem): string {
  const at = p.location ? `${p.location.file}:${p.location.line}:${p.location.column ?? 0}` : '';
  return `${p.severity}\u0000${p.kind}\u0000${at}\u0000${p.message}`;
}

/**
 * The problem with a detail naming the units that include (or read) the file it is written in: the file alone does
 * not say which unit's evaluation met it, and each unit would otherwise repeat it.
 */
function withIncludingUnits(p: Problem, including: readonly UnitId[]): Problem {
  // Copied property by property: a lazily computed hint stays lazy.
  const out = Object.defineProperties({}, Object.getOwnPropertyDescriptors(p)) as Problem & { details?: string[] };
  const named = `included by ${including.length === 1 ? 'unit' : 'units'} ${chainList(including)}`;
  Object.defineProperty(out, 'details', { value: [...(p.details ?? []), named], enumerable: true, configurable: true });
  return out;
}

/** Ids for one line: all of a few, or the first ones and a count. */
function chainList(ids: readonly UnitId[]): string {
  const SHOWN = 10;
  return ids.length <= SHOWN
    ? ids.join(', ')
    : `${ids.slice(0, SHOWN).join(', ')} and ${(ids.length - SHOWN).toLocaleString('en-US')} more`;
}
