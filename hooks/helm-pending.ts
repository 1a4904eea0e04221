/**
 * `helm-pending`: a Helm release left `pending-install`, `pending-upgrade` or `pending-rollback` by an interrupted
 * apply makes every later apply of its unit fail with Helm's "another operation (install/upgrade/rollback) is in
 * progress" (the Terraform helm provider prints it as a diagnostic naming the `helm_release` resource). Helm 3 keeps
 * one Secret per revision, `sh.helm.release.v1.<release>.v<N>` in the release's namespace, labelled
 * `owner=helm,name=<release>,status=<status>,version=<N>`; the release is stuck because its newest revision says
 * pending. Deleting exactly that Secret makes the previous revision the newest again, and the next apply proceeds.
 *
 * - Recognise: the error line, then the diagnostic's `with <address>,` line; the release name from the same output
 *   (`<address>: Modifying... [id=<release>]`, or the plan's `name = "<release>"` of that resource), the namespace
 *   from the plan when it is shown, otherwise looked up in the cluster by the release's labels.
 * - Switched off (the default): the unit's error names the release and namespace and carries the exact kubectl
 *   command that deletes the pending revision's Secret (read from the cluster when it can be), and the resume command.
 * - Switched on (`recover: [helm-pending]` or `bootstrap --recover helm-pending`): delete that Secret through the
 *   cluster's API, only when the newest revision is the only pending one; never a deployed, superseded or failed one.
 */
import type { CloudResult } from '../cloud/result.js';
import type { RecoveryContext, RecoveryVerdict, UnitRecovery } from '../engine/recovery.js';

export const HELM_PENDING = 'helm-pending';

/**
 * Helm's own error text (helm.sh/helm/v3 pkg/action: errPending) after `Error: ` and any `<prefix>: ` (the provider's
 * `error running dry run for a diff: `, helm's `UPGRADE FAILED: `), at the end of a line.
 */
const ERROR_LINE = /\bError: (?:[^":]{1,80}: )*another operation \(install\/upgrade\/rollback\) is in progress\.?\s*$/;

/** A Terraform resource address of a helm_release, with modules and instance keys. */
const ADDRESS = String.raw`(?:module\.[A-Za-z0-9_-]+(?:\[[^\]]{1,100}\])?\.)*helm_release\.[A-Za-z0-9_-]+(?:\[[^\]]{1,100}\])?`;
const WITH_LINE = new RegExp(String.raw`\bwith (${ADDRESS}),\s*$`);

/** Helm's release names: a DNS-1123 subdomain of at most 53 characters. */
const RELEASE_NAME = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
/** A Kubernetes namespace: a DNS-1123 label. */
const NAMESPACE = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/** What the failed output says. `release`/`namespace` are undefined when the output does not tell. */
export interface HelmPendingFailure {
  /** The Terraform address of the helm_release, when the diagnostic names it. */
  readonly address?: string;
  readonly release?: string;
  readonly namespace?: string;
  /** The error line as printed. */
  readonly line: string;
}

/**
 * Strips what wraps Terraform's own text: Terragrunt's log prefix (`12:00:01.234 STDOUT terraform: `, with or
 * without a `[unit]`) and the diagnostic frame (`│ `).
 */
function bare(line: string): string {
  return line
    .replace(/^\d{2}:\d{2}:\d{2}(?:\.\d+)? +(?:STDOUT|STDERR|ERROR|WARN|INFO) +(?:\[[^\]]*\] +)?[\w.-]+: ?/, '')
    .replace(/^\s*[│|] ?/, '');
}

/**
 * Whether `lines` hold Helm's "another operation is in progress" error, and for which release. Undefined when they do
 * not; a line merely quoting the text (a value in a plan, an echo) is not the error.
 */
export function recogniseHelmPending(lines: readonly string[]): HelmPendingFailure | undefined {
  const plain = lines.map(bare);
  const errors = plain.flatMap((line, index) => (ERROR_LINE.test(line) ? [index] : []));
  const first = errors[0];
  if (first === undefined) return undefined;
  let address: string | undefined;
  for (let i = first + 1; i < Math.min(plain.length, first + 8); i += 1) {
    const found = WITH_LINE.exec(plain[i] ?? '');
    if (found) {
      address = found[1];
      break;
    }
  }
  const line = (plain[first] ?? '').trim();
  if (address === undefined) return { line };
  const fromPlan = planAttributes(plain, address);
  const release = idOf(plain, address) ?? fromPlan.name;
  return {
    address,
    line,
    ...(release !== undefined && RELEASE_NAME.test(release) && release.length <= 53 ? { release } : {}),
    ...(fromPlan.namespace !== undefined && NAMESPACE.test(fromPlan.namespace)
      ? { namespace: fromPlan.namespace }
      : {}),
  };
}

/** `<address>: Modifying... [id=<release>]` (the helm_release's id is its release name). */
function idOf(lines: readonly string[], address: string): string | undefined {
  const prefix = `${address}: `;
  for (const line of lines) {
    const at = line.indexOf(prefix);
    if (at < 0) continue;
    const found = /^(?:Modifying|Still modifying|Destroying|Refreshing state|Reading)\.\.\. \[id=([^\],]+)/.exec(
      line.slice(at + prefix.length),
    );
    if (found) return found[1];
  }
  return undefined;
}

/** The `name` and `namespace` attributes of the resource's block in the plan, when shown (unchanged or new). */
function planAttributes(lines: readonly string[], address: string): { name?: string; namespace?: string } {
  const start = lines.findIndex((line) => new RegExp(String.raw`#\s+${escape(address)}\s+(?:will|must)\b`).test(line));
  if (start < 0) return {};
  const out: { name?: string; namespace?: string } = {};
  for (let i = start + 1; i < lines.length && i < start + 400; i += 1) {
    const line = lines[i] ?? '';
    if (/^\s*}\s*$/.test(line) && !/^\s{6,}}/.test(line)) break;
    // `name = "x"` or `+ name = "x"`; a changing value (`"a" -> "b"`) is not one to act on.
    const found = /^\s*[+~]?\s*(name|namespace)\s*=\s*"([^"]+)"\s*$/.exec(line);
    const [, key, value] = found ?? [];
    if (value !== undefined && key === 'name' && out.name === undefined) out.name = value;
    if (value !== undefined && key === 'namespace' && out.namespace === undefined) out.namespace = value;
  }
  return out;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The metadata of one of a release's Secrets. */
export interface HelmSecret {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
}

export type SecretChoice =
  | { readonly type: 'delete'; readonly secret: HelmSecret; readonly revision: number; readonly status: string }
  | { readonly type: 'refuse'; readonly reason: string };

/** The Secret name Helm 3 gives `release`'s revision `n`. */
export function helmSecretName(release: string, revision: number): string {
  return `sh.helm.release.v1.${release}.v${revision}`;
}

/**
 * Which Secret clears the stuck release: the newest revision, only when it is pending and no other revision is.
 * Everything else is refused with the reason: a deployed newest revision means the release is not stuck (nothing to
 * do safely), several pending revisions mean Helm's history is not what this repair understands.
 */
export function pickPendingSecret(release: string, secrets: readonly HelmSecret[]): SecretChoice {
  const ours = secrets.filter((s) => s.labels.owner === 'helm' && s.labels.name === release);
  if (ours.length === 0) {
    return {
      type: 'refuse',
      reason: `no Helm Secret of release ${release} was found (owner=helm,name=${release}); is it stored another way (HELM_DRIVER)?`,
    };
  }
  const revisions: { secret: HelmSecret; revision: number; status: string }[] = [];
  for (const secret of ours) {
    const revision = Number(secret.labels.version);
    if (!Number.isSafeInteger(revision) || revision < 1 || secret.name !== helmSecretName(release, revision)) {
      return {
        type: 'refuse',
        reason: `Secret ${secret.namespace}/${secret.name} does not look like Helm's revision record (version label ${secret.labels.version ?? 'missing'})`,
      };
    }
    revisions.push({ secret, revision, status: secret.labels.status ?? 'unknown' });
  }
  revisions.sort((a, b) => b.revision - a.revision);
  const newest = revisions[0];
  if (newest === undefined) return { type: 'refuse', reason: `no revision of release ${release}` };
  const pending = revisions.filter((r) => r.status.startsWith('pending-'));
  if (!newest.status.startsWith('pending-')) {
    return {
      type: 'refuse',
      reason: `the newest revision of ${release} (v${newest.revision}) is ${newest.status}, not pending: nothing to clear safely`,
    };
  }
  if (pending.length > 1) {
    return {
      type: 'refuse',
      reason: `several revisions of ${release} are pending (${pending.map((r) => `v${r.revision} ${r.status}`).join(', ')}): check its history (helm history ${release}) and clear it by hand`,
    };
  }
  return { type: 'delete', secret: newest.secret, revision: newest.revision, status: newest.status };
}

/** What the recovery needs from an environment's cluster. */
export interface HelmSecretStore {
  /** The context a person's kubectl would use (`environments.<env>.cluster.kubeconfig_context`), if any. */
  readonly context?: string;
  /** The Secrets labelled `owner=helm,name=<release>`, in `namespace` or, without one, in every namespace. */
  list(release: string, namespace: string | undefined, signal: AbortSignal): Promise<CloudResult<HelmSecret[]>>;
  delete(namespace: string, name: string): Promise<CloudResult<'deleted' | 'gone'>>;
}

export interface HelmPendingOptions {
  /** `recover: [helm-pending]` or `--recover helm-pending`: delete the Secret; otherwise only advise. */
  readonly enabled: boolean;
  /** The cluster of an environment (built on first use by cli/). */
  secrets(env: string, signal: AbortSignal): Promise<CloudResult<HelmSecretStore>>;
  /** The command that resumes the run (`platctl bootstrap --resume`). */
  readonly resume: string;
}

/** The recovery the walk runs after a failed apply. */
export function helmPendingRecovery(options: HelmPendingOptions): UnitRecovery {
  return {
    name: HELM_PENDING,
    handle: async (ctx) => {
      const found = recogniseHelmPending(ctx.lines);
      return found ? respond(ctx, found, options) : undefined;
    },
  };
}

async function respond(
  ctx: RecoveryContext,
  found: HelmPendingFailure,
  options: HelmPendingOptions,
): Promise<RecoveryVerdict> {
  const what = `Helm release ${found.release ?? `of ${found.address ?? 'an unnamed helm_release'}`}`;
  const stuck = `${what}${found.namespace ? ` in namespace ${found.namespace}` : ''} is stuck in a pending operation`;
  if (found.release === undefined) {
    const advice =
      `${stuck} (the output does not name the release); find its pending revision with ` +
      `kubectl get secrets --all-namespaces -l owner=helm -L name,status,version, delete that revision's ` +
      `Secret (only one whose status is pending-*), then ${options.resume}`;
    return options.enabled
      ? { type: 'failed', message: `${HELM_PENDING}: nothing deleted: ${advice}` }
      : { type: 'advice', advice };
  }
  const release = found.release;
  const store = await options.secrets(ctx.env, ctx.signal);
  const located = store.ok ? await locate(store.value, release, found.namespace, ctx.signal) : store;
  if (!located.ok) {
    const advice =
      `${stuck}; platctl cannot read its Secrets (${located.message}): find the pending revision with ` +
      `${kubectl(store.ok ? store.value.context : undefined, ['get', 'secrets', ...nsArgs(found.namespace), '-l', `owner=helm,name=${release}`, '-L', 'status,version'])}, ` +
      `delete sh.helm.release.v1.${release}.v<N> of the newest revision if its status is pending-*, then ${options.resume}`;
    return options.enabled
      ? { type: 'failed', message: `${HELM_PENDING}: nothing deleted: ${advice}` }
      : { type: 'advice', advice };
  }
  const { namespace, choice } = located.value;
  const context = store.ok ? store.value.context : undefined;
  const where = `Helm release ${release} in namespace ${namespace}`;
  if (choice.type === 'refuse') {
    const message = `${where}: ${choice.reason}`;
    return options.enabled
      ? { type: 'failed', message: `${HELM_PENDING}: nothing deleted: ${message}` }
      : { type: 'advice', advice: message };
  }
  const secret = choice.secret.name;
  const command = kubectl(context, ['delete', 'secret', secret, '--namespace', namespace]);
  if (!options.enabled) {
    return {
      type: 'advice',
      advice:
        `${where} is stuck ${choice.status} (revision ${choice.revision}); to clear it, delete only that revision's ` +
        `Secret: ${command}, then ${options.resume} (or let platctl do it: ${options.resume} --recover ${HELM_PENDING})`,
    };
  }
  if (ctx.signal.aborted)
    return { type: 'failed', message: `${HELM_PENDING}: interrupted before deleting ${namespace}/${secret}` };
  ctx.log(
    `# ${HELM_PENDING}: ${where} is stuck ${choice.status} (revision ${choice.revision}); deleting Secret ${namespace}/${secret}`,
  );
  // Not raced against the signal: the one destructive call is awaited (bounded by the client's timeout) so what it
  // did is known and recorded.
  const deleted = store.ok ? await store.value.delete(namespace, secret) : store;
  if (!deleted.ok) {
    return {
      type: 'failed',
      message: `${HELM_PENDING}: deleting Secret ${namespace}/${secret} failed: ${deleted.message}${deleted.hint ? `; ${deleted.hint}` : ''}; run ${command} yourself, then ${options.resume}`,
    };
  }
  return {
    type: 'recovered',
    detail: `deleted Secret ${namespace}/${secret} (${release} revision ${choice.revision}, ${choice.status})${deleted.value === 'gone' ? ', already gone' : ''}`,
  };
}

/** The release's namespace and the Secret to delete, from the cluster. */
async function locate(
  store: HelmSecretStore,
  release: string,
  namespace: string | undefined,
  signal: AbortSignal,
): Promise<CloudResult<{ namespace: string; choice: SecretChoice }>> {
  const listed = await store.list(release, namespace, signal);
  if (!listed.ok) return listed;
  const namespaces = [...new Set(listed.value.map((s) => s.namespace))].sort();
  if (namespace === undefined && namespaces.length > 1) {
    return {
      ok: true,
      value: {
        namespace: namespaces.join(', '),
        choice: {
          type: 'refuse',
          reason: `a release named ${release} exists in several namespaces (${namespaces.join(', ')}) and the output does not say which one is stuck: clear it by hand`,
        },
      },
    };
  }
  const ns = namespace ?? namespaces[0] ?? '(unknown)';
  return { ok: true, value: { namespace: ns, choice: pickPendingSecret(release, listed.value) } };
}

function nsArgs(namespace: string | undefined): string[] {
  return namespace ? ['--namespace', namespace] : ['--all-namespaces'];
}

/** A kubectl command line as a person would type it (every part here is a validated name: no quoting needed). */
function kubectl(context: string | undefined, args: readonly string[]): string {
  return ['kubectl', ...(context ? ['--context', quote(context)] : []), ...args].join(' ');
}

/** A context name may hold anything: single-quote it for a POSIX shell when it is not plain. */
function quote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
