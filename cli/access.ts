/**
 * `platctl access`: reconcile each environment's EKS access entries with `access.<env>.principals`. Missing
 * entries are created (tagged as platctl's) and their policy associated with cluster scope; `--prune` removes
 * entries platctl made that the configuration no longer lists, and policies config no longer gives them; `--dry-run`
 * prints the changes without making them. `platctl access list` shows what the clusters have.
 *
 * Entries platctl did not make (EKS's own for nodes, the cluster creator's, anyone's by hand) are never deleted and
 * never lose a policy: platctl only adds the configured policy to them.
 */
import type { AccessChange, DesiredAccess } from '../cloud/access-plan.js';
import { applyChange, describeChange, isManaged, planAccess, policyArnFor, policyName } from '../cloud/access-plan.js';
import type { AccessEntry, EksAccess } from '../cloud/eks-access.js';
import type { PlatctlConfig } from '../config/schema.js';
import { loadCheckedConfig } from './project.js';
import type { CliIo } from './verb.js';
import { EXIT, defineVerb } from './verb.js';
import { ACCESS_GRAMMAR } from './commands/access.js';

/** How long the preflight asks the credentials to last: reconciling a cluster takes seconds. */
const PREFLIGHT_BUDGET_MS = 5 * 60_000;

export interface AccessArgs {
  action?: 'reconcile' | 'list' | undefined;
  prune?: boolean | undefined;
  'dry-run'?: boolean | undefined;
}

/** An environment the command works on, with its cluster client. */
interface Target {
  readonly env: string;
  readonly eks: EksAccess;
  readonly desired: DesiredAccess[];
}

type Prepared = { ok: true; targets: Target[] } | { ok: false; exitCode: number };

/** Checks the whole command before any call: environments, clusters, AWS settings; then the credentials. */
async function prepare(
  args: AccessArgs & { env?: string[] | undefined },
  config: PlatctlConfig,
  io: CliIo,
): Promise<Prepared> {
  const list = args.action === 'list';
  const named = args.env ?? [];
  const envs =
    named.length > 0
      ? named
      : list
        ? Object.keys(config.environments).filter((env) => config.environments[env]?.cluster)
        : Object.keys(config.access);
  const problems: string[] = [];
  if (envs.length === 0) {
    problems.push(
      list
        ? 'no environment names a cluster (environments.<env>.cluster.name)'
        : 'no access.<env> in the configuration: nothing to reconcile',
    );
  }
  for (const env of envs) {
    const settings = config.environments[env];
    if (!list && !config.access[env]) problems.push(`environment ${env} has no access.${env}.principals to reconcile`);
    if (!settings?.cluster) problems.push(`environment ${env} names no cluster (set environments.${env}.cluster.name)`);
    if (!settings?.aws) problems.push(`environment ${env} has no AWS settings (set environments.${env}.aws.region)`);
  }
  if (problems.length > 0) {
    for (const problem of problems) io.stderr.write(`platctl access: ${problem}\n`);
    return { ok: false, exitCode: EXIT.usage };
  }

  const [{ createEnvCloud }, { awsAccessOf }, { createEksAccess }] = await Promise.all([
    import('../cloud/environment.js'),
    import('../cloud/sdk-access.js'),
    import('../cloud/eks-access.js'),
  ]);
  const targets: Target[] = [];
  for (const env of envs) {
    const settings = config.environments[env];
    if (!settings?.cluster) continue;
    const cloud = createEnvCloud({ envName: env, settings, env: io.env });
    const preflight = await cloud.preflight(PREFLIGHT_BUDGET_MS, io.signal);
    const access = preflight.ok ? await awsAccessOf(cloud, io.env) : undefined;
    if (!preflight.ok || !access?.ok) {
      const failed = !preflight.ok ? preflight : access && !access.ok ? access : undefined;
      io.stderr.write(
        `platctl access: ${env}: credentials preflight failed: ${failed?.message ?? 'no credentials'}` +
          `${failed?.hint ? ` (${failed.hint})` : ''}\n`,
      );
      return { ok: false, exitCode: EXIT.refused };
    }
    const desired = (config.access[env]?.principals ?? []).map((p) => ({
      principalArn: p.arn,
      policyArn: policyArnFor(p.policy, p.arn),
    }));
    targets.push({ env, eks: createEksAccess(access.value, settings.cluster.name), desired });
  }
  return { ok: true, targets };
}

async function listEntries(targets: readonly Target[], json: boolean, io: CliIo): Promise<number> {
  const out: { env: string; cluster: string; entries: (AccessEntry & { managed: boolean })[] }[] = [];
  let failed = false;
  for (const target of targets) {
    const entries = await target.eks.list(io.signal);
    if (!entries.ok) {
      io.stderr.write(`platctl access: ${target.env}: ${entries.message}${entries.hint ? ` (${entries.hint})` : ''}\n`);
      failed = true;
      continue;
    }
    out.push({
      env: target.env,
      cluster: target.eks.cluster,
      entries: entries.value.map((entry) => ({ ...entry, managed: isManaged(entry) })),
    });
  }
  if (json) {
    io.stdout.write(`${JSON.stringify({ environments: out })}\n`);
  } else {
    for (const env of out) {
      io.stdout.write(`${env.env} (cluster ${env.cluster}): ${env.entries.length} access entries\n`);
      for (const entry of env.entries) {
        const policies = entry.policies
          .map(
            (p) =>
              `${policyName(p.policyArn)}${p.scope === 'namespace' ? ` [${(p.namespaces ?? []).join(', ')}]` : ''}`,
          )
          .join(', ');
        const by = entry.managed ? 'platctl' : 'not platctl';
        io.stdout.write(`  ${entry.principalArn}  ${entry.type}  ${by}  ${policies || '(no policy)'}\n`);
      }
    }
  }
  return failed ? EXIT.failed : EXIT.ok;
}

interface EnvOutcome {
  env: string;
  cluster: string;
  changes: (AccessChange & { status: 'applied' | 'failed' | 'planned' | 'needs-prune'; error?: string })[];
}

async function reconcile(targets: readonly Target[], args: AccessArgs & { json?: boolean | undefined }, io: CliIo) {
  const dryRun = args['dry-run'] === true;
  const prune = args.prune === true;
  const outcomes: EnvOutcome[] = [];
  let failed = false;
  // Read every cluster first: a listing that fails leaves every cluster untouched.
  const plans: { target: Target; changes: AccessChange[] }[] = [];
  for (const target of targets) {
    const entries = await target.eks.list(io.signal);
    if (!entries.ok) {
      io.stderr.write(`platctl access: ${target.env}: ${entries.message}${entries.hint ? ` (${entries.hint})` : ''}\n`);
      return EXIT.failed;
    }
    plans.push({ target, changes: planAccess(target.desired, entries.value) });
  }
  for (const { target, changes } of plans) {
    const outcome: EnvOutcome = { env: target.env, cluster: target.eks.cluster, changes: [] };
    outcomes.push(outcome);
    if (!args.json)
      io.stdout.write(`${target.env} (cluster ${target.eks.cluster}):${changes.length === 0 ? ' up to date' : ''}\n`);
    for (const change of changes) {
      const line = describeChange(change);
      if (change.prune && !prune) {
        outcome.changes.push({ ...change, status: 'needs-prune' });
        if (!args.json) io.stdout.write(`  ${line} (with --prune)\n`);
        continue;
      }
      if (dryRun || io.signal.aborted) {
        outcome.changes.push({ ...change, status: 'planned' });
        if (!args.json) io.stdout.write(`  ${line}${dryRun ? '' : ' (not done: interrupted)'}\n`);
        if (!dryRun) failed = true;
        continue;
      }
      const result = await applyChange(target.eks, change, io.signal);
      if (result.ok) {
        outcome.changes.push({ ...change, status: 'applied' });
        if (!args.json) io.stdout.write(`  ${line}: done\n`);
      } else {
        failed = true;
        const error = `${result.message}${result.hint ? ` (${result.hint})` : ''}`;
        outcome.changes.push({ ...change, status: 'failed', error });
        if (!args.json) io.stdout.write(`  ${line}: FAILED\n`);
        io.stderr.write(`platctl access: ${target.env}: ${error}\n`);
      }
    }
  }
  if (args.json) io.stdout.write(`${JSON.stringify({ dry_run: dryRun, prune, environments: outcomes })}\n`);
  else if (dryRun) io.stdout.write('Dry run: nothing was changed.\n');
  return failed ? EXIT.failed : EXIT.ok;
}

export const accessVerb = defineVerb(ACCESS_GRAMMAR, async (args, io) => {
  const checked = await loadCheckedConfig(args, io);
  if (!checked.ok) return checked.exitCode;
  const prepared = await prepare(args, checked.loaded.config, io);
  if (!prepared.ok) return prepared.exitCode;
  return args.action === 'list'
    ? listEntries(prepared.targets, args.json === true, io)
    : reconcile(prepared.targets, args, io);
});
