/**
 * Checks the schema cannot express: references between keys (an environment named in `lockdown.env` must be
 * declared), placeholders anywhere in the file, and the environment dirs on disk. They read the document as
 * written, not the validated output, so they report alongside schema errors and a user sees everything at once.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { ConfigError, ConfigErrorReason, KeyPath } from './errors.js';
import { didYouMean, formatKeyPath } from './errors.js';
import type { Json } from './json-shape.js';
import { entries, isMap, items } from './json-shape.js';
import { PROSE_KEYS, findPlaceholder } from './placeholders.js';
import type { ConfigSource, LocateTarget } from './source.js';
import { configError, stringsOf } from './source.js';
import { isUnitGlob, unitReferences } from './unit-refs.js';

function error(
  source: ConfigSource,
  reason: ConfigErrorReason,
  keyPath: KeyPath,
  message: string,
  hint: string | undefined,
  target: LocateTarget = 'value',
): ConfigError {
  return configError(source, reason, keyPath, message, { hint, target });
}

/** Placeholder values and keys, anywhere in the document. */
export function placeholderErrors(source: ConfigSource): ConfigError[] {
  const out: ConfigError[] = [];
  for (const { value, keyPath, isKey, location } of stringsOf(source)) {
    const last = keyPath[keyPath.length - 1];
    // A list item inside a prose key (description: [..]) is prose too; the key itself never is.
    const proseKey = keyPath.findLast((part) => typeof part === 'string');
    const prose = !isKey && proseKey !== undefined && PROSE_KEYS.has(proseKey);
    const match = findPlaceholder(value, { prose });
    if (!match) continue;
    const what = isKey ? `the key ${JSON.stringify(String(last))}` : `the value ${JSON.stringify(value)}`;
    out.push({
      reason: 'placeholder',
      message: `${what} is a placeholder (${match.rule}: ${match.text})`,
      keyPath: formatKeyPath(keyPath),
      location,
      hint: 'replace it with the real value; a placeholder fails only later, against real infrastructure',
    });
  }
  return out;
}

/** An environment's dir as written, when it is a string. */
export interface WrittenEnvDir {
  readonly env: string;
  readonly dir: string;
  readonly keyPath: KeyPath;
}

/** The environment dirs written in the document that are relative and stay inside the root. */
export function envDirsOf(data: unknown): WrittenEnvDir[] {
  const out: WrittenEnvDir[] = [];
  for (const [env, settings] of entries(isMap(data) ? data.environments : undefined)) {
    const dir = isMap(settings) ? settings.dir : undefined;
    if (typeof dir === 'string' && dir !== '') out.push({ env, dir, keyPath: ['environments', env, 'dir'] });
  }
  return out;
}

/** The dir relative to the root, posix separators, `.` for the root itself; undefined when it is not inside. */
function insideRoot(dir: string): string | undefined {
  if (path.isAbsolute(dir) || path.win32.isAbsolute(dir)) return undefined;
  const normal = path.posix.normalize(dir.replaceAll('\\', '/')).replace(/\/+$/, '');
  if (normal === '..' || normal.startsWith('../')) return undefined;
  return normal === '' ? '.' : normal;
}

/** Cross-key checks on the document as written: environment references, env dirs' shape, duplicate ids. */
export function semanticErrors(source: ConfigSource): ConfigError[] {
  const data = source.data;
  if (!isMap(data)) return [];
  const envNames = entries(data.environments).map(([name]) => name);
  return [
    ...envDirShapeErrors(source, data),
    // References to environments are only meaningful once there are declared environments to compare with.
    ...(envNames.length > 0
      ? [
          ...envReferenceErrors(source, data, envNames),
          ...unitIdErrors(source, data, envNames),
          ...ssmCheckErrors(source, data, envNames),
        ]
      : []),
    ...duplicateIdErrors(source, data),
  ];
}

/** Environment dirs: relative, inside the root, neither shared nor nested. */
function envDirShapeErrors(source: ConfigSource, data: Json): ConfigError[] {
  const out: ConfigError[] = [];
  const dirs: { env: string; normal: string; keyPath: KeyPath }[] = [];
  for (const { env, dir, keyPath } of envDirsOf(data)) {
    const normal = insideRoot(dir);
    if (normal === undefined) {
      out.push(
        error(
          source,
          'bad-env-dir',
          keyPath,
          path.isAbsolute(dir)
            ? `environment ${env}: dir ${JSON.stringify(dir)} is absolute`
            : `environment ${env}: dir ${JSON.stringify(dir)} leaves the repository root`,
          'write the dir relative to the directory holding .platctl.yaml, inside it',
        ),
      );
    } else {
      dirs.push({ env, normal, keyPath });
    }
  }
  dirs.forEach((a, i) => {
    for (const b of dirs.slice(i + 1)) {
      const relation =
        a.normal === b.normal
          ? 'the same dir as'
          : contains(a.normal, b.normal)
            ? 'a dir inside the dir of'
            : contains(b.normal, a.normal)
              ? 'a dir containing the dir of'
              : undefined;
      if (relation === undefined) continue;
      out.push(
        error(
          source,
          'overlapping-env-dirs',
          b.keyPath,
          `environment ${b.env} has ${relation} environment ${a.env} (${b.normal} and ${a.normal})`,
          'give each environment its own directory, side by side: a unit must belong to one environment',
        ),
      );
    }
  });
  return out;
}

/** Keys and values that name an environment: lockdown.env, park.<env>, access.<env>, preflight_envs, validate. */
function envReferenceErrors(source: ConfigSource, data: Json, envNames: readonly string[]): ConfigError[] {
  const out: ConfigError[] = [];
  const checkEnv = (name: unknown, keyPath: KeyPath, target: LocateTarget, what: string): void => {
    if (typeof name !== 'string' || envNames.includes(name)) return;
    out.push(unknownEnv(source, name, keyPath, target, what, envNames));
  };
  const lockdown = isMap(data.lockdown) ? data.lockdown : undefined;
  checkEnv(lockdown?.env, ['lockdown', 'env'], 'value', 'lockdown.env names');
  for (const section of ['park', 'access'] as const) {
    for (const [name] of entries(data[section])) checkEnv(name, [section, name], 'key', `${section} names`);
  }
  for (const [name, park] of entries(data.park)) {
    if (isMap(park)) {
      items(park.preflight_envs).forEach((other, index) =>
        checkEnv(other, ['park', name, 'preflight_envs', index], 'value', 'this names'),
      );
    }
  }
  const validate = isMap(data.validate) ? data.validate : undefined;
  items(validate?.dns_delegation).forEach((entry, index) => {
    if (isMap(entry)) checkEnv(entry.env, ['validate', 'dns_delegation', index, 'env'], 'value', 'this names');
  });
  if (isMap(validate?.gateway)) checkEnv(validate.gateway.env, ['validate', 'gateway', 'env'], 'value', 'this names');
  items(data.manual_steps).forEach((step, index) => {
    if (isMap(step) && isMap(step.check)) {
      checkEnv(step.check.env, ['manual_steps', index, 'check', 'env'], 'value', 'this names');
    }
  });
  out.push(...convergeEnvErrors(source, data, envNames, checkEnv));
  return out;
}

/**
 * Each convergence wait that reads a cluster must say which: its `env`, the environment of its first `after` unit,
 * or the only environment declared.
 */
function convergeEnvErrors(
  source: ConfigSource,
  data: Json,
  envNames: readonly string[],
  checkEnv: (name: unknown, keyPath: KeyPath, target: LocateTarget, what: string) => void,
): ConfigError[] {
  const out: ConfigError[] = [];
  const converge = isMap(data.converge) ? data.converge : undefined;
  items(converge?.waits).forEach((wait, index) => {
    if (!isMap(wait)) return;
    checkEnv(wait.env, ['converge', 'waits', index, 'env'], 'value', 'this names');
    const readsCluster = wait.http === undefined && wait.output === undefined;
    const after = items(wait.after);
    if (readsCluster && wait.env === undefined && after.length === 0 && envNames.length > 1) {
      out.push(
        error(
          source,
          'missing-key',
          ['converge', 'waits', index],
          `converge wait ${JSON.stringify(wait.id)} reads a cluster but names neither env nor after units, and there are ${envNames.length} environments`,
          `add env: <one of ${envNames.join(', ')}>, or after: [<the unit that installs it>]`,
        ),
      );
    }
  });
  return out;
}

/** Unit ids anywhere in the document: an id starts with its environment, and a typo there matches no unit. */
function unitIdErrors(source: ConfigSource, data: Json, envNames: readonly string[]): ConfigError[] {
  const out: ConfigError[] = [];
  for (const { id, keyPath, isKey } of unitReferences(data)) {
    const slash = id.indexOf('/');
    if (slash <= 0) continue; // the schema reports ids without an environment
    const env = id.slice(0, slash);
    // A glob's environment part may be a glob too: discovery checks that the pattern matches a unit.
    if (!envNames.includes(env) && !isUnitGlob(env)) {
      out.push(unknownEnv(source, env, keyPath, isKey ? 'key' : 'value', `unit id ${id} names`, envNames));
    }
  }
  return out;
}

/**
 * The environment whose AWS account, region and profile a manual step's `ssm_parameter` check reads: its own `env`,
 * else the one environment of the step's `before` units, else the only environment declared. Undefined when none of
 * these decides (`before` spans environments, or there are several and no `before`).
 */
export function manualStepEnv(
  check: { readonly env?: string | undefined },
  before: readonly string[] | undefined,
  envNames: readonly string[],
): string | undefined {
  if (check.env !== undefined) return check.env;
  if (before !== undefined && before.length > 0) {
    const envs = new Set(before.map((unit) => unit.slice(0, unit.indexOf('/'))));
    return envs.size === 1 ? [...envs][0] : undefined;
  }
  return envNames.length === 1 ? envNames[0] : undefined;
}

/** Each `ssm_parameter` check reads one environment's AWS account: it must be decided and have `aws` settings. */
function ssmCheckErrors(source: ConfigSource, data: Json, envNames: readonly string[]): ConfigError[] {
  const out: ConfigError[] = [];
  items(data.manual_steps).forEach((step, index) => {
    if (!isMap(step) || !isMap(step.check) || typeof step.check.ssm_parameter !== 'string') return;
    const keyPath: KeyPath = ['manual_steps', index, 'check'];
    const written = typeof step.check.env === 'string' ? step.check.env : undefined;
    const before = items(step.before).filter((unit): unit is string => typeof unit === 'string' && unit.includes('/'));
    const env = manualStepEnv({ env: written }, before.length > 0 ? before : undefined, envNames);
    if (env === undefined) {
      out.push(
        error(
          source,
          'missing-key',
          keyPath,
          `manual step ${String(step.id)}: which environment's AWS account holds SSM parameter ${step.check.ssm_parameter} is not clear (${before.length > 0 ? 'its before units are in several environments' : 'several environments are declared'})`,
          `add env: <one of ${envNames.join(', ')}> to the check`,
        ),
      );
      return;
    }
    if (!envNames.includes(env)) return; // an unknown env is reported by envReferenceErrors
    const settings = isMap(data.environments) ? data.environments[env] : undefined;
    if (!isMap(settings) || !isMap(settings.aws)) {
      out.push(
        error(
          source,
          'missing-key',
          written === undefined ? keyPath : [...keyPath, 'env'],
          `manual step ${String(step.id)}: its SSM parameter is read in environment ${env}, which has no aws settings`,
          `add environments.${env}.aws (region, profile, account_id), or name another environment in the check's env`,
        ),
      );
    }
  });
  return out;
}

/** Ids that name steps must be unique: state and output key on them. */
function duplicateIdErrors(source: ConfigSource, data: Json): ConfigError[] {
  const out: ConfigError[] = [];
  const lists = [
    { listPath: ['manual_steps'], list: data.manual_steps },
    { listPath: ['lockdown', 'steps'], list: isMap(data.lockdown) ? data.lockdown.steps : undefined },
    { listPath: ['converge', 'waits'], list: isMap(data.converge) ? data.converge.waits : undefined },
  ] as const;
  for (const { listPath, list } of lists) {
    const seen = new Map<string, number>();
    items(list).forEach((step, index) => {
      const id = isMap(step) ? step.id : undefined;
      if (typeof id !== 'string') return;
      const first = seen.get(id);
      if (first === undefined) {
        seen.set(id, index);
        return;
      }
      out.push(
        error(
          source,
          'duplicate-id',
          [...listPath, index, 'id'],
          `id ${JSON.stringify(id)} is used twice in ${formatKeyPath(listPath)} (first at item ${first})`,
          'give every step its own id',
        ),
      );
    });
  }
  return out;
}

function contains(outer: string, inner: string): boolean {
  return outer === '.' || inner.startsWith(`${outer}/`);
}

function unknownEnv(
  source: ConfigSource,
  name: string,
  keyPath: KeyPath,
  target: LocateTarget,
  what: string,
  envNames: readonly string[],
): ConfigError {
  const suggestion = didYouMean(name, envNames);
  return error(
    source,
    'unknown-environment',
    keyPath,
    `${what} environment ${JSON.stringify(name)}, which environments does not declare`,
    suggestion === undefined
      ? `declared environments: ${envNames.join(', ')}`
      : `did you mean "${suggestion}"? (declared: ${envNames.join(', ')})`,
    target,
  );
}

/**
 * The filesystem half: each environment dir must exist below `root` and be a directory. Separate from parsing so a
 * file can be validated without its repository (the example file's test), and so parsing stays free of I/O.
 */
export async function envDirErrors(
  root: string,
  dirs: readonly WrittenEnvDir[],
  locate: (keyPath: KeyPath) => ConfigError['location'],
): Promise<ConfigError[]> {
  const out: ConfigError[] = [];
  for (const { env, dir, keyPath } of dirs) {
    if (insideRoot(dir) === undefined) continue; // reported by semanticErrors
    const resolved = path.resolve(root, dir);
    let problem: string | undefined;
    try {
      const info = await stat(resolved);
      if (!info.isDirectory()) problem = `${resolved} is not a directory`;
    } catch (cause) {
      const code = (cause as { code?: unknown }).code;
      problem = code === 'ENOENT' || code === 'ENOTDIR' ? `${resolved} does not exist` : `${resolved}: ${String(code)}`;
    }
    if (problem === undefined) continue;
    const location = locate(keyPath);
    out.push({
      reason: 'bad-env-dir',
      message: `environment ${env}: dir ${problem}`,
      keyPath: formatKeyPath(keyPath),
      ...(location === undefined ? {} : { location }),
      hint: `create the directory, or fix the path (it is relative to ${root})`,
    });
  }
  return out;
}
