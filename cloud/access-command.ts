/**
 * `platctl access` from a loaded configuration to its exit code: reconcile each environment's EKS access entries with
 * `access.<env>.principals`. Missing entries are created (tagged as platctl's) and their policy associated with
 * cluster scope; `--prune` removes entries platctl made that the configuration no longer lists, and policies config
 * no longer gives them; `--dry-run` prints the changes without making them. `platctl access list` shows what the
 * clusters have. The CLI loads the configuration and passes its streams, environment and signal in.
 *
 * Entries platctl did not make (EKS's own for nodes, the cluster creator's, anyone's by hand) are never deleted and
 * never lose a policy: platctl only adds the configured policy to them.
 */
import { EXIT } from '../config/exit-codes.js';
import type { AccessSettings, AccessTarget } from './access-plan.js';
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
} from './access-plan.js';
import type { EnvCloudOptions } from './environment.js';
import type { EnvVars } from './env.js';

export interface AccessArgs {
  action?: 'reconcile' | 'list' | undefined;
  prune?: boolean | undefined;
  'dry-run'?: boolean | undefined;
  env?: string[] | undefined;
  json?: boolean | undefined;
}

/** What `platctl access` reads of the configuration: the access settings and each environment's cloud settings. */
export type AccessConfig = AccessSettings & {
  readonly environments: Readonly<Record<string, EnvCloudOptions['settings'] | undefined>>;
};

/** Where `platctl access` prints, what it reads of the process, and its signal, passed in by the CLI. */
export interface AccessIo {
  readonly stdout: Pick<NodeJS.WritableStream, 'write'>;
  readonly stderr: Pick<NodeJS.WritableStream, 'write'>;
  readonly env: EnvVars;
  readonly signal: AbortSignal;
}

type Prepared = { ok: true; targets: AccessTarget[] } | { ok: false; exitCode: number };

/** `platctl access [list]` over a loaded configuration: the exit code. */
export async function accessCommand(args: AccessArgs, config: AccessConfig, io: AccessIo): Promise<number> {
  const prepared = await prepare(args, config, io);
  if (!prepared.ok) return prepared.exitCode;
  return args.action === 'list'
    ? listEntries(prepared.targets, args.json === true, io)
    : reconcile(prepared.targets, args, io);
}

/** Checks the whole command before any call: environments, clusters, AWS settings; then the credentials. */
async function prepare(args: AccessArgs, config: AccessConfig, io: AccessIo): Promise<Prepared> {
  const { envs, problems } = accessEnvs(config, args.env ?? [], args.action === 'list');
  if (problems.length > 0) {
    for (const problem of problems) io.stderr.write(`platctl access: ${problem}\n`);
    return { ok: false, exitCode: EXIT.usage };
  }

  const [{ createEnvCloud }, { preflightedAccess }, { createEksAccess }] = await Promise.all([
    import('./environment.js'),
    import('./sdk-access.js'),
    import('./eks-access.js'),
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

async function listEntries(targets: readonly AccessTarget[], json: boolean, io: AccessIo): Promise<number> {
  const { clusters, problems } = await listAccess(targets, io.signal);
  for (const problem of problems) io.stderr.write(`platctl access: ${problem.env}: ${problem.message}\n`);
  io.stdout.write(listingText(clusters, json));
  return problems.length > 0 ? EXIT.failed : EXIT.ok;
}

async function reconcile(targets: readonly AccessTarget[], args: AccessArgs, io: AccessIo): Promise<number> {
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
