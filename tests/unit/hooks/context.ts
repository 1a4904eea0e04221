/** A HookContext for hook tests: the settings go through the real schema (defaults included); log lines are kept. */
import { configSchema } from '../../../config/schema.js';
import type { HookContext, HookName, HookSettings } from '../../../engine/hooks.js';

export interface TestContext<N extends HookName> extends HookContext<N> {
  readonly lines: string[];
  readonly controller: AbortController;
}

/** Parses `hook` (without `type`) as a `name` entry of `.platctl.yaml`. */
export function hookSettings<N extends HookName>(name: N, hook: Record<string, unknown>): HookSettings<N> {
  const parsed = configSchema.parse({
    version: 1,
    environments: { platform: { dir: 'live/platform' } },
    hooks: [{ type: name, units: ['platform/unit'], ...hook }],
  });
  return parsed.hooks[0] as HookSettings<N>;
}

export function hookContext<N extends HookName>(
  name: N,
  hook: Record<string, unknown>,
  unit = 'platform/unit',
): TestContext<N> {
  const lines: string[] = [];
  const controller = new AbortController();
  return {
    unit,
    env: unit.split('/')[0] ?? 'platform',
    command: 'bootstrap',
    settings: hookSettings(name, hook),
    signal: controller.signal,
    log: (line) => lines.push(line),
    apply: () => Promise.reject(new Error('these hooks never apply')),
    lines,
    controller,
  };
}
