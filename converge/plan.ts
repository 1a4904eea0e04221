/**
 * Which convergence waits a run performs, and what each one is, from `converge:` in `.platctl.yaml` (pure). A wait
 * is bound to the units that produce what it waits for (`after:`): it runs only when this run applied every one of
 * them, so a bootstrap of a few units waits only for what it applied. A wait without `after` is about the whole
 * platform: it runs only after a bootstrap of every unit. A wait a resumed run already passed is not run again.
 */
import type { ConvergeConfig, ConvergeWait } from '../config/schema.js';
import type { UnitId } from '../engine/graph.js';
import type { ConvergeWaitRecord } from '../engine/state.js';
import type { UnitStatus } from '../engine/unit-status.js';

/** The default bound of an Argo CD wait: an app of apps takes long to settle. */
export const ARGOCD_TIMEOUT_MS = 30 * 60_000;
/** The default bound of every other wait. */
export const DEFAULT_TIMEOUT_MS = 10 * 60_000;

export interface PlannedWait {
  readonly id: string;
  readonly wait: ConvergeWait;
  /** The environment whose cluster it reads; undefined for an HTTP wait. */
  readonly env: string | undefined;
  readonly timeoutMs: number;
  /** One line: what it waits for. */
  readonly what: string;
  /**
   * `run`: it is looked at; `passed`: a resumed run already saw it ready; `not-applied`: some of its `after` units
   * are not applied by this run (`reason` says which).
   */
  readonly decision: 'run' | 'passed' | 'not-applied';
  readonly reason?: string;
}

export interface WaitPlanInput {
  readonly converge: ConvergeConfig | undefined;
  /** The declared environments' names. */
  readonly environments: readonly string[];
  /** A unit's status in the run (undefined: outside the selection). */
  readonly unitStatus: (unit: UnitId) => UnitStatus | undefined;
  /** The run covers only part of the units. */
  readonly partial: boolean;
  /** What an earlier attempt of this run recorded, by wait id (`--resume`). */
  readonly earlier?: Readonly<Record<string, ConvergeWaitRecord>>;
}

/** Every configured wait, in file order, with whether this run looks at it. */
export function planWaits(input: WaitPlanInput): PlannedWait[] {
  const waits = input.converge?.waits ?? [];
  return waits.map((wait) => {
    const base = {
      id: wait.id,
      wait,
      env: waitEnv(wait, input.environments),
      timeoutMs: wait.timeout ?? (wait.argocd_apps ? ARGOCD_TIMEOUT_MS : DEFAULT_TIMEOUT_MS),
      what: describeWait(wait),
    };
    const missing = wait.after.filter((unit) => !applied(input.unitStatus(unit)));
    if (wait.after.length === 0 && input.partial) {
      return {
        ...base,
        decision: 'not-applied',
        reason: 'it has no after units and this run covers only part of them',
      };
    }
    if (missing.length > 0) {
      const outside = missing.filter((unit) => input.unitStatus(unit) === undefined);
      const reason =
        outside.length === missing.length
          ? `not in this run: ${missing.join(', ')}`
          : `not applied by this run: ${missing.map((unit) => `${unit} (${input.unitStatus(unit) ?? 'not selected'})`).join(', ')}`;
      return { ...base, decision: 'not-applied', reason };
    }
    if (input.earlier?.[wait.id]?.status === 'passed') return { ...base, decision: 'passed' };
    return { ...base, decision: 'run' };
  });
}

/** Completed by the walk (now or in the run resumed), or left out by an exclude block (treated as applied). */
function applied(status: UnitStatus | undefined): boolean {
  return status === 'completed' || status === 'excluded';
}

/** The environment of a wait: `env`, the environment of its first `after` unit, or the only one declared. */
export function waitEnv(wait: ConvergeWait, environments: readonly string[]): string | undefined {
  if (wait.http || wait.output) return undefined;
  if (wait.env !== undefined) return wait.env;
  const first = wait.after[0];
  if (first !== undefined) return first.slice(0, first.indexOf('/'));
  return environments.length === 1 ? environments[0] : undefined;
}

/** One line saying what a wait waits for. */
export function describeWait(wait: ConvergeWait): string {
  if (wait.argocd_apps) {
    const { namespace, selector, project } = wait.argocd_apps;
    const which = [selector && `selector ${selector}`, project && `project ${project}`].filter((x) => x).join(', ');
    return `Argo CD Applications in ${namespace}${which ? ` (${which})` : ''} Synced and Healthy`;
  }
  if (wait.crds) return `CRDs Established: ${wait.crds.join(', ')}`;
  if (wait.workloads) {
    const names = wait.workloads.map(
      (w) => `${w.kind === 'deployment' ? 'Deployment' : 'StatefulSet'} ${w.namespace}/${w.name}`,
    );
    return `Available: ${names.join(', ')}`;
  }
  if (wait.http) return `${wait.http.url} answers ${wait.http.expect.join(' or ')}`;
  if (wait.output) {
    const { unit, name, equals } = wait.output;
    return `output ${name} of ${unit} ${equals === undefined ? 'set' : `is ${JSON.stringify(equals)}`}`;
  }
  return 'nothing';
}
