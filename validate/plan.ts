/**
 * Which checks a validate run performs, as plain data: built from the configuration and the discovered units, no
 * I/O. Every check has a stable id (`<check>:<target>`), a phase, the ids it depends on, and a timeout. A failure of
 * a dependency turns a check into a skip naming that failure, which is how one expired login stays one failure.
 */
import picomatch from 'picomatch';
import type { PlatctlConfig } from '../config/schema.js';
import type { UnitInfo } from '../discover/types.js';
import type { UnitId } from '../engine/graph.js';
import { compareIds } from '../engine/graph.js';
import type { CheckPhase, UnitCheckerName } from './types.js';
import { PHASE_ORDER } from './types.js';

/** Per-check timeout when `validate.timeout` is not set. */
export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;
/** Where the cilium agent runs (the chart's defaults). */
export const CILIUM_DAEMONSET = { namespace: 'kube-system', name: 'cilium' } as const;
/** Where ArgoCD keeps its Applications (the default install). */
export const ARGOCD_NAMESPACE = 'argocd';

/** Where a unit's Terraform state lives, as far as the configuration tells. */
export type StateLocation =
  | { readonly type: 's3'; readonly bucket: string; readonly key: string; readonly region?: string }
  /** Nothing to check (no S3 remote_state): reported as a skip with this reason. */
  | { readonly type: 'unchecked'; readonly reason: string }
  /** An S3 backend whose bucket or key is unknown: an error, because the state cannot be found. */
  | { readonly type: 'unresolved'; readonly reason: string };

export type CheckSpec =
  | { readonly kind: 'iam-credentials'; readonly env: string }
  | { readonly kind: 'iam-deployer-role'; readonly env: string; readonly roleArn: string }
  | { readonly kind: 'iam-state-bucket'; readonly env: string; readonly bucket: string }
  | { readonly kind: 'cluster-api'; readonly env: string }
  | { readonly kind: 'eks-cluster'; readonly env: string; readonly unit: UnitId }
  | { readonly kind: 'cilium-agent'; readonly env: string; readonly unit: UnitId }
  | { readonly kind: 'argocd-apps'; readonly env: string; readonly unit: UnitId }
  | { readonly kind: 'unit-state'; readonly env: string; readonly unit: UnitId; readonly state: StateLocation }
  | { readonly kind: 'http-endpoint'; readonly url: string; readonly expect: readonly number[] }
  | { readonly kind: 'dns-delegation'; readonly env: string; readonly zone: string }
  | { readonly kind: 'gateway'; readonly env: string; readonly namespace: string; readonly name: string }
  | { readonly kind: 'tailscale-status'; readonly binary: string; readonly peers: readonly string[] }
  | { readonly kind: 'tailscale-url'; readonly url: string }
  | { readonly kind: 'bastion'; readonly env: string; readonly tags: Readonly<Record<string, string>> };

export interface PlannedCheck {
  readonly id: string;
  readonly check: string;
  readonly target: string;
  readonly phase: CheckPhase;
  /** The environment whose credentials the check uses, if any. */
  readonly env?: string;
  /** Ids of checks that must pass first. */
  readonly requires: readonly string[];
  readonly timeoutMs: number;
  /** A timeout means the subject is unhealthy (`fail`) rather than that it could not be checked (`error`). */
  readonly timeoutIsFailure: boolean;
  readonly spec: CheckSpec;
}

export interface PlanInput {
  readonly config: PlatctlConfig;
  readonly units: ReadonlyMap<UnitId, UnitInfo>;
  /** `--env`: only these environments (all when empty or absent). */
  readonly envs?: readonly string[];
  /** `--check PREFIX`: only checks whose id starts with it, plus what they depend on. */
  readonly checkPrefix?: string;
}

export type PlanResult =
  | { readonly ok: true; readonly checks: readonly PlannedCheck[] }
  | {
      readonly ok: false;
      readonly reason: 'no-match';
      readonly message: string;
      readonly available: readonly string[];
    };

const UNIT_CHECK: Record<UnitCheckerName, { check: string; kind: 'eks-cluster' | 'cilium-agent' | 'argocd-apps' }> = {
  eks_cluster: { check: 'unit/eks_cluster', kind: 'eks-cluster' },
  cilium_agent: { check: 'unit/cilium_agent', kind: 'cilium-agent' },
  argocd_apps: { check: 'unit/argocd_apps', kind: 'argocd-apps' },
};

/**
 * True when a `--check` prefix could select a check that only exists because of units (a per-unit check, or the
 * cluster gate that per-unit checks create), i.e. when discovery is needed at all.
 */
export function prefixNeedsUnits(prefix: string | undefined): boolean {
  if (prefix === undefined || prefix === '') return true;
  return ['unit/', 'cluster/'].some((group) => group.startsWith(prefix) || prefix.startsWith(group));
}

/**
 * The checker of a unit: the first `validate.checkers` pattern (in file order) that matches it. A pattern without a
 * `/` is matched against the whole last element of the unit's path (`eks` matches `platform/eks`, not
 * `platform/eks-addons`); one with a `/` against the whole unit id. Both may use glob characters (`eks-*`,
 * `preprod/eks`). Undefined means the generic state check. Prefix matching gave `eks-addons` the EKS
 * cluster check, so a name only selects a checker when it says so in full.
 */
export function checkerFor(
  unitId: UnitId,
  checkers: Readonly<Record<string, UnitCheckerName>>,
): UnitCheckerName | undefined {
  const last = unitId.slice(unitId.lastIndexOf('/') + 1);
  for (const [pattern, checker] of Object.entries(checkers)) {
    if (checkerMatcher(pattern)(pattern.includes('/') ? unitId : last)) return checker;
  }
  return undefined;
}

const matchers = new Map<string, (subject: string) => boolean>();

/** A compiled `validate.checkers` pattern, cached: planning calls it once per unit and pattern. */
function checkerMatcher(pattern: string): (subject: string) => boolean {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    matcher = picomatch(pattern, { dot: true });
    matchers.set(pattern, matcher);
  }
  return matcher;
}

/** Where `unit`'s state lives: its evaluated `remote_state`, with `aws.state_bucket` as the fallback bucket. */
export function stateLocation(unit: UnitInfo, fallbackBucket: string | undefined): StateLocation {
  const remote = unit.remoteState;
  if (!remote) return { type: 'unchecked', reason: 'no remote_state block: local state is not checked' };
  if (remote.backend !== 's3') {
    return { type: 'unchecked', reason: `remote_state backend "${remote.backend}" is not checked (only s3)` };
  }
  const bucket =
    typeof remote.config.bucket === 'string' && remote.config.bucket !== '' ? remote.config.bucket : fallbackBucket;
  const key = typeof remote.config.key === 'string' && remote.config.key !== '' ? remote.config.key : undefined;
  if (bucket === undefined) {
    return {
      type: 'unresolved',
      reason: 'remote_state has no bucket that evaluates offline, and aws.state_bucket is not set',
    };
  }
  if (key === undefined) return { type: 'unresolved', reason: 'remote_state has no key that evaluates offline' };
  const region =
    typeof remote.config.region === 'string' && remote.config.region !== '' ? remote.config.region : undefined;
  return region === undefined ? { type: 's3', bucket, key } : { type: 's3', bucket, key, region };
}

/** Options of one planned check; the defaults are no environment, no dependency, the run's timeout, not a failure. */
interface AddOptions {
  readonly env?: string;
  readonly requires?: readonly string[];
  readonly timeoutMs?: number;
  readonly timeoutIsFailure?: boolean;
}

/** The checks of a run as they are planned, and what later phases depend on: each environment's gates. */
class CheckList {
  readonly checks: PlannedCheck[] = [];
  /** Per environment: the ids of its IAM checks, which every later check of that environment requires. */
  readonly iamOf = new Map<string, string[]>();
  /** Per environment: the id of its cluster API check, when it has one. */
  readonly clusterOf = new Map<string, string>();

  constructor(private readonly timeoutMs: number) {}

  /** Adds a check and returns its id (`<check>:<target>`). */
  add(check: string, target: string, phase: CheckPhase, spec: CheckSpec, options: AddOptions = {}): string {
    const id = `${check}:${target}`;
    this.checks.push({
      id,
      check,
      target,
      phase,
      ...(options.env !== undefined ? { env: options.env } : {}),
      requires: [...(options.requires ?? [])],
      timeoutMs: options.timeoutMs ?? this.timeoutMs,
      timeoutIsFailure: options.timeoutIsFailure ?? false,
      spec,
    });
    return id;
  }

  /** The IAM checks of `env`, plus its cluster check when `withCluster`. */
  gates(env: string, withCluster: boolean): string[] {
    const cluster = withCluster ? this.clusterOf.get(env) : undefined;
    return [...(this.iamOf.get(env) ?? []), ...(cluster ? [cluster] : [])];
  }
}

/** What every phase of planning needs: the configuration, the environments in scope and their units. */
interface Scope {
  readonly config: PlatctlConfig;
  readonly allEnvs: readonly string[];
  readonly selectedEnvs: readonly string[];
  /** The selected environments' units, by environment, in id order. */
  readonly unitsByEnv: ReadonlyMap<string, readonly UnitInfo[]>;
  /** The environment of `validate.gateway` (its own `env`, or the first with a cluster). */
  readonly gatewayEnv: string | undefined;
}

/** Builds the checks of a run. */
export function planChecks(input: PlanInput): PlanResult {
  const scope = scopeOf(input);
  const list = new CheckList(input.config.validate.timeout ?? DEFAULT_CHECK_TIMEOUT_MS);
  addIamAndClusterChecks(list, scope);
  addUnitChecks(list, scope);
  addCrossChecks(list, scope);
  const ordered = list.checks.sort((a, b) => PHASE_ORDER.indexOf(a.phase) - PHASE_ORDER.indexOf(b.phase));
  const prefix = input.checkPrefix;
  if (prefix === undefined || prefix === '') return { ok: true, checks: ordered };
  return selectByPrefix(ordered, prefix);
}

function scopeOf(input: PlanInput): Scope {
  const { config } = input;
  const allEnvs = Object.keys(config.environments);
  const selectedEnvs = input.envs && input.envs.length > 0 ? allEnvs.filter((e) => input.envs?.includes(e)) : allEnvs;
  const unitsByEnv = new Map<string, UnitInfo[]>();
  for (const unit of [...input.units.values()].sort((a, b) => compareIds(a.id, b.id))) {
    if (!selectedEnvs.includes(unit.env)) continue;
    unitsByEnv.set(unit.env, [...(unitsByEnv.get(unit.env) ?? []), unit]);
  }
  const gatewayEnv = config.validate.gateway
    ? (config.validate.gateway.env ?? allEnvs.find((e) => config.environments[e]?.cluster))
    : undefined;
  return { config, allEnvs, selectedEnvs, unitsByEnv, gatewayEnv };
}

/**
 * Phase 1, per environment: credentials first; the deployer role and the state bucket only with working credentials;
 * the cluster API when a unit check or the gateway check will need it.
 */
function addIamAndClusterChecks(list: CheckList, scope: Scope): void {
  const { config } = scope;
  const needsCluster = (env: string): boolean =>
    (scope.unitsByEnv.get(env) ?? []).some((unit) => checkerFor(unit.id, config.validate.checkers)) ||
    env === scope.gatewayEnv;
  for (const env of scope.selectedEnvs) {
    const aws = config.environments[env]?.aws;
    const credentials = list.add('iam/credentials', env, 'iam', { kind: 'iam-credentials', env }, { env });
    const ids = [credentials];
    const afterCredentials = { env, requires: [credentials] };
    if (aws?.deployer_role_arn) {
      const spec = { kind: 'iam-deployer-role', env, roleArn: aws.deployer_role_arn } as const;
      ids.push(list.add('iam/deployer_role', env, 'iam', spec, afterCredentials));
    }
    if (aws?.state_bucket) {
      const spec = { kind: 'iam-state-bucket', env, bucket: aws.state_bucket } as const;
      ids.push(list.add('iam/state_bucket', env, 'iam', spec, afterCredentials));
    }
    list.iamOf.set(env, ids);
    if (needsCluster(env)) {
      // An API server that does not answer in time is down, not merely unchecked.
      const cluster = list.add(
        'cluster/api',
        env,
        'cluster',
        { kind: 'cluster-api', env },
        { env, requires: ids, timeoutIsFailure: true },
      );
      list.clusterOf.set(env, cluster);
    }
  }
}

/** Phase 2, per unit: its checker's check when `validate.checkers` names one, otherwise its Terraform state. */
function addUnitChecks(list: CheckList, scope: Scope): void {
  const { config } = scope;
  for (const env of scope.selectedEnvs) {
    const fallbackBucket = config.environments[env]?.aws?.state_bucket;
    for (const unit of scope.unitsByEnv.get(env) ?? []) {
      const checker = checkerFor(unit.id, config.validate.checkers);
      if (checker) {
        const { check, kind } = UNIT_CHECK[checker];
        list.add(check, unit.id, 'units', { kind, env, unit: unit.id }, { env, requires: list.gates(env, true) });
      } else {
        const spec = { kind: 'unit-state', env, unit: unit.id, state: stateLocation(unit, fallbackBucket) } as const;
        list.add('unit/state', unit.id, 'units', spec, { env, requires: list.gates(env, false) });
      }
    }
  }
}

/**
 * Phase 3: endpoints, DNS delegations, the gateway, each parked environment's bastion (`park.<env>.bastion`) and
 * tailscale, each after the gates of its environment.
 */
function addCrossChecks(list: CheckList, scope: Scope): void {
  const { config, selectedEnvs, gatewayEnv } = scope;
  for (const endpoint of config.validate.endpoints) {
    const spec = { kind: 'http-endpoint', url: endpoint.url, expect: endpoint.expect } as const;
    const options = {
      timeoutIsFailure: true,
      ...(endpoint.timeout === undefined ? {} : { timeoutMs: endpoint.timeout }),
    };
    list.add('http/endpoint', endpoint.url, 'cross', spec, options);
  }
  const firstAwsEnv = scope.allEnvs.find((e) => config.environments[e]?.aws);
  for (const delegation of config.validate.dns_delegation) {
    const env = delegation.env ?? firstAwsEnv;
    if (env === undefined || !selectedEnvs.includes(env)) continue;
    const spec = { kind: 'dns-delegation', env, zone: delegation.zone } as const;
    list.add('dns/delegation', delegation.zone, 'cross', spec, { env, requires: list.gates(env, false) });
  }
  const gateway = config.validate.gateway;
  if (gateway && gatewayEnv !== undefined && selectedEnvs.includes(gatewayEnv)) {
    const spec = { kind: 'gateway', env: gatewayEnv, namespace: gateway.namespace, name: gateway.name } as const;
    const options = { env: gatewayEnv, requires: list.gates(gatewayEnv, true) };
    list.add('gateway/status', `${gateway.namespace}/${gateway.name}`, 'cross', spec, options);
  }
  for (const env of selectedEnvs) {
    const bastion = config.park[env]?.bastion;
    if (!bastion) continue;
    const spec = { kind: 'bastion', env, tags: bastion.tags } as const;
    list.add('bastion/ready', env, 'cross', spec, { env, requires: list.gates(env, false) });
  }
  const tailscale = config.validate.tailscale;
  if (tailscale) {
    const spec = { kind: 'tailscale-status', binary: tailscale.binary, peers: tailscale.peers } as const;
    list.add('tailscale/status', 'local', 'cross', spec, { timeoutIsFailure: true });
    if (tailscale.url !== undefined) {
      const urlSpec = { kind: 'tailscale-url', url: tailscale.url } as const;
      list.add('tailscale/url', tailscale.url, 'cross', urlSpec, { timeoutIsFailure: true });
    }
  }
}

/** The checks whose id starts with `prefix`, plus everything they depend on (so skips still name a cause). */
function selectByPrefix(checks: readonly PlannedCheck[], prefix: string): PlanResult {
  const byId = new Map(checks.map((c) => [c.id, c]));
  const keep = new Set<string>();
  const visit = (id: string): void => {
    if (keep.has(id)) return;
    keep.add(id);
    for (const dep of byId.get(id)?.requires ?? []) visit(dep);
  };
  for (const check of checks) if (check.id.startsWith(prefix)) visit(check.id);
  if (keep.size === 0) {
    const available = [...new Set(checks.map((c) => c.check))];
    return {
      ok: false,
      reason: 'no-match',
      message: `--check ${prefix}: no check id starts with it (checks here: ${available.join(', ') || 'none'})`,
      available,
    };
  }
  return { ok: true, checks: checks.filter((c) => keep.has(c.id)) };
}
