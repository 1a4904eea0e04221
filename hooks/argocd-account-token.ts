/**
 * `argocd_account_token`: after the unit that installs or upgrades Argo CD, mint a fresh API token for an Argo CD
 * account (a tool such as Backstage) and put it into a Secrets Manager secret, where that tool reads it. The admin
 * password comes from Argo CD's own Kubernetes secret.
 *
 * Order matters for the tool using the token: the new token is created and stored first, and only then are the
 * account's older platctl tokens revoked, so there is never a moment with no valid token in the secret. Tokens
 * platctl mints carry the id `platctl-<UTC time>`; tokens made by anyone else are left alone.
 *
 * The password, the session and the token are secrets: they go into requests only, never into a log line, the
 * state, a result or an error message.
 */
import type { ArgoCdClient, ArgoSession } from '../cloud/argocd.js';
import type { KubeReader } from '../cloud/kube.js';
import type { CloudResult } from '../cloud/result.js';
import type { SecretsManager } from '../cloud/secrets-manager.js';
import { hookFailure } from './failure.js';
import type { Result } from '../config/result.js';
import { ok } from '../config/result.js';
import type { HookContext, HookFactory, HookResult } from '../engine/hooks.js';

export interface ArgocdAccountTokenDeps {
  /** The environment's cluster, where Argo CD's admin secret lives. */
  kube(env: string, signal?: AbortSignal): Promise<CloudResult<KubeReader>>;
  /** The environment's Secrets Manager. */
  secrets(env: string): Promise<CloudResult<SecretsManager>>;
  /** An Argo CD API client for `server`. */
  argocd(server: string): ArgoCdClient;
  readonly now?: () => number;
}

const NAME = 'argocd_account_token';
/** The id prefix of the tokens this hook mints; only these are ever revoked. */
export const TOKEN_ID_PREFIX = 'platctl-';
/** Argo CD's built-in administrator, whose password the admin secret holds. */
const ADMIN_USER = 'admin';

/** `platctl-20261201T174500123Z`: sortable, unique per millisecond. */
export function tokenId(now: number): string {
  return `${TOKEN_ID_PREFIX}${new Date(now).toISOString().replace(/[-:.]/g, '')}`;
}

type Ctx = HookContext<'argocd_account_token'>;

/** Admin password (Kubernetes) -> Argo CD session. */
async function login(ctx: Ctx, deps: ArgocdAccountTokenDeps): Promise<Result<ArgoSession>> {
  const { settings, unit, env, signal } = ctx;
  const kube = await deps.kube(env, signal);
  if (!kube.ok) return hookFailure(NAME, unit, `reaching the cluster of environment ${env}`, kube);
  const password = await kube.value.readSecretKey(settings.namespace, settings.admin_secret, 'password', signal);
  if (!password.ok) {
    const hint =
      password.hint ??
      `set the hook's namespace and admin_secret to where Argo CD keeps the admin password (key "password")`;
    return hookFailure(NAME, unit, "reading Argo CD's admin password", { ...password, hint });
  }
  const session = await deps.argocd(settings.server).login(ADMIN_USER, password.value, signal);
  if (!session.ok) {
    return hookFailure(NAME, unit, `logging in to Argo CD at ${settings.server}`, session);
  }
  return ok(session.value);
}

/** The whole hook for one unit. */
export async function rotateAccountToken(ctx: Ctx, deps: ArgocdAccountTokenDeps): Promise<HookResult> {
  const { settings, unit, env, signal } = ctx;
  const sm = await deps.secrets(env);
  if (!sm.ok) return hookFailure(NAME, unit, `reaching Secrets Manager for environment ${env}`, sm);
  const loggedIn = await login(ctx, deps);
  if (!loggedIn.ok) return loggedIn;
  const session = loggedIn.value;

  const account = await session.getAccount(settings.account, signal);
  if (!account.ok) {
    return hookFailure(NAME, unit, `reading Argo CD account ${settings.account}`, {
      ...account,
      ...(account.reason === 'not-found'
        ? { hint: `declare it in argocd-cm (accounts.${settings.account}: apiKey), or fix the hook's account` }
        : {}),
    });
  }
  if (!account.value.capabilities.includes('apiKey')) {
    return {
      ok: false,
      reason: 'not-configured',
      message:
        `${NAME} hook of ${unit}: Argo CD account ${settings.account} cannot have API tokens ` +
        `(capabilities: ${account.value.capabilities.join(', ') || 'none'}); set accounts.${settings.account}: apiKey in argocd-cm`,
    };
  }

  const id = tokenId((deps.now ?? Date.now)());
  const created = await session.createToken(settings.account, id, signal);
  if (!created.ok) return hookFailure(NAME, unit, `creating a token for account ${settings.account}`, created);
  ctx.log(`${NAME}: created token ${id} for Argo CD account ${settings.account}`);

  const stored = await sm.value.putValue(settings.secret_id, created.value.token, signal);
  if (!stored.ok) {
    // Leave no usable token behind that nothing records.
    const revoked = await session.deleteToken(settings.account, id, signal);
    ctx.log(`${NAME}: ${revoked.ok ? 'revoked' : 'could not revoke'} the unstored token ${id}`);
    return hookFailure(NAME, unit, `putting the token into secret ${settings.secret_id}`, stored);
  }
  ctx.log(`${NAME}: stored the token in secret ${settings.secret_id}`);

  const older = account.value.tokens.filter((token) => token.id.startsWith(TOKEN_ID_PREFIX) && token.id !== id);
  const leftovers: string[] = [];
  for (const token of older) {
    const revoked = await session.deleteToken(settings.account, token.id, signal);
    ctx.log(`${NAME}: ${revoked.ok ? 'revoked' : `could not revoke (${revoked.message})`} older token ${token.id}`);
    if (!revoked.ok) leftovers.push(token.id);
  }
  const revokedCount = older.length - leftovers.length;
  return {
    ok: true,
    value:
      `new token ${id} for ${settings.account} in secret ${settings.secret_id}; revoked ${revokedCount} older platctl token${revokedCount === 1 ? '' : 's'}` +
      (leftovers.length > 0 ? `; still to revoke by hand: ${leftovers.join(', ')}` : ''),
  };
}

/** The factory the hook registry wires: `argocd_account_token: argocdAccountTokenHook(clients)`. */
export function argocdAccountTokenHook(deps: ArgocdAccountTokenDeps): HookFactory<'argocd_account_token'> {
  return () => ({ name: NAME, afterUnit: (ctx) => rotateAccountToken(ctx, deps) });
}
