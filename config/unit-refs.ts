/**
 * Every place in `.platctl.yaml` that names a unit id, listed once: the configuration check (config/semantic.ts,
 * the environment part of each id) and discovery (discover/full.ts, each id against the units found) both walk this
 * list, so a key that names units cannot be checked by one and forgotten by the other.
 *
 * It reads the document as written or the validated configuration alike (the keys are the same), skipping anything
 * of the wrong shape: the schema reports that.
 */
import { createRequire } from 'node:module';
import type Picomatch from 'picomatch';
import type { KeyPath } from './errors.js';
import { entries, isMap, items } from './json-shape.js';

/** One unit id written in the configuration. */
export interface UnitReference {
  readonly id: string;
  readonly keyPath: KeyPath;
  /** The id is a map key (`units.<id>`, `implicit_deps.<id>`), not a value. */
  readonly isKey: boolean;
  /** Where it is named, for messages: `lockdown.steps[0].unit`, `hooks[1].units`. */
  readonly role: string;
  /** A glob (`optional` entries may be): it must match at least one unit, rather than be one. */
  readonly glob?: boolean;
}

/** True when a unit reference is a glob, not an id (`*`, `?`, `[...]`, `{...}`). */
export function isUnitGlob(id: string): boolean {
  return /[*?[\]{}]/.test(id);
}

/** A test for unit ids: equality for an id, picomatch for a glob (`*` stays within a path part, `**` crosses). */
export function unitMatcher(pattern: string): (id: string) => boolean {
  if (!isUnitGlob(pattern)) return (id) => id === pattern;
  // Loaded only for a glob: a warm `platctl graph` reads this file but should not load a glob library.
  const picomatch = createRequire(import.meta.url)('picomatch') as typeof Picomatch;
  const match = picomatch(pattern, { dot: true });
  return (id) => match(id);
}

/** Every unit id the configuration names, in the order of the keys below. */
export function unitReferences(data: unknown): UnitReference[] {
  const out: UnitReference[] = [];
  const add = (id: unknown, keyPath: KeyPath, role: string, isKey = false): void => {
    if (typeof id === 'string') out.push({ id, keyPath, isKey, role });
  };
  if (!isMap(data)) return out;
  for (const [id, deps] of entries(data.implicit_deps)) {
    add(id, ['implicit_deps', id], 'implicit_deps', true);
    items(deps).forEach((dep, i) => add(dep, ['implicit_deps', id, i], `implicit_deps.${id}`));
  }
  for (const [id] of entries(data.units)) add(id, ['units', id], 'units', true);
  items(data.optional).forEach((pattern, i) => {
    if (typeof pattern === 'string')
      out.push({ id: pattern, keyPath: ['optional', i], isKey: false, role: 'optional', glob: isUnitGlob(pattern) });
  });
  items(data.manual_steps).forEach((step, index) => {
    if (isMap(step)) {
      items(step.before).forEach((unit, u) =>
        add(unit, ['manual_steps', index, 'before', u], `manual_steps[${index}].before`),
      );
    }
  });
  items(data.hooks).forEach((hook, index) => {
    if (isMap(hook))
      items(hook.units).forEach((unit, u) => add(unit, ['hooks', index, 'units', u], `hooks[${index}].units`));
  });
  const lockdown = isMap(data.lockdown) ? data.lockdown : undefined;
  items(lockdown?.steps).forEach((step, index) => {
    if (isMap(step)) add(step.unit, ['lockdown', 'steps', index, 'unit'], `lockdown.steps[${index}].unit`);
  });
  const converge = isMap(data.converge) ? data.converge : undefined;
  items(converge?.waits).forEach((wait, index) => {
    if (!isMap(wait)) return;
    items(wait.after).forEach((unit, u) =>
      add(unit, ['converge', 'waits', index, 'after', u], `converge.waits[${index}].after`),
    );
    if (isMap(wait.output)) {
      add(wait.output.unit, ['converge', 'waits', index, 'output', 'unit'], `converge.waits[${index}].output.unit`);
    }
  });
  for (const [env, park] of entries(data.park)) {
    if (!isMap(park)) continue;
    for (const key of ['node_group_units', 'reconnect_units'] as const) {
      items(park[key]).forEach((unit, u) => add(unit, ['park', env, key, u], `park.${env}.${key}`));
    }
    if (isMap(park.karpenter))
      add(park.karpenter.unit, ['park', env, 'karpenter', 'unit'], `park.${env}.karpenter.unit`);
  }
  return out;
}
