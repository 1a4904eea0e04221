/**
 * Access reconciliation for EKS: which access entries and policy associations a cluster should have (from
 * access.<env>.principals), which it has, and the changes between them. Only entries platctl created (tagged
 * {@link MANAGED_TAG}) are ever removed. `platctl access` (cli/access.ts) wires it: configuration in, lines out.
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
