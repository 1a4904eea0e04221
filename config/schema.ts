/**
 * The shape of `.platctl.yaml`, as a zod schema. This file is the contract every other folder reads its settings
 * through: `PlatctlConfig` is the parsed, validated and normalised form (durations in milliseconds).
 *
 * Every object is strict: an unknown key is an error (a typo such as `unit_timout` must not pass silently).
 */
import * as z from './zod.js';

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

/** A duration's allowed range: the shortest and longest value that makes sense for its key, written as in the file. */
export interface DurationBounds {
  /** The key's name, for the message (`unit_timeout`, `timeout`). */
  readonly key: string;
  readonly min: string;
  readonly max: string;
}

/**
 * A duration in the file (`60m`), in milliseconds once parsed, between the key's bounds. Every duration is bounded:
 * past 2^31-1 ms (24.8 days) Node fires a timer at once, so a 600h timeout would end every unit immediately; and
 * a heartbeat of a millisecond is a tight loop of writes.
 */
export function duration(bounds: DurationBounds) {
  const min = parseDuration(bounds.min) ?? 0;
  const max = parseDuration(bounds.max) ?? 0;
  const range = `${bounds.min} to ${bounds.max}`;
  return z
    .union([z.string(), z.number().nonnegative()])
    .describe(`A duration from ${range}: 90s, 45m, 1h30m, 500ms; a bare number is seconds`)
    .transform((value, ctx) => {
      const ms = parseDuration(value);
      const written = typeof value === 'string' ? value.trim() : String(value);
      if (ms === undefined || ms <= 0) {
        ctx.addIssue({
          code: 'custom',
          message: `"${String(value)}" is not a duration: write it like 90s, 45m or 1h30m`,
        });
        return z.NEVER;
      }
      if (ms > max || ms < min) {
        ctx.addIssue({
          code: 'custom',
          message: `${written} is ${ms > max ? 'longer' : 'shorter'} than ${bounds.key} allows: ${range}`,
        });
        return z.NEVER;
      }
      return ms;
    });
}

/** A unit id: `<env>/<path inside the env dir>`. */
export const unitId = z
  .string()
  .regex(/^[^/\s]+\/[^\s]+$/, { message: 'a unit id: <env>/<path inside the env dir>, e.g. platform/eks', abort: true })
  // Normalised, so an id is a path inside its environment and nothing else: `platform/../../outside` would run
  // terragrunt outside the repository, and `platform/./eks` is a second spelling of a unit.
  .regex(
    /^(?![^/]*\/\.\.?(?:\/|$))(?!.*\/\.\.?(?:\/|$))(?!.*\/\/)(?!.*\/$)[^\\]*$/,
    'a normalised unit id: <env>/<path inside the env dir> without ".", ".." or empty parts, trailing slashes or backslashes',
  );

const envName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'an environment name (letters, digits, _ . -)');

const awsSettings = z.strictObject({
  profile: z.string().min(1).describe('The AWS profile (~/.aws/config) used for this environment').optional(),
  region: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as eu-west-1')
    .describe('The AWS region'),
  account_id: z
    .string()
    .regex(/^\d{12}$/, 'a 12-digit AWS account id, quoted so YAML keeps it a string')
    .describe('The only account platctl may act on with this environment (preflight refuses any other)')
    .optional(),
  deployer_role_arn: z
    .string()
    .regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/, 'an IAM role ARN')
    .describe('The role the deployer profile assumes')
    .optional(),
  state_bucket: z.string().min(3).describe('The S3 bucket holding Terraform state').optional(),
});

const clusterSettings = z.strictObject({
  name: z.string().min(1).describe('The EKS cluster name'),
  /** A context of the user's kubeconfig to reach the cluster through (a proxy, tests), instead of DescribeCluster. */
  kubeconfig_context: z
    .string()
    .min(1)
    .describe('A kubeconfig context to reach the cluster through, instead of DescribeCluster')
    .optional(),
});

const environment = z.strictObject({
  dir: z
    .string()
    .min(1)
    .describe('The directory scanned for units, relative to the repository root; unit ids are <env>/<path inside dir>'),
  aws: awsSettings.describe('AWS account and credentials of this environment').optional(),
  cluster: clusterSettings.describe('The Kubernetes cluster of this environment').optional(),
});

/** A unit's time limit: a terragrunt run of more than a day is a hung one. */
const UNIT_TIMEOUT = (key: string): DurationBounds => ({ key, min: '1s', max: '24h' });

const unitSettings = z.strictObject({
  teardown_skip: z
    .boolean()
    .describe('The floor: teardown never destroys this unit, nor anything it depends on')
    .optional(),
  teardown_args: z.array(z.string()).describe("Extra arguments for this unit's destroy").optional(),
  apply_args: z.array(z.string()).describe("Extra arguments for this unit's apply").optional(),
  timeout: duration(UNIT_TIMEOUT('timeout')).describe("This unit's timeout, instead of unit_timeout").optional(),
});

/** An SSM Parameter Store name: `/a/b/c` (a hierarchy starts with `/`) or a flat `name`; letters, digits, `_.-`. */
const SSM_PARAMETER_NAME_RE = /^(?:(?:\/[A-Za-z0-9_.-]+)+|[A-Za-z0-9_.-]+)$/;

const ssmParameterCheck = z.strictObject({
  ssm_parameter: z
    .string()
    .regex(SSM_PARAMETER_NAME_RE, 'an SSM parameter name such as /platform/tailscale/authkey')
    .describe('The SSM parameter that must exist and hold a real value (not a placeholder)'),
  env: envName
    .describe(
      "The environment whose AWS account, region and profile hold the parameter (default: the environment of the step's before units, or the only environment)",
    )
    .optional(),
});

const manualStep = z.strictObject({
  id: z.string().min(1).describe('A short name, unique among manual_steps'),
  description: z.string().min(1).describe('What a person has to do, shown when the check fails'),
  check: z
    .union([
      z
        .array(z.string())
        .min(1, 'check is a command as an argument list, e.g. ["sh", "-c", "test -n \\"$X\\""]')
        .describe('A command (argument list, no shell) that exits 0 when the step is done'),
      ssmParameterCheck.describe('An SSM parameter that must exist and hold a real value'),
    ])
    .describe(
      'How to tell the step is done: a command (argument list, no shell) that exits 0, or {ssm_parameter: NAME}; without one, a person confirms it',
    )
    .optional(),
  // prefault, not default: the default goes through the transform, so it is 30 s and not 30 ms.
  check_timeout: duration({ key: 'check_timeout', min: '1s', max: '1h' })
    .prefault('30s')
    .describe('How long the check may run before it counts as failed'),
  before: z.array(unitId).describe('The units that need this step; every unit when omitted').optional(),
});

/** A unit id, or a glob over unit ids (`*` within a path part, `**` across parts): `optional` takes these. */
export const unitPattern = z.string().regex(/^[^/\s]+\/[^\s]+$/, {
  message: 'a unit id or glob: <env>/<path inside the env dir>, e.g. platform/grafana*',
});

const hookUnits = z.array(unitId).min(1).describe('The units the hook runs for');

const subnetSelector = z
  .strictObject({
    ids: z.array(z.string().regex(/^subnet-[0-9a-f]+$/, 'a subnet id such as subnet-0abc123')).default([]),
    tags: z
      .record(z.string().min(1), z.string())
      .default({})
      .describe('Tags every selected subnet carries; a value may use * and ? wildcards'),
  })
  .refine((s) => s.ids.length > 0 || Object.keys(s.tags).length > 0, 'name subnet ids, tags, or both')
  .describe('The subnets checked: by id, by tags, or both (their union)');

const secretNames = z.array(z.string().min(1));

const hook = z.discriminatedUnion('type', [
  z
    .strictObject({
      type: z.literal('crd_two_stage'),
      units: hookUnits,
      targets: z
        .array(z.string().min(1))
        .min(1, 'list the resource addresses of the CRDs, e.g. ["helm_release.crds"]')
        .describe('Resource addresses applied first, each as -target=<address>'),
    })
    .describe('Apply with -target on the CRDs first, then the whole unit'),
  z
    .strictObject({
      type: z.literal('eni_ip_validation'),
      units: hookUnits,
      min_free_ips: z.number().int().positive().default(64).describe('Free IPs each subnet needs'),
      subnets: subnetSelector,
    })
    .describe('Before the unit: enough free IPs in its subnets'),
  z
    .strictObject({
      type: z.literal('argocd_account_token'),
      units: hookUnits,
      account: z.string().min(1).describe('The Argo CD account'),
      secret_id: z.string().min(1).describe('The Secrets Manager secret receiving the token (name or ARN)'),
      server: z.url().describe('The Argo CD API server, e.g. https://argocd.platform.example.com'),
      namespace: z.string().min(1).default('argocd').describe("Argo CD's Kubernetes namespace"),
      admin_secret: z
        .string()
        .min(1)
        .default('argocd-initial-admin-secret')
        .describe("The Kubernetes secret holding the admin password (key 'password')"),
    })
    .describe("After the unit: re-mint an Argo CD account's token into a secret"),
  z
    .strictObject({
      type: z.literal('secret_cleanup'),
      units: hookUnits,
      names: secretNames.default([]).describe('Exact secret names the unit creates'),
      prefixes: secretNames.default([]).describe('Name prefixes of the secrets the unit creates'),
      // prefault, not default: the default goes through the transform, so it is 2 min and not 2 ms.
      timeout: duration({ key: 'timeout', min: '1s', max: '1h' })
        .prefault('2m')
        .describe('How long to wait for a force-deleted name to become free'),
    })
    .refine((h) => h.names.length > 0 || h.prefixes.length > 0, 'name the secrets: names, prefixes, or both')
    .describe('Before the unit: force-delete secrets pending deletion that it is about to create'),
]);

const lockdownStep = z.strictObject({
  id: z.string().min(1).describe('A short name, unique among the steps'),
  unit: unitId.describe('The unit re-applied with lock_args (and with unlock_args before teardown)'),
  lock_args: z.array(z.string()).describe('Extra arguments of the locking apply').optional(),
  unlock_args: z.array(z.string()).describe('Extra arguments of the unlocking apply').optional(),
});

const lockdown = z.strictObject({
  env: envName.describe('The environment being locked down; must be declared under environments'),
  retry: z
    .strictObject({
      attempts: z.number().int().positive().default(1).describe('How many times a step is tried'),
      // prefault, not default: the default goes through the transform, so it is 30 s and not 30 ms.
      interval: duration({ key: 'interval', min: '100ms', max: '1h' })
        .prefault('30s')
        .describe('The wait between attempts'),
    })
    .describe('Retries of each lockdown step')
    .optional(),
  steps: z.array(lockdownStep).default([]).describe('Applied in order after bootstrap; unlocked in reverse'),
});

const rollout = z.strictObject({
  namespace: z.string().min(1).describe("The workload's namespace"),
  kind: z.enum(['deployment', 'statefulset']).default('deployment').describe('deployment or statefulset'),
  name: z.string().min(1).describe("The workload's name"),
});

/** The kinds of convergence wait; a wait names exactly one. */
export const CONVERGE_KINDS = ['argocd_apps', 'crds', 'workloads', 'http', 'output'] as const;

const convergeWait = z
  .strictObject({
    id: z.string().min(1).describe('A short name, unique among the waits (recorded in the run state, for --resume)'),
    after: z
      .array(unitId)
      .default([])
      .describe(
        'The units that produce what this waits for: it runs only when the run applied every one of them (none: only after a bootstrap of every unit)',
      ),
    env: envName
      .describe("The environment whose cluster is read (default: the environment of the first 'after' unit)")
      .optional(),
    timeout: duration({ key: 'timeout', min: '1s', max: '6h' })
      .describe('How long to wait before the run fails (default: 30m for argocd_apps, 10m otherwise)')
      .optional(),
    argocd_apps: z
      .strictObject({
        namespace: z.string().min(1).default('argocd').describe('The namespace of the Applications'),
        selector: z.string().min(1).describe('A label selector (app.kubernetes.io/part-of=platform)').optional(),
        project: z.string().min(1).describe('Only the Applications of this Argo CD project').optional(),
      })
      .describe('Every Argo CD Application (or those the selector/project pick) Synced and Healthy')
      .optional(),
    crds: z
      .array(z.string().min(1))
      .min(1)
      .describe('CustomResourceDefinitions by name (applications.argoproj.io) that must be Established')
      .optional(),
    workloads: z
      .array(rollout)
      .min(1)
      .describe('Deployments/StatefulSets that must be Available (ready replicas = desired)')
      .optional(),
    http: z
      .strictObject({
        url: z.url().describe('The URL to GET (redirects are not followed)'),
        expect: z
          .array(z.number().int().min(100).max(599))
          .min(1)
          .default([200, 302])
          .describe('The HTTP statuses that count as ready'),
      })
      .describe('An HTTP endpoint that must answer')
      .optional(),
    output: z
      .strictObject({
        unit: unitId.describe('The unit whose output is read (terragrunt output -json)'),
        name: z.string().min(1).describe('The output'),
        equals: z
          .union([z.string(), z.number(), z.boolean()])
          .describe('The value it must have (a string, number or boolean); without it, the output must be set')
          .optional(),
      })
      .describe("A unit's Terraform output that must be set (and equal a value)")
      .optional(),
  })
  .refine((wait) => CONVERGE_KINDS.filter((kind) => wait[kind] !== undefined).length === 1, {
    message: `name exactly one thing to wait for: ${CONVERGE_KINDS.join(', ')}`,
  });

const converge = z.strictObject({
  // prefault, not default: the default goes through the transform, so it is 10 s and not 10 ms.
  interval: duration({ key: 'interval', min: '1s', max: '5m' })
    .prefault('10s')
    .describe('The time between two looks of a wait'),
  waits: z
    .array(convergeWait)
    .default([])
    .describe('Checked in order after bootstrap applied the units, before lockdown'),
});

const validateSettings = z.strictObject({
  checkers: z
    .record(z.string().min(1), z.enum(['eks_cluster', 'cilium_agent', 'argocd_apps']))
    .default({ eks: 'eks_cluster', cilium: 'cilium_agent', argocd: 'argocd_apps' })
    .describe(
      "Pattern -> checker. A pattern without '/' matches the whole last element of a unit's path, one with '/' the whole unit id; globs allowed; the first match in file order wins",
    ),
  endpoints: z
    .array(
      z.strictObject({
        url: z.url().describe('The URL to GET'),
        expect: z
          .array(z.number().int().min(100).max(599))
          .min(1)
          .default([200])
          .describe('The HTTP statuses that count as healthy'),
        timeout: duration({ key: 'timeout', min: '100ms', max: '10m' }).describe('The request timeout').optional(),
      }),
    )
    .default([])
    .describe('HTTP endpoints that must answer'),
  dns_delegation: z
    .array(
      z.strictObject({
        zone: z.string().min(1).describe('The hosted zone whose NS delegation is checked'),
        env: envName.describe('The environment whose AWS account holds the zone').optional(),
      }),
    )
    .default([])
    .describe('DNS zones whose delegation must match their Route 53 name servers'),
  gateway: z
    .strictObject({
      namespace: z.string().min(1).describe("The Gateway's namespace"),
      name: z.string().min(1).describe("The Gateway's name"),
      env: envName.describe('The environment whose cluster runs it').optional(),
    })
    .describe('A Gateway API gateway that must be programmed')
    .optional(),
  tailscale: z
    .strictObject({
      url: z.url().describe('A health URL reached over the tailnet').optional(),
      binary: z.string().min(1).default('tailscale').describe('The tailscale CLI'),
      peers: z.array(z.string().min(1)).default([]).describe('Peers that must be online'),
    })
    .describe('Tailscale connectivity checks')
    .optional(),
  timeout: duration({ key: 'timeout', min: '100ms', max: '1h' }).describe('The timeout of each check').optional(),
});

const namesOrAll = (what: string) =>
  z
    .union([z.literal('all'), z.array(z.string().min(1))])
    .default('all')
    .describe(`${what}: all, or a list of names`);

const parkEnv = z.strictObject({
  node_groups: namesOrAll('The EKS managed node groups scaled to zero'),
  node_group_units: z
    .array(unitId)
    .default([])
    .describe(
      'Units re-applied on up (terragrunt apply) to bring the node groups back, instead of UpdateNodegroupConfig from the record',
    ),
  bastion: z
    .strictObject({ tags: z.record(z.string(), z.string()).describe('Tags that find the instance') })
    .describe('A bastion EC2 instance stopped on down and started on up')
    .optional(),
  // prefault, not default: the default goes through the transform, so it is 5 min and not 300 ms.
  // At most an hour: an agent not Online within an hour will not come by waiting.
  bastion_ready_timeout: duration({ key: 'bastion_ready_timeout', min: '1s', max: '1h' })
    .prefault('5m')
    .describe("How long up waits for the bastion's SSM agent to report Online once it runs (at most 1h)"),
  karpenter: z
    .strictObject({
      nodepools: namesOrAll('Karpenter NodePools deleted on down and recreated on up'),
      ec2nodeclasses: namesOrAll('Karpenter EC2NodeClasses deleted on down and recreated on up'),
      nodeclaim_timeout: duration({ key: 'nodeclaim_timeout', min: '1s', max: '2h' })
        .prefault('10m')
        .describe('How long down waits for the NodeClaims to go once the NodePools are deleted'),
      deployment: z
        .strictObject({
          namespace: z.string().min(1).describe("The Karpenter controller's namespace"),
          name: z.string().min(1).describe("The Karpenter controller's deployment"),
        })
        .describe('The Karpenter controller, which must be available before up recreates NodePools')
        .optional(),
      unit: unitId
        .describe(
          'The unit re-applied on up to recreate the NodePools and EC2NodeClasses, instead of creating them from the record',
        )
        .optional(),
      replace: z
        .array(z.string().min(1))
        .default([])
        .describe('Resource addresses passed as -replace=<address> when up re-applies unit'),
    })
    .refine((k) => k.replace.length === 0 || k.unit !== undefined, {
      message: 'replace needs unit: the addresses are replaced when up re-applies that unit',
      path: ['replace'],
    })
    .describe('Karpenter capacity to park')
    .optional(),
  // prefault, not default: the default goes through the transform, so it is 2 min and not 120 ms.
  drain_grace: duration({ key: 'drain_grace', min: '1s', max: '1h' })
    .prefault('2m')
    .describe('How long evictions are retried (a PodDisruptionBudget may refuse them) before the pods are deleted'),
  argocd: z
    .strictObject({
      namespace: z.string().min(1).default('argocd').describe("The Argo CD Applications' namespace"),
      apps: z
        .array(z.string().min(1))
        .min(1)
        .describe('Applications whose automated sync is paused on down (those owning the Karpenter objects)'),
    })
    .describe('Argo CD applications paused on down and resumed on up')
    .optional(),
  kyverno: z
    .strictObject({ namespace: z.string().min(1).describe("Kyverno's namespace") })
    .describe('Kyverno, recovered on up when its fail-closed webhook has no ready pod behind it')
    .optional(),
  reconnect_units: z
    .array(unitId)
    .default([])
    .describe('Units re-applied on up once the cluster is back, before the rollouts (e.g. cross-VPC DNS)'),
  rollouts: z
    .array(rollout)
    .default([])
    .describe('Workloads restarted on up once the nodes are back (e.g. the Argo CD application controller)'),
  db_clients: z
    .array(
      z.strictObject({
        namespace: z.string().describe("The deployment's namespace"),
        deployment: z.string().describe('The deployment restarted on up'),
        database: z.string().describe('The CloudNativePG cluster it connects to (in the same namespace)'),
      }),
    )
    .default([])
    .describe('Deployments restarted on up when they started before their CloudNativePG database'),
  db_clients_timeout: duration({ key: 'db_clients_timeout', min: '1s', max: '2h' })
    .prefault('12m')
    .describe('How long up waits for the CloudNativePG databases and their clients'),
  ready_namespaces: z
    .array(z.string().min(1))
    .default([])
    .describe('Namespaces whose pods must all be ready before up reports success'),
  ready_timeout: duration({ key: 'ready_timeout', min: '1s', max: '2h' })
    .prefault('15m')
    .describe('How long up waits for each readiness: the cluster API, Karpenter, Kyverno, the pods'),
  preflight_envs: z
    .array(envName)
    .default([])
    .describe('Other environments whose credentials are checked too (a DNS or network account up needs)'),
});

const accessEnv = z.strictObject({
  principals: z
    .array(
      z.strictObject({
        arn: z
          .string()
          .regex(/^arn:aws[a-z-]*:iam::\d{12}:.+$/, 'an IAM principal ARN')
          .describe('The IAM role or user given cluster access'),
        policy: z.string().min(1).describe('The EKS access policy, e.g. AmazonEKSClusterAdminPolicy'),
      }),
    )
    .describe('EKS access entries'),
});

const region = z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as eu-west-1');

/** Where the run lock, run state and history live (docs/state.md). `local` is the repository's own files. */
const stateSettings = z
  .strictObject({
    backend: z
      .enum(['local', 's3'])
      .default('local')
      .describe('local: lock and state are files in this checkout; s3: shared by every runner through a bucket'),
    bucket: z.string().min(3).describe('With backend s3: the bucket (the Terraform state bucket will do)').optional(),
    key_prefix: z
      .string()
      .regex(/^[^/].*[^/]$|^[^/]$/, 'a key prefix without a leading or trailing slash, e.g. platctl')
      .default('platctl')
      .describe('Every object platctl writes lives under <key_prefix>/ in the bucket'),
    profile: z.string().min(1).describe('The AWS profile used for the bucket (default: the usual chain)').optional(),
    region: region.describe("The bucket's region (default: AWS_REGION)").optional(),
    // prefault, not default: the default goes through the transform, so it is 30 s and not 30 ms.
    heartbeat: duration({ key: 'heartbeat', min: '200ms', max: '5m' })
      .prefault('30s')
      .describe('How often a run renews its environment locks; a lock not renewed for 3 of these is stale'),
  })
  .refine((s) => s.backend === 'local' || s.bucket !== undefined, {
    message: 'backend s3 needs a bucket',
    path: ['bucket'],
  });

export const configSchema = z
  .strictObject({
    version: z.literal(1).describe('The file format version; always 1'),
    // prefault({}) rather than default({...}): the inner defaults fill the object, so each default is written once.
    terragrunt: z
      .strictObject({
        binary: z
          .string()
          .min(1)
          .default('terragrunt')
          .describe('The terragrunt executable (PLATCTL_TERRAGRUNT overrides)'),
        tf_path: z
          .string()
          .min(1)
          .default('tofu')
          .describe('Passed as --tf-path: tofu or terraform (PLATCTL_TF_PATH overrides)'),
        extra_args: z.array(z.string()).default([]).describe('Extra terragrunt arguments for every unit'),
        env: z.record(z.string(), z.string()).default({}).describe('Extra environment variables for every unit run'),
      })
      .prefault({})
      .describe('How terragrunt is run'),
    parallelism: z
      .strictObject({
        apply: z.number().int().positive().default(4).describe('Units applied or destroyed at once'),
        validate: z.number().int().positive().default(8).describe('Health checks run at once'),
      })
      .prefault({})
      .describe('Concurrency limits'),
    // prefault, not default: the default goes through the transform, so it is 60 min and not 3600 ms.
    unit_timeout: duration(UNIT_TIMEOUT('unit_timeout'))
      .prefault('60m')
      .describe('The default time limit of one unit; past it the unit gets SIGINT, then SIGKILL'),
    environments: z
      .record(envName, environment)
      .refine((envs) => Object.keys(envs).length > 0, 'declare at least one environment')
      .describe("The environments, by name; each one's dir is scanned for units"),
    exclude: z
      .array(z.string().min(1))
      .default([])
      .describe('Globs, relative to the repository root, never discovered'),
    implicit_deps: z
      .record(unitId, z.array(unitId))
      .default({})
      .describe('Extra edges the HCL cannot express: unit id -> the unit ids it depends on'),
    units: z.record(unitId, unitSettings).default({}).describe('Per-unit settings, by unit id'),
    optional: z
      .array(unitPattern)
      .default([])
      .describe(
        "Units (ids or globs such as 'platform/grafana*') whose failure skips only their own dependents: the rest of the run goes on, and the run still ends non-zero naming them",
      ),
    rollback: z
      .enum(['never', 'on_failure'])
      .default('never')
      .describe(
        "on_failure: when a unit's apply fails, bootstrap destroys (in reverse order) exactly the units this run applied for the first time, the failed one included (--no-rollback overrides)",
      ),
    manual_steps: z.array(manualStep).default([]).describe('Things a person must do, checked before bootstrap'),
    hooks: z.array(hook).default([]).describe('Named hooks run around units'),
    recover: z
      .array(z.enum(['helm-pending']))
      .max(1)
      .default([])
      .describe(
        'Recoveries bootstrap runs by itself when a unit fails (helm-pending: delete the Secret of a Helm release revision stuck pending-*, then apply the unit once more)',
      ),
    converge: converge
      .describe(
        'The phase after bootstrap applied the units and before lockdown: bounded waits until the platform settles',
      )
      .optional(),
    lockdown: lockdown
      .describe('The phase after bootstrap that closes the platform; unlocked before teardown')
      .optional(),
    validate: validateSettings.prefault({}).describe('Health checks of platctl validate'),
    park: z.record(envName, parkEnv).default({}).describe('What platctl down/up parks, by environment'),
    access: z.record(envName, accessEnv).default({}).describe('Cluster access for people, by environment'),
    state: stateSettings
      .prefault({})
      .describe('Where the run lock, run state and history live: this checkout (local) or an S3 bucket (s3)'),
  })
  .describe('platctl configuration (.platctl.yaml)');

/** The validated configuration; durations are milliseconds. */
export type PlatctlConfig = z.output<typeof configSchema>;
export type EnvironmentConfig = PlatctlConfig['environments'][string];
export type UnitSettings = PlatctlConfig['units'][string];
export type HookConfig = PlatctlConfig['hooks'][number];
export type ValidateConfig = PlatctlConfig['validate'];
export type ParkConfig = PlatctlConfig['park'][string];
export type ManualStepCheck = NonNullable<PlatctlConfig['manual_steps'][number]['check']>;
export type StateConfig = PlatctlConfig['state'];
export type ConvergeConfig = NonNullable<PlatctlConfig['converge']>;
export type ConvergeWait = ConvergeConfig['waits'][number];

/**
 * The JSON Schema of the file as written (the input side: durations are strings or seconds, defaults are the
 * written forms), for editors (`# yaml-language-server: $schema=...`) and `platctl config schema`.
 */
export function configJsonSchema(): Record<string, unknown> {
  return { title: '.platctl.yaml', ...z.toJSONSchema(configSchema, { io: 'input' }) };
}
