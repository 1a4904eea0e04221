/**
 * The shape of `.platctl.yaml`, as a zod schema. This file is the contract every other folder reads its settings
 * through: `PlatctlConfig` is the parsed, validated and normalised form (durations in milliseconds).
 *
 * Every object is strict: an unknown key is an error (a typo such as `unit_timout` must not pass silently).
 */
import { z } from 'zod';

/** `90s`, `45m`, `1h30m`, `2h`, `500ms`; a bare number is seconds. */
const DURATION_RE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const DURATION_PART_RE = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a duration such as `1h30m` into milliseconds; undefined when it is not one. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? text * 1000 : undefined;
  const trimmed = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!DURATION_RE.test(trimmed)) return undefined;
  let total = 0;
  for (const match of trimmed.matchAll(DURATION_PART_RE)) {
    total += Number(match[1]) * (UNIT_MS[match[2] ?? 's'] ?? 0);
  }
  return total;
}

/** A duration in the file (`60m`), in milliseconds once parsed. */
export const duration = z
  .union([z.string(), z.number().nonnegative()])
  .describe('A duration: 90s, 45m, 1h30m, 500ms; a bare number is seconds')
  .transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === undefined || ms <= 0) {
      ctx.addIssue({
        code: 'custom',
        message: `"${String(value)}" is not a duration: write it like 90s, 45m or 1h30m`,
      });
      return z.NEVER;
    }
    return ms;
  });

/** A unit id: `<env>/<path inside the env dir>`. */
export const unitId = z
  .string()
  .regex(/^[^/\s]+\/[^\s]+$/, 'a unit id looks like <env>/<path inside the env dir>, e.g. platform/eks');

const envName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'an environment name: letters, digits, _ . -');

const awsSettings = z.strictObject({
  profile: z.string().min(1).optional(),
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as eu-west-1'),
  account_id: z
    .string()
    .regex(/^\d{12}$/, 'a 12-digit AWS account id, quoted so YAML keeps it a string')
    .optional(),
  deployer_role_arn: z
    .string()
    .regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/, 'an IAM role ARN')
    .optional(),
  state_bucket: z.string().min(3).optional(),
});

const clusterSettings = z.strictObject({
  name: z.string().min(1),
  /** A context of the user's kubeconfig to reach the cluster through (a proxy, tests), instead of DescribeCluster. */
  kubeconfig_context: z.string().min(1).optional(),
});

const environment = z.strictObject({
  dir: z.string().min(1),
  aws: awsSettings.optional(),
  cluster: clusterSettings.optional(),
});

const unitSettings = z.strictObject({
  teardown_skip: z.boolean().optional(),
  teardown_args: z.array(z.string()).optional(),
  apply_args: z.array(z.string()).optional(),
  timeout: duration.optional(),
});

const manualStep = z.strictObject({
  id: z.string().min(1),
  description: z.string().min(1),
  check: z.array(z.string()).min(1, 'check is a command as an argument list, e.g. ["sh", "-c", "test -n \\"$X\\""]'),
  before: z.array(unitId).optional(),
});

const hook = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('crd_two_stage'), units: z.array(unitId).min(1) }),
  z.strictObject({
    type: z.literal('eni_ip_validation'),
    units: z.array(unitId).min(1),
    min_free_ips: z.number().int().positive().default(64),
  }),
  z.strictObject({
    type: z.literal('argocd_account_token'),
    units: z.array(unitId).min(1),
    account: z.string().min(1),
    secret_id: z.string().min(1),
  }),
  z.strictObject({ type: z.literal('secret_cleanup'), units: z.array(unitId).min(1) }),
]);

const lockdownStep = z.strictObject({
  id: z.string().min(1),
  unit: unitId,
  lock_args: z.array(z.string()).optional(),
  unlock_args: z.array(z.string()).optional(),
});

const lockdown = z.strictObject({
  env: envName,
  retry: z
    .strictObject({
      attempts: z.number().int().positive().default(1),
      interval: duration.default(30),
    })
    .optional(),
  steps: z.array(lockdownStep).default([]),
});

const validateSettings = z.strictObject({
  checkers: z
    .record(z.string().min(1), z.enum(['eks_cluster', 'cilium_agent', 'argocd_apps']))
    .default({ eks: 'eks_cluster', cilium: 'cilium_agent', argocd: 'argocd_apps' }),
  endpoints: z
    .array(
      z.strictObject({
        url: z.url(),
        expect: z.array(z.number().int().min(100).max(599)).min(1).default([200]),
        timeout: duration.optional(),
      }),
    )
    .default([]),
  dns_delegation: z
    .array(
      z.strictObject({
        zone: z.string().min(1),
        env: envName.optional(),
      }),
    )
    .default([]),
  gateway: z
    .strictObject({
      namespace: z.string().min(1),
      name: z.string().min(1),
      env: envName.optional(),
    })
    .optional(),
  tailscale: z
    .strictObject({
      url: z.url().optional(),
      binary: z.string().min(1).default('tailscale'),
      peers: z.array(z.string().min(1)).default([]),
    })
    .optional(),
  timeout: duration.optional(),
});

const parkEnv = z.strictObject({
  node_groups: z.union([z.literal('all'), z.array(z.string().min(1))]).default('all'),
  bastion: z.strictObject({ tags: z.record(z.string(), z.string()) }).optional(),
  karpenter: z
    .strictObject({
      nodepools: z.array(z.string().min(1)).default([]),
      ec2nodeclasses: z.array(z.string().min(1)).default([]),
    })
    .optional(),
  drain_grace: duration.optional(),
  db_clients: z
    .array(z.strictObject({ namespace: z.string(), deployment: z.string(), database: z.string() }))
    .default([]),
});

const accessEnv = z.strictObject({
  principals: z.array(
    z.strictObject({
      arn: z.string().regex(/^arn:aws[a-z-]*:iam::\d{12}:.+$/, 'an IAM principal ARN'),
      policy: z.string().min(1),
    }),
  ),
});

export const configSchema = z.strictObject({
  version: z.literal(1),
  terragrunt: z
    .strictObject({
      binary: z.string().min(1).default('terragrunt'),
      tf_path: z.string().min(1).default('tofu'),
      extra_args: z.array(z.string()).default([]),
      env: z.record(z.string(), z.string()).default({}),
    })
    .default({ binary: 'terragrunt', tf_path: 'tofu', extra_args: [], env: {} }),
  parallelism: z
    .strictObject({
      apply: z.number().int().positive().default(4),
      validate: z.number().int().positive().default(8),
    })
    .default({ apply: 4, validate: 8 }),
  unit_timeout: duration.default(3600),
  environments: z
    .record(envName, environment)
    .refine((envs) => Object.keys(envs).length > 0, 'declare at least one environment'),
  exclude: z.array(z.string().min(1)).default([]),
  implicit_deps: z.record(unitId, z.array(unitId)).default({}),
  units: z.record(unitId, unitSettings).default({}),
  manual_steps: z.array(manualStep).default([]),
  hooks: z.array(hook).default([]),
  lockdown: lockdown.optional(),
  validate: validateSettings.default({
    checkers: { eks: 'eks_cluster', cilium: 'cilium_agent', argocd: 'argocd_apps' },
    endpoints: [],
    dns_delegation: [],
  }),
  park: z.record(envName, parkEnv).default({}),
  access: z.record(envName, accessEnv).default({}),
});

/** The validated configuration; durations are milliseconds. */
export type PlatctlConfig = z.output<typeof configSchema>;
export type EnvironmentConfig = PlatctlConfig['environments'][string];
export type UnitSettings = PlatctlConfig['units'][string];
export type HookConfig = PlatctlConfig['hooks'][number];
export type ValidateConfig = PlatctlConfig['validate'];
export type ParkConfig = PlatctlConfig['park'][string];
