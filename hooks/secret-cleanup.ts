/**
 * `secret_cleanup`: before a unit that creates Secrets Manager secrets, force-delete the ones with the same names
 * that a teardown left scheduled for deletion. Without this the apply fails with "a secret with this name is
 * already scheduled for deletion" for up to 30 days (the recovery window), and a rebuilt platform cannot come up.
 *
 * The delete is asynchronous: AWS answers at once but keeps the name for a while. The hook waits, polling
 * DescribeSecret, until every name is free, so the apply that follows does not race it.
 */
import type { CloudResult } from '../cloud/result.js';
import type { SecretsManager, SecretSummary } from '../cloud/secrets-manager.js';
import { hookFailure } from './failure.js';
import { failure, ok } from '../config/result.js';
import type { HookContext, HookFactory, HookResult } from '../engine/hooks.js';
import { abortableSleep } from '../engine/timers.js';

export interface SecretCleanupDeps {
  /** The Secrets Manager client of an environment (see `cloud/hook-clients.ts`). */
  secrets(env: string): Promise<CloudResult<SecretsManager>>;
  readonly now?: () => number;
  /** Resolves after `ms`, or early when `signal` aborts. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Between two DescribeSecret rounds while waiting for names to become free (default 2 s). */
  readonly pollMs?: number;
}

const NAME = 'secret_cleanup';

/** The whole clean-up for one unit, with the client injected. */
export async function cleanupSecrets(
  ctx: HookContext<'secret_cleanup'>,
  sm: SecretsManager,
  deps: Pick<SecretCleanupDeps, 'now' | 'sleep' | 'pollMs'> = {},
): Promise<HookResult> {
  const { settings, unit, signal } = ctx;
  const pending = await sm.listPendingDeletion({ names: settings.names, prefixes: settings.prefixes }, signal);
  if (!pending.ok) return hookFailure(NAME, unit, 'listing secrets scheduled for deletion', pending);
  if (pending.value.length === 0) return ok('no secret of this unit is scheduled for deletion');

  for (const secret of pending.value) {
    ctx.log(`${NAME}: force-deleting ${secret.name}, scheduled for deletion${when(secret)}`);
    const deleted = await sm.forceDelete(secret.arn, signal);
    if (!deleted.ok) return hookFailure(NAME, unit, `force-deleting secret ${secret.name}`, deleted);
  }
  const names = [...new Set(pending.value.map((secret) => secret.name))];
  const waited = await waitUntilFree(ctx, sm, names, deps);
  if (!waited.ok) return waited;
  return {
    ok: true,
    value: `force-deleted ${names.length} secret${names.length === 1 ? '' : 's'} scheduled for deletion: ${names.join(', ')}`,
  };
}

/** Polls each name until DescribeSecret no longer finds it scheduled for deletion, within `settings.timeout`. */
async function waitUntilFree(
  ctx: HookContext<'secret_cleanup'>,
  sm: SecretsManager,
  names: readonly string[],
  deps: Pick<SecretCleanupDeps, 'now' | 'sleep' | 'pollMs'>,
): Promise<HookResult> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? abortableSleep;
  const deadline = now() + ctx.settings.timeout;
  let waiting = [...names];
  for (;;) {
    const still: string[] = [];
    for (const name of waiting) {
      const state = await sm.state(name, ctx.signal);
      if (!state.ok) return hookFailure(NAME, ctx.unit, `checking that secret name ${name} is free`, state);
      if (state.value === 'pending-deletion') still.push(name);
      else ctx.log(`${NAME}: ${name} is free`);
    }
    waiting = still;
    if (waiting.length === 0) return ok(undefined);
    if (ctx.signal.aborted) {
      return failure('interrupted', `${NAME} hook of ${ctx.unit}: interrupted while AWS deleted ${waiting.join(', ')}`);
    }
    if (now() >= deadline) {
      return {
        ok: false,
        reason: 'timeout',
        message:
          `${NAME} hook of ${ctx.unit}: ${waiting.join(', ')} still scheduled for deletion ${formatSeconds(ctx.settings.timeout)} ` +
          "after the force delete: AWS has not finished it. Run bootstrap --resume in a minute, or raise the hook's timeout.",
      };
    }
    await sleep(Math.min(deps.pollMs ?? 2000, Math.max(0, deadline - now())), ctx.signal);
  }
}

function when(secret: SecretSummary): string {
  return secret.deletionDate ? ` on ${secret.deletionDate.toISOString()}` : '';
}

function formatSeconds(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${Math.round(ms / 1000)}s`;
}

/** The factory the hook registry wires: `secret_cleanup: secretCleanupHook(clients)`. */
export function secretCleanupHook(deps: SecretCleanupDeps): HookFactory<'secret_cleanup'> {
  return () => ({
    name: NAME,
    async beforeUnit(ctx) {
      const sm = await deps.secrets(ctx.env);
      if (!sm.ok) return hookFailure(NAME, ctx.unit, `reaching Secrets Manager for environment ${ctx.env}`, sm);
      return cleanupSecrets(ctx, sm.value, deps);
    },
  });
}
