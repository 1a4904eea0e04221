/**
 * The shapes of what `down` remembers (the park record and the step journal), apart from the code that reads,
 * checks and writes them (record.ts, record-schema.ts), so that both import these and not each other.
 */
import type { NodeGroupSize } from '../cloud/park-aws.js';
import type { KubeJson } from '../cloud/kube-writer.js';
import type { ParkOp } from '../engine/events.js';

// Defined with the park events (engine/events.ts); named here too, beside the record that stores it.
export type { ParkOp };

export interface ParkRecord {
  readonly version: 1;
  readonly env: string;
  readonly cluster: string;
  /** `parked` from the first `down` until `up` finishes; `unparked` is kept as history. */
  status: 'parked' | 'unparked';
  readonly parked_at: string;
  /** Who parked: `user@host`, and the AWS principal. */
  readonly parked_by: { readonly host: string; readonly user: string; readonly arn?: string };
  readonly node_groups: Readonly<Record<string, NodeGroupSize>>;
  readonly karpenter: { readonly nodepools: readonly KubeJson[]; readonly ec2nodeclasses: readonly KubeJson[] };
  readonly bastions: readonly { readonly id: string; readonly state: string }[];
  readonly argocd: { readonly namespace: string; readonly apps: readonly { name: string; automated: unknown }[] };
  unparked_at?: string;
  unparked_by?: { readonly host: string; readonly user: string };
}

export type StepStatus = 'pending' | 'running' | 'completed' | 'failed';

export interface StepRecord {
  status: StepStatus;
  started_at?: string;
  ended_at?: string;
  duration_ms?: number;
  detail?: string;
  reason?: string;
}

/** One `down` or `up` of one environment, step by step. */
export interface Operation {
  readonly op: ParkOp;
  readonly started_at: string;
  readonly by: { readonly host: string; readonly user: string };
  status: 'running' | 'completed' | 'failed';
  ended_at?: string;
  /** Why it stopped before its end when it lost its environment lock (state.backend s3). */
  stopped_because?: string;
  resumes: number;
  /** In the order they run. */
  readonly steps: Record<string, StepRecord>;
}

/** `.platctl-park/<env>.json`. */
export interface ParkFile {
  readonly version: 1;
  readonly env: string;
  record?: ParkRecord;
  /** Where the record is shared, if anywhere. */
  record_location?: string;
  last?: Operation;
  /** Last duration of each `<op>/<step>`, for ETAs. */
  durations_ms: Record<string, number>;
}
