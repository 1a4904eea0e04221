/**
 * Access reconciliation for EKS: which access entries and policy associations a cluster should have (from
 * access.<env>.principals), which it has, and the changes between them. Only entries platctl created (tagged
 * {@link MANAGED_TAG}) are ever removed. `platctl access` (cloud/access-command.ts) runs it: configuration in, lines out.
 */
import type { AccessEntry, EksAccess } from './eks-access.js';

/** The tag that marks the entries platctl created; only these are ever pruned. */
export const MANAGED_TAG = { key: 'platctl.io/managed-by', value: 'platctl' } as const;

/** A principal and its policy, as configured. */
export interface DesiredAccess {
  readonly principalArn: string;
  readonly policyArn: string;
}

/** One change to an environment's access entries. `prune` changes run only with --prune. */
export type AccessChange =
  | { readonly action: 'create'; readonly principalArn: string; readonly policyArn: string; readonly prune: false }
  | { readonly action: 'associate'; readonly principalArn: string; readonly policyArn: string; readonly prune: false }
  | { readonly action: 'disassociate'; readonly principalArn: string; readonly policyArn: string; readonly prune: true }
  | { readonly action: 'delete'; readonly principalArn: string; readonly prune: true };

/** `AmazonEKSClusterAdminPolicy` -> its ARN in the principal's partition; an ARN is kept as written. */
export function policyArnFor(policy: string, principalArn: string): string {
  if (policy.startsWith('arn:')) return policy;
  const partition = /^arn:(aws[a-z-]*):/.exec(principalArn)?.[1] ?? 'aws';
  return `arn:${partition}:eks::aws:cluster-access-policy/${policy}`;
}

/** The policy's short name, for people. */
export function policyName(policyArn: string): string {
  return policyArn.split('/').pop() ?? policyArn;
}

export function isManaged(entry: AccessEntry): boolean {
  return entry.tags[MANAGED_TAG.key] === MANAGED_TAG.value;
}

/**
 * The changes that make `actual` match `desired`: pure, so `--dry-run` shows exactly what a real run does. Only
 * STANDARD entries platctl tagged are ever pruned; cluster-scoped policies only are compared.
 */
export function planAccess(desired: readonly DesiredAccess[], actual: readonly AccessEntry[]): AccessChange[] {
  const changes: AccessChange[] = [];
  const byPrincipal = new Map(actual.map((entry) => [entry.principalArn, entry]));
  const wanted = new Map<string, Set<string>>();
  for (const { principalArn, policyArn } of desired) {
    const policies = wanted.get(principalArn) ?? new Set<string>();
    policies.add(policyArn);
    wanted.set(principalArn, policies);
  }
  for (const [principalArn, policies] of [...wanted].sort((a, b) => a[0].localeCompare(b[0]))) {
    const entry = byPrincipal.get(principalArn);
    const has = new Set(entry?.policies.filter((p) => p.scope === 'cluster').map((p) => p.policyArn) ?? []);
    for (const policyArn of [...policies].sort()) {
      if (!entry) changes.push({ action: 'create', principalArn, policyArn, prune: false });
      else if (!has.has(policyArn)) changes.push({ action: 'associate', principalArn, policyArn, prune: false });
    }
    if (entry && isManaged(entry)) {
      for (const policy of entry.policies) {
        if (!policies.has(policy.policyArn)) {
          changes.push({ action: 'disassociate', principalArn, policyArn: policy.policyArn, prune: true });
        }
      }
    }
  }
  for (const entry of actual) {
    if (!wanted.has(entry.principalArn) && isManaged(entry) && entry.type === 'STANDARD') {
      changes.push({ action: 'delete', principalArn: entry.principalArn, prune: true });
    }
  }
  // An entry created for a principal is only created once, whatever number of policies follow.
  return dedupeCreates(changes);
}

function dedupeCreates(changes: AccessChange[]): AccessChange[] {
  const created = new Set<string>();
  return changes.map((change) => {
    if (change.action !== 'create') return change;
    if (!created.has(change.principalArn)) {
      created.add(change.principalArn);
      return change;
    }
    return { action: 'associate', principalArn: change.principalArn, policyArn: change.policyArn, prune: false };
  });
}

/** One line per change: `+` adds, `-` removes. */
export function describeChange(change: AccessChange): string {
  switch (change.action) {
    case 'create':
      return `+ ${change.principalArn}: create the entry, associate ${policyName(change.policyArn)}`;
    case 'associate':
      return `+ ${change.principalArn}: associate ${policyName(change.policyArn)}`;
    case 'disassociate':
      return `- ${change.principalArn}: disassociate ${policyName(change.policyArn)}`;
    case 'delete':
      return `- ${change.principalArn}: delete the entry platctl made`;
  }
}

/** Applies one change through the EKS API; creating an entry tags it as platctl's and associates its policy. */
export async function applyChange(eks: EksAccess, change: AccessChange, signal: AbortSignal) {
  switch (change.action) {
    case 'create': {
      const created = await eks.create(change.principalArn, { [MANAGED_TAG.key]: MANAGED_TAG.value }, signal);
      return created.ok ? eks.associate(change.principalArn, change.policyArn, signal) : created;
    }
    case 'associate':
      return eks.associate(change.principalArn, change.policyArn, signal);
    case 'disassociate':
      return eks.disassociate(change.principalArn, change.policyArn, signal);
    case 'delete':
      return eks.remove(change.principalArn, signal);
  }
}

/** An environment `platctl access` works on: its cluster's client and the access it should give. */
export interface AccessTarget {
  readonly env: string;
  readonly eks: EksAccess;
  readonly desired: readonly DesiredAccess[];
}

/** A failure to read or change one environment's cluster, as one line: what, and the hint in parentheses. */
export interface AccessProblem {
  readonly env: string;
  readonly message: string;
}

const problemOf = (env: string, failed: { readonly message: string; readonly hint?: string | undefined }) => ({
  env,
  message: `${failed.message}${failed.hint ? ` (${failed.hint})` : ''}`,
});

/** One cluster's entries as `platctl access list` shows them, each marked whether platctl made it. */
export interface ClusterAccess {
  readonly env: string;
  readonly cluster: string;
  readonly entries: (AccessEntry & { readonly managed: boolean })[];
}

/** Every target's entries; a cluster that cannot be read is a problem, and the others are listed all the same. */
export async function listAccess(
  targets: readonly AccessTarget[],
  signal: AbortSignal,
): Promise<{ readonly clusters: ClusterAccess[]; readonly problems: AccessProblem[] }> {
  const clusters: ClusterAccess[] = [];
  const problems: AccessProblem[] = [];
  for (const target of targets) {
    const entries = await target.eks.list(signal);
    if (!entries.ok) {
      problems.push(problemOf(target.env, entries));
      continue;
    }
    const marked = entries.value.map((entry) => ({ ...entry, managed: isManaged(entry) }));
    clusters.push({ env: target.env, cluster: target.eks.cluster, entries: marked });
  }
  return { clusters, problems };
}

/** `platctl access list`'s output on stdout: every cluster's entries in words, or as one JSON line under `--json`. */
export function listingText(clusters: readonly ClusterAccess[], json: boolean): string {
  return json ? `${JSON.stringify({ environments: clusters })}\n` : describeClusters(clusters);
}

/** One entry of `platctl access list`: principal, type, who made it, and its policies (namespaces in brackets). */
export function describeEntry(entry: AccessEntry & { readonly managed: boolean }): string {
  const policies = entry.policies
    .map((p) => `${policyName(p.policyArn)}${p.scope === 'namespace' ? ` [${(p.namespaces ?? []).join(', ')}]` : ''}`)
    .join(', ');
  const by = entry.managed ? 'platctl' : 'not platctl';
  return `${entry.principalArn}  ${entry.type}  ${by}  ${policies || '(no policy)'}`;
}

/** `platctl access list` in words: each cluster, its number of entries, then each entry. */
export function describeClusters(clusters: readonly ClusterAccess[]): string {
  return clusters
    .map(
      (env) =>
        `${env.env} (cluster ${env.cluster}): ${env.entries.length} access entries\n` +
        env.entries.map((entry) => `  ${describeEntry(entry)}\n`).join(''),
    )
    .join('');
}

/** A target and the changes that make its cluster match the configuration. */
export interface AccessPlan {
  readonly target: AccessTarget;
  readonly changes: readonly AccessChange[];
}

/** Reads every cluster first and plans each: a listing that fails leaves every cluster untouched. */
export async function planTargets(
  targets: readonly AccessTarget[],
  signal: AbortSignal,
): Promise<{ readonly ok: true; readonly plans: AccessPlan[] } | ({ readonly ok: false } & AccessProblem)> {
  const plans: AccessPlan[] = [];
  for (const target of targets) {
    const entries = await target.eks.list(signal);
    if (!entries.ok) return { ok: false, ...problemOf(target.env, entries) };
    plans.push({ target, changes: planAccess(target.desired, entries.value) });
  }
  return { ok: true, plans };
}

/** What became of one change: done, failed (with why), only planned (dry run, or interrupted), or left for --prune. */
export type ChangeOutcome = AccessChange & {
  readonly status: 'applied' | 'failed' | 'planned' | 'needs-prune';
  readonly error?: string;
};

/** One environment's changes and what became of them (`platctl access --json`). */
export interface AccessOutcome {
  readonly env: string;
  readonly cluster: string;
  readonly changes: ChangeOutcome[];
}

/** What `applyPlans` tells as it goes, for the CLI to print. */
export type ReconcileEvent =
  | { readonly type: 'cluster'; readonly plan: AccessPlan }
  | {
      readonly type: 'change';
      readonly env: string;
      readonly change: ChangeOutcome;
      /** A planned change that was not made because the run was interrupted. */
      readonly interrupted: boolean;
    };

/**
 * Applies each plan's changes in order, telling each as it ends: a prune change only with `prune`, nothing with
 * `dryRun`, and after an abort the rest only as planned. `failed` when a change failed or an abort left one undone.
 */
export async function applyPlans(
  plans: readonly AccessPlan[],
  options: { readonly dryRun: boolean; readonly prune: boolean; readonly signal: AbortSignal },
  tell: (event: ReconcileEvent) => void,
): Promise<{ readonly outcomes: AccessOutcome[]; readonly failed: boolean }> {
  const { dryRun, prune, signal } = options;
  const outcomes: AccessOutcome[] = [];
  let failed = false;
  for (const plan of plans) {
    const { target } = plan;
    const outcome: AccessOutcome = { env: target.env, cluster: target.eks.cluster, changes: [] };
    outcomes.push(outcome);
    tell({ type: 'cluster', plan });
    for (const change of plan.changes) {
      const interrupted = !dryRun && signal.aborted;
      let done: ChangeOutcome;
      if (change.prune && !prune) done = { ...change, status: 'needs-prune' };
      else if (dryRun || interrupted) done = { ...change, status: 'planned' };
      else {
        const result = await applyChange(target.eks, change, signal);
        done = result.ok
          ? { ...change, status: 'applied' }
          : { ...change, status: 'failed', error: problemOf(target.env, result).message };
      }
      if (done.status === 'failed' || (done.status === 'planned' && interrupted)) failed = true;
      outcome.changes.push(done);
      tell({ type: 'change', env: target.env, change: done, interrupted: done.status === 'planned' && interrupted });
    }
  }
  return { outcomes, failed };
}

/** What `platctl access` reads of the configuration (`.platctl.yaml`'s `environments` and `access`), by shape. */
export interface AccessSettings {
  readonly environments: Readonly<Record<string, { readonly cluster?: unknown; readonly aws?: unknown } | undefined>>;
  readonly access: Readonly<
    Record<string, { readonly principals: readonly { readonly arn: string; readonly policy: string }[] } | undefined>
  >;
}

/**
 * The environments `platctl access` works on (`named`, else every one with a cluster to list, else every one with
 * `access.<env>`), and what stops it before any call: an environment without principals, a cluster or AWS settings.
 */
export function accessEnvs(
  settings: AccessSettings,
  named: readonly string[],
  list: boolean,
): { readonly envs: readonly string[]; readonly problems: readonly string[] } {
  const envs =
    named.length > 0
      ? named
      : list
        ? Object.keys(settings.environments).filter((env) => settings.environments[env]?.cluster)
        : Object.keys(settings.access);
  const problems: string[] = [];
  if (envs.length === 0) {
    problems.push(
      list
        ? 'no environment names a cluster (environments.<env>.cluster.name)'
        : 'no access.<env> in the configuration: nothing to reconcile',
    );
  }
  for (const env of envs) {
    const environment = settings.environments[env];
    if (!list && !settings.access[env])
      problems.push(`environment ${env} has no access.${env}.principals to reconcile`);
    if (!environment?.cluster)
      problems.push(`environment ${env} names no cluster (set environments.${env}.cluster.name)`);
    if (!environment?.aws) problems.push(`environment ${env} has no AWS settings (set environments.${env}.aws.region)`);
  }
  return { envs, problems };
}

/** The access `env` should give: each configured principal with its policy's ARN. */
export function desiredAccess(settings: AccessSettings, env: string): DesiredAccess[] {
  return (settings.access[env]?.principals ?? []).map((p) => ({
    principalArn: p.arn,
    policyArn: policyArnFor(p.policy, p.arn),
  }));
}

/** How long `platctl access` asks the credentials preflight for: reconciling a cluster takes seconds. */
export const ACCESS_PREFLIGHT_BUDGET_MS = 5 * 60_000;

/** What a reconcile event adds on stderr: a change that failed, with AWS's words; undefined for anything else. */
export function reconcileProblem(event: ReconcileEvent): string | undefined {
  return event.type === 'change' && event.change.status === 'failed'
    ? `${event.env}: ${event.change.error ?? ''}`
    : undefined;
}

/** What `platctl access` prints on stdout once every cluster is done: the JSON summary under `--json`, or a dry run's note. */
export function reconcileEnding(
  outcomes: readonly AccessOutcome[],
  options: { readonly dryRun: boolean; readonly prune: boolean; readonly json: boolean },
): string {
  const { dryRun, prune } = options;
  if (options.json) return `${JSON.stringify({ dry_run: dryRun, prune, environments: outcomes })}\n`;
  return dryRun ? 'Dry run: nothing was changed.\n' : '';
}

/** What `platctl access` prints as a cluster is reconciled: its name, then each change and what became of it. */
export function reconcileLine(event: ReconcileEvent, dryRun: boolean): string {
  if (event.type === 'cluster') {
    const { target, changes } = event.plan;
    return `${target.env} (cluster ${target.eks.cluster}):${changes.length === 0 ? ' up to date' : ''}\n`;
  }
  const line = describeChange(event.change);
  switch (event.change.status) {
    case 'needs-prune':
      return `  ${line} (with --prune)\n`;
    case 'planned':
      return `  ${line}${dryRun ? '' : ' (not done: interrupted)'}\n`;
    case 'applied':
      return `  ${line}: done\n`;
    case 'failed':
      return `  ${line}: FAILED\n`;
  }
}
