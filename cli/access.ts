/**
 * `platctl access`: reconcile each environment's EKS access entries with `access.<env>.principals`. Missing
 * entries are created (tagged as platctl's) and their policy associated with cluster scope; `--prune` removes
 * entries platctl made that the configuration no longer lists, and policies config no longer gives them; `--dry-run`
 * prints the changes without making them. `platctl access list` shows what the clusters have.
 *
 * Entries platctl did not make (EKS's own for nodes, the cluster creator's, anyone's by hand) are never deleted and
 * never lose a policy: platctl only adds the configured policy to them.
 */
import type { AccessTarget } from '../cloud/access-plan.js';
import {
  ACCESS_PREFLIGHT_BUDGET_MS,
  accessEnvs,
  applyPlans,
  desiredAccess,
  listAccess,
  listingText,
  planTargets,
  reconcileEnding,
  reconcileLine,
  reconcileProblem,
} from '../cloud/access-plan.js';
import type { PlatctlConfig } from '../config/schema.js';
import { loadCheckedConfig } from './project.js';
import type { CliIo } from './verb.js';
import { EXIT, defineVerb } from './verb.js';
import { ACCESS_GRAMMAR } from './commands/access.js';

export interface AccessArgs {
  action?: 'reconcile' | 'list' | undefined;
  prune?: boolean | undefined;
  'dry-run'?: boolean | undefined;
}

type Prepared = { ok: true; targets: AccessTarget[] } | { ok: false; exitCode: number };

/** Checks the whole command before any call: environments, clusters, AWS settings; then the credentials. */
async function prepare(
  args: AccessArgs & { env?: string[] | undefined },
  config: PlatctlConfig,
  io: CliIo,
): Promise<Prepared> {
  const { envs, problems } = accessEnvs(config, args.env ?? [], args.action === 'list');
  if (problems.length > 0) {
    for (const problem of problems) io.stderr.write(`platctl access: ${problem}\n`);
    return { ok: false, exitCode: EXIT.usage };
  }

  const [{ createEnvCloud }, { preflightedAccess }, { createEksAccess }] = await Promise.all([
    import('../cloud/environment.js'),
    import('../cloud/sdk-access.js'),
    import('../cloud/eks-access.js'),
  ]);
  const targets: AccessTarget[] = [];
  for (const env of envs) {
    const settings = config.environments[env];
    if (!settings?.cluster) continue;
    const cloud = createEnvCloud({ envName: env, settings, env: io.env });
    const access = await preflightedAccess(cloud, io.env, ACCESS_PREFLIGHT_BUDGET_MS, io.signal);
    if (!access.ok) {
      io.stderr.write(`platctl access: ${env}: ${access.line}\n`);
      return { ok: false, exitCode: EXIT.refused };
    }
    targets.push({
      env,
      eks: createEksAccess(access.value, settings.cluster.name),
      desired: desiredAccess(config, env),
    });
  }
  return { ok: true, targets };
}

async function listEntries(targets: readonly AccessTarget[], json: boolean, io: CliIo): Promise<number> {
  const { clusters, problems } = await listAccess(targets, io.signal);
  for (const problem of problems) io.stderr.write(`platctl access: ${problem.env}: ${problem.message}\n`);
  io.stdout.write(listingText(clusters, json));
  return problems.length > 0 ? EXIT.failed : EXIT.ok;
}

async function reconcile(
  targets: readonly AccessTarget[],
  args: AccessArgs & { json?: boolean | undefined },
  io: CliIo,
): Promise<number> {
  const dryRun = args['dry-run'] === true;
  const prune = args.prune === true;
  const planned = await planTargets(targets, io.signal);
  if (!planned.ok) {
    io.stderr.write(`platctl access: ${planned.env}: ${planned.message}\n`);
    return EXIT.failed;
  }
  const { outcomes, failed } = await applyPlans(planned.plans, { dryRun, prune, signal: io.signal }, (event) => {
    if (!args.json) io.stdout.write(reconcileLine(event, dryRun));
    const problem = reconcileProblem(event);
    if (problem !== undefined) io.stderr.write(`platctl access: ${problem}\n`);
  });
  const ending = reconcileEnding(outcomes, { dryRun, prune, json: args.json === true });
  if (ending !== '') io.stdout.write(ending);
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
