/**
 * Terragrunt's own functions, evaluated offline the way Terragrunt v1 evaluates them while building its graph
 * (docs/discovery.md). Functions in an included file run in the including unit's context: the context
 * says which unit is being evaluated and which file the expression is written in.
 */
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { HclEvalError, Unknown, primitiveToString, typeName } from './hcl/values.js';
import { asList } from './hcl/types.js';
import type { HclFunction, Value } from './hcl/index.js';
import { childPath, toPosix } from './scan.js';

/** Terragrunt looks at most this many parent folders (pkg/options MaxFoldersToCheck). */
export const MAX_FOLDERS_TO_CHECK = 100;

export interface FunctionContext {
  /** The unit being evaluated (`get_terragrunt_dir()` in the unit and in its includes). */
  readonly unitDir: string;
  /** The unit the whole evaluation started from (`get_original_terragrunt_dir()`), even inside read files. */
  readonly originalDir: string;
  /** The config whose directory functions are relative to: the unit's file, or a file read by read_terragrunt_config. */
  readonly configFile: string;
  /** The included file the expression is written in, when it is one (`get_parent_terragrunt_dir()` there). */
  readonly includedFile?: string;
  /** The unit's includes by label ('' for a bare include), as absolute file paths. */
  readonly includes: ReadonlyMap<string, string>;
  /**
   * In a file read by read_terragrunt_config: the files on the way to it, the file the first call is written in
   * first and this file last. A file that reads one already on the chain would make Terragrunt recurse forever.
   */
  readonly readChain?: readonly string[];
}

/** What the functions may ask of the outside world; injected so tests and discovery share one filesystem view. */
export interface FunctionHost {
  /** 'file', 'dir', or undefined when the path does not exist. */
  kind(path: string): 'file' | 'dir' | undefined;
  /** find_in_parent_folders' search from `dir` upwards (see {@link findUp}); hosts may remember answers. */
  findUp(dir: string, probes: readonly string[]): string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The git top-level directory above `dir`, or undefined outside a repository. */
  repoRoot(dir: string): string | undefined;
  /** Evaluates another Terragrunt file for `read_terragrunt_config` (may ask for the file to be parsed first). */
  readConfig(path: string, context: FunctionContext): Value;
  /** A variables file for `read_tfvars_file`, as Terragrunt returns it: a JSON string (see docs/discovery.md). */
  readTfvars(path: string): string;
}

/**
 * The first of `probes` (file or directory names) that exists in `dir` or a folder above it, looking at most
 * `folders` folders (MAX_FOLDERS_TO_CHECK, as find_in_parent_folders does).
 */
export function findUp(
  dir: string,
  probes: readonly string[],
  kind: (path: string) => 'file' | 'dir' | undefined,
  folders = MAX_FOLDERS_TO_CHECK,
): string | undefined {
  let current = dir;
  for (let i = 0; i < folders; i += 1) {
    for (const probe of probes) {
      const candidate = childPath(current, probe);
      if (kind(candidate)) return candidate;
    }
    const up = dirname(current);
    if (up === current) break;
    current = up;
  }
  return undefined;
}

/** Values that stand for things only a real run knows. */
function needsExecution(name: string, why: string): ContextualFunction {
  return () => new Unknown(`${name}() ${why}`, name);
}

function optionalString(args: Value[], index: number, fn: string): string | undefined {
  const value = args[index];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new HclEvalError(`${fn}: argument ${index + 1} must be a string`);
  return value;
}

function requireString(args: Value[], index: number, fn: string): string {
  const value = optionalString(args, index, fn);
  if (value === undefined) throw new HclEvalError(`${fn}: argument ${index + 1} is required`);
  return value;
}

/** Makes a relative path absolute against `base`, as Terragrunt joins config paths. */
export function resolveFrom(base: string, path: string): string {
  if (sep === '/' && isCleanAbsolute(base)) return applySegments(path.startsWith('/') ? '' : base, path);
  return isAbsolute(path) ? resolve(path) : resolve(base, path);
}

/** An absolute posix path with no empty, `.` or `..` segment and no trailing slash (the root aside). */
function isCleanAbsolute(path: string): boolean {
  return (
    path === '/' || (path.startsWith('/') && !path.endsWith('/') && !path.includes('//') && !/\/\.\.?(\/|$)/.test(path))
  );
}

/**
 * `resolve(base, path)` for a clean absolute base (or '' when `path` is absolute): the path's segments applied one
 * by one. Discovery resolves a path for every include and dependency of every unit, and path.resolve's
 * character-by-character normalising was a large share of what a cold run allocated.
 */
function applySegments(base: string, path: string): string {
  // Most paths have nothing to apply (`/repo/root.hcl`, `sub/dir`): joined as they are.
  if (base === '' && isCleanAbsolute(path)) return path;
  if (base !== '' && path !== '' && isCleanAbsolute(`/${path}`)) return base === '/' ? `/${path}` : `${base}/${path}`;
  let out = base === '/' ? '' : base;
  // Segment by segment without splitting (`${get_terragrunt_dir()}/../x` in every unit of a repository).
  for (let start = 0; start <= path.length;) {
    let end = path.indexOf('/', start);
    if (end === -1) end = path.length;
    const length = end - start;
    if (length === 2 && path.startsWith('..', start)) out = out.slice(0, Math.max(0, out.lastIndexOf('/')));
    else if (length > 0 && !(length === 1 && path[start] === '.')) out = `${out}/${path.slice(start, end)}`;
    start = end + 1;
  }
  return out === '' ? '/' : out;
}

/** find_in_parent_folders() with no name looks for these. */
const DEFAULT_PROBES: readonly string[] = Object.freeze(['terragrunt.hcl.json', 'terragrunt.hcl']);
const probeLists = new Map<string, readonly string[]>();

/** The one-name probe list, shared by every call that names it (every unit calls find_in_parent_folders). */
function probesFor(name: string): readonly string[] {
  let probes = probeLists.get(name);
  if (probes === undefined) {
    probes = Object.freeze([name]);
    if (probeLists.size < 1024) probeLists.set(name, probes);
  }
  return probes;
}

/** A Terragrunt function, given the context it is called in and the host, rather than closing over them. */
export type ContextualFunction = (args: Value[], context: FunctionContext, host: FunctionHost) => Value;

/** The included file a function without a label (or with one) refers to, in this context. */
function includeFile(context: FunctionContext, fn: string, name: string | undefined): string | undefined {
  if (name !== undefined) {
    const file = context.includes.get(name);
    if (!file) throw new HclEvalError(`${fn}("${name}"): this unit has no include block labelled "${name}"`);
    return file;
  }
  if (context.includedFile) return context.includedFile;
  if (context.includes.size === 0) return undefined;
  if (context.includes.size > 1) {
    throw new HclEvalError(
      `${fn}() is ambiguous: the unit has ${context.includes.size} include blocks; name one, e.g. ${fn}("${[...context.includes.keys()][0] ?? ''}")`,
    );
  }
  return [...context.includes.values()][0];
}

function repoRootOf(context: FunctionContext, host: FunctionHost, fn: string): string {
  const root = host.repoRoot(context.unitDir);
  if (!root) throw new HclEvalError(`${fn}(): ${context.unitDir} is not inside a git repository`);
  return root;
}

/** The directory functions are relative to: the config's own (the unit's, or a file read by read_terragrunt_config). */
const configDirOf = (context: FunctionContext): string => dirname(context.configFile);

/**
 * Terragrunt's functions, each reading its context from its arguments: one table serves every context, so
 * evaluation does not build a table of closures per unit and file. Functions that need execution or credentials
 * return an `Unknown` that says why; they only matter when they feed an edge, and then discovery reports them.
 */
export const contextualFunctions: Readonly<Record<string, ContextualFunction>> = Object.freeze({
  get_terragrunt_dir: (_args, context) => configDirOf(context),
  get_original_terragrunt_dir: (_args, context) => context.originalDir,
  get_parent_terragrunt_dir: (args, context) => {
    const name = optionalString(args, 0, 'get_parent_terragrunt_dir');
    const file = includeFile(context, 'get_parent_terragrunt_dir', name);
    return file ? dirname(file) : configDirOf(context);
  },
  path_relative_to_include: (args, context) => {
    const name = optionalString(args, 0, 'path_relative_to_include');
    const file = includeFile(context, 'path_relative_to_include', name);
    if (!file) return '.';
    return toPosix(relative(dirname(file), configDirOf(context))) || '.';
  },
  path_relative_from_include: (args, context) => {
    const name = optionalString(args, 0, 'path_relative_from_include');
    const file = includeFile(context, 'path_relative_from_include', name);
    if (!file) return '.';
    return toPosix(relative(configDirOf(context), dirname(file))) || '.';
  },
  find_in_parent_folders: (args, context, host) => {
    const name = optionalString(args, 0, 'find_in_parent_folders');
    const hasFallback = args.length > 1;
    const probes = name === undefined ? DEFAULT_PROBES : probesFor(name);
    const configDir = configDirOf(context);
    // The search starts at the parent of the config's directory, not the directory itself.
    const found = host.findUp(dirname(configDir), probes);
    if (found !== undefined) return found;
    if (hasFallback) return args[1] ?? null;
    throw new HclEvalError(
      `find_in_parent_folders(${name === undefined ? '' : JSON.stringify(name)}): no ${name ?? 'terragrunt.hcl'} in any parent folder of ${configDir}`,
    );
  },
  get_repo_root: (_args, context, host) => repoRootOf(context, host, 'get_repo_root'),
  get_path_from_repo_root: (_args, context, host) =>
    toPosix(relative(repoRootOf(context, host, 'get_path_from_repo_root'), context.unitDir)) || '.',
  get_path_to_repo_root: (_args, context, host) =>
    toPosix(relative(context.unitDir, repoRootOf(context, host, 'get_path_to_repo_root'))) || '.',
  get_env: (args, _context, host) => {
    const name = requireString(args, 0, 'get_env');
    const value = host.env[name];
    if (value !== undefined) return value;
    if (args.length > 1) {
      // The default is a string parameter in Terragrunt: get_env("X", "${true}") is "true", not the bool.
      const fallback = args[1] ?? null;
      if (fallback === null || fallback instanceof Unknown) return fallback;
      const text = primitiveToString(fallback);
      if (text === undefined) {
        throw new HclEvalError(`get_env("${name}"): the default must be a string, got ${typeName(fallback)}`);
      }
      return text;
    }
    throw new HclEvalError(`get_env("${name}"): the variable is not set and no default is given`);
  },
  get_platform: () => 'linux',
  read_terragrunt_config: (args, context, host) => {
    const path = requireString(args, 0, 'read_terragrunt_config');
    let target = resolveFrom(configDirOf(context), path);
    if (host.kind(target) === 'dir') target = join(target, 'terragrunt.hcl');
    if (!host.kind(target)) {
      if (args.length > 1) return args[1] ?? null;
      throw new HclEvalError(`read_terragrunt_config("${path}"): ${target} does not exist`);
    }
    return host.readConfig(target, context);
  },
  read_tfvars_file: (args, context, host) => {
    const path = requireString(args, 0, 'read_tfvars_file');
    const target = resolveFrom(configDirOf(context), path);
    if (host.kind(target) !== 'file') throw new HclEvalError(`read_tfvars_file("${path}"): ${target} does not exist`);
    return host.readTfvars(target);
  },
  get_terraform_command: needsExecution('get_terraform_command', 'depends on the command being run'),
  // Lists of string in Terragrunt, as the constants they are: not tuples (`==` against a tuple literal is false).
  get_terraform_commands_that_need_vars: () =>
    asList(['apply', 'console', 'destroy', 'import', 'plan', 'push', 'refresh'], 'string'),
  get_terraform_commands_that_need_input: () => asList(['apply', 'import', 'init', 'plan', 'refresh'], 'string'),
  get_terraform_commands_that_need_locking: () =>
    asList(['apply', 'destroy', 'import', 'init', 'plan', 'refresh', 'taint', 'untaint'], 'string'),
  get_terraform_commands_that_need_parallelism: () => asList(['apply', 'plan', 'destroy'], 'string'),
  get_terraform_cli_args: needsExecution('get_terraform_cli_args', 'depends on the command being run'),
  get_working_dir: needsExecution('get_working_dir', 'depends on the download directory of a real run'),
  run_cmd: needsExecution('run_cmd', 'runs a command; platctl does not execute commands while building the graph'),
  sops_decrypt_file: needsExecution('sops_decrypt_file', 'needs sops and its keys'),
  get_aws_account_id: needsExecution('get_aws_account_id', 'needs AWS credentials'),
  get_aws_account_alias: needsExecution('get_aws_account_alias', 'needs AWS credentials'),
  get_aws_caller_identity_arn: needsExecution('get_aws_caller_identity_arn', 'needs AWS credentials'),
  get_aws_caller_identity_user_id: needsExecution('get_aws_caller_identity_user_id', 'needs AWS credentials'),
  mark_as_read: (args) => requireString(args, 0, 'mark_as_read'),
  constraint_check: needsExecution('constraint_check', 'is not evaluated while building the graph'),
  get_default_retryable_errors: () => [],
});

/** The function table for one evaluation context: {@link contextualFunctions} bound to it. */
export function terragruntFunctions(context: FunctionContext, host: FunctionHost): Record<string, HclFunction> {
  const out: Record<string, HclFunction> = {};
  for (const [name, fn] of Object.entries(contextualFunctions)) out[name] = (args) => fn(args, context, host);
  return out;
}
