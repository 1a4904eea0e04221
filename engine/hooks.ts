/**
 * The named hooks' contract, owned by the engine that runs them: hooks/ implements it, cli/ builds the registry. A named hook is configured under `hooks:` in `.platctl.yaml` (its `type` is its name)
 * and runs around the apply of each unit it lists, in `bootstrap` only (teardown runs no unit hooks): `beforeUnit`
 * once the unit's log is open and before its apply, `afterUnit` once the apply completed. A hook that returns
 * `{ ok: false }` fails its unit with reason `hook-failed`; its dependents are skipped like after any failure.
 *
 * Hooks report expected failures (an API refused, too few IPs, a check that did not pass) as values. A hook that
 * throws is a bug: the walk turns the exception into a `hook-failed` failure of the unit rather than losing it.
 *
 * A hook that finished `ok` is recorded in the unit's state, so `bootstrap --resume` does not run it again (a CRD
 * stage that applied). Hooks are therefore written to be safe to re-run after a failure or an interruption.
 *
 * Clients (AWS, Kubernetes, Argo CD) are not built by hooks: `cli/` builds the registry, and each factory closes over
 * the clients `cloud/` built for it (per environment, from the context's `env`). Tests pass fakes the same way.
 */
import type { HookConfig } from '../config/schema.js';
import type { UnitId } from './graph.js';
import type { RunCommand } from './unit-status.js';
import type { Result } from '../config/result.js';

/** The name of a named hook: its `type` in `.platctl.yaml`. */
export type HookName = HookConfig['type'];

/** One hook's configuration entry, narrowed to its type (`units` plus the hook's own keys). */
export type HookSettings<N extends HookName = HookName> = Extract<HookConfig, { type: N }>;

/**
 * How a hook went, in platctl's one result type: a success's `value` is one line for the log and reporters (or none);
 * a failure's `message` says what failed and what to do, its `reason` why (`interrupted`, a cloud call's reason, ...).
 */
export type HookResult = Result<string | undefined>;

export type { HookPoint } from '../engine/events.js';

/** What a hook gets for one unit. */
export interface HookContext<N extends HookName = HookName> {
  readonly unit: UnitId;
  /** The unit's environment (the key under `environments:`): pick the clients for it. */
  readonly env: string;
  readonly command: RunCommand;
  /** This hook's configuration entry. */
  readonly settings: HookSettings<N>;
  /** Aborted on the first SIGINT/SIGTERM: stop waiting and return `{ ok: false }` soon. */
  readonly signal: AbortSignal;
  /** Writes one line into the unit's log (redacted there, like the unit's own output). Never print. */
  log(line: string): void;
  /**
   * Runs the unit's Terraform command through the run's executor with extra arguments after the unit's configured
   * ones (crd_two_stage's `-target` stage), under its own header in the unit's log, with the unit's time limit.
   * Expected failures come back as `{ ok: false }`.
   */
  apply(extraArgs: readonly string[], title: string): Promise<HookResult>;
}

/** One configured hook, ready to run. */
export interface NamedHook<N extends HookName = HookName> {
  readonly name: N;
  /**
   * The extra Terraform arguments of each apply the hook runs itself through `ctx.apply`, in order (crd_two_stage's
   * `-target` stage), so `bootstrap --dry-run` can print their exact command lines.
   */
  readonly applies?: readonly (readonly string[])[];
  beforeUnit?(ctx: HookContext<N>): Promise<HookResult>;
  afterUnit?(ctx: HookContext<N>): Promise<HookResult>;
}

/** Builds the hook for one configuration entry; clients are closed over by whoever builds the registry (cli/). */
export type HookFactory<N extends HookName = HookName> = (settings: HookSettings<N>) => NamedHook<N>;

/**
 * Config hook name -> factory. `hooks/registry.ts` builds the production one, which has a factory for every name; tests
 * pass registries with only the hooks they exercise.
 */
export type HookRegistry = { readonly [N in HookName]?: HookFactory<N> };
