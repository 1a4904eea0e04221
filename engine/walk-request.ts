/**
 * What a `bootstrap` or `teardown` command line asks for, as the run takes it: the scope it covers (the same for its
 * dry run and its run), the request `executeRun` gets, the rollback and recovery switches it decides, and the command
 * lines it prints (as typed, for the lock file; and the one that resumes it). The flags come parsed from cli/.
 */
import type { Failure } from '../config/result.js';
import type { PlatctlConfig } from '../config/schema.js';
import type { Graph, UnitId } from './graph.js';
import { formatCommandLine } from './logs.js';
import type { ExclusionsOf, SelectionArgs } from './plan.js';
import type { RunRequest } from './run.js';
import type { UnitDirs } from './tools.js';
import { unitDir } from './tools.js';
import type { RunCommand } from './unit-status.js';

/** The parsed flags of `bootstrap` and `teardown` a run reads (cli/commands/shared.ts defines them). */
export interface WalkFlags {
  readonly config?: string | undefined;
  readonly env?: readonly string[] | undefined;
  readonly unit?: readonly string[] | undefined;
  readonly 'with-deps'?: boolean | undefined;
  readonly resume?: boolean | undefined;
  readonly force?: boolean | undefined;
  readonly parallelism?: number | undefined;
  readonly 'fail-fast'?: boolean | undefined;
  readonly yes?: boolean | undefined;
  readonly 'allow-unresolved'?: boolean | undefined;
  readonly lockdown?: boolean | undefined;
  readonly recover?: string | undefined;
  readonly 'rollback-on-failure'?: boolean | undefined;
  readonly 'no-rollback'?: boolean | undefined;
  readonly 'break-lock'?: boolean | undefined;
}

/** The project a walk runs over: its root, configuration and discovered units (with `prevent_destroy`). */
export interface WalkProject extends UnitDirs {
  readonly config: PlatctlConfig;
  readonly discovery: UnitDirs['discovery'] & {
    readonly graph: Graph;
    readonly units: UnitDirs['discovery']['units'] & {
      values(): Iterable<{ readonly id: UnitId; readonly preventDestroy?: boolean | undefined }>;
    };
  };
}

/** What a walk covers, the same for its dry run and its run. */
export interface WalkScope {
  readonly selection: SelectionArgs;
  readonly preventDestroy: ReadonlySet<UnitId>;
  /** Terragrunt `exclude` blocks for the Terraform command this verb runs, decided among the selected units. */
  readonly excluded: ExclusionsOf;
  readonly absDir: (unit: UnitId) => string;
}

/** The scope of a walk: the selection the flags make, the units kept from destroy, the exclusions given. */
export function walkScope(flags: WalkFlags, project: WalkProject, excluded: ExclusionsOf): WalkScope {
  return {
    selection: { env: flags.env ?? [], unit: flags.unit ?? [], withDeps: flags['with-deps'] === true },
    preventDestroy: new Set([...project.discovery.units.values()].filter((u) => u.preventDestroy).map((u) => u.id)),
    excluded,
    absDir: unitDir(project),
  };
}

/**
 * `--break-lock` takes over the shared lock of `state.backend: s3`; with the local backend it is a usage error.
 */
export function breakLockMisuse(flags: WalkFlags, shared: boolean, configPath: string): Failure | undefined {
  if (!flags['break-lock'] || shared) return undefined;
  return {
    ok: false,
    reason: 'break-lock-local',
    message:
      `--break-lock applies to the shared lock of state.backend s3; ${configPath} uses the local ` +
      `backend (its .platctl.lock is taken over automatically once its holder is gone)`,
  };
}

/**
 * Bootstrap's rollback: on with `--rollback-on-failure` or `rollback: on_failure`; `--no-rollback` (or
 * `--no-rollback-on-failure`) over the configuration is recorded as refused, so the run can say which rule held.
 */
export function rollbackMode(
  command: RunCommand,
  flags: WalkFlags,
  config: Pick<PlatctlConfig, 'rollback'>,
): { rollback?: 'on_failure' | 'refused' } {
  if (command !== 'bootstrap') return {};
  const refused = flags['no-rollback'] === true || flags['rollback-on-failure'] === false;
  const wanted = flags['rollback-on-failure'] === true || config.rollback === 'on_failure';
  if (refused) return config.rollback === 'on_failure' ? { rollback: 'refused' } : {};
  return wanted ? { rollback: 'on_failure' } : {};
}

/** The recoveries allowed to act: `recover:` in .platctl.yaml and `--recover`. */
export function recoverySwitches(config: Pick<PlatctlConfig, 'recover'>, flags: WalkFlags): Set<string> {
  return new Set<string>([...config.recover, ...(flags.recover === undefined ? [] : [flags.recover])]);
}

/** The recoveries bootstrap's `--dry-run` shows, each on (it acts) or off (it only advises). */
export function recoveryPlan(config: Pick<PlatctlConfig, 'recover'>, flags: WalkFlags): Record<string, 'on' | 'off'> {
  return { 'helm-pending': recoverySwitches(config, flags).has('helm-pending') ? 'on' : 'off' };
}

/** The command a recovery names to continue bootstrap: `--resume` and the environments that say which run it is. */
export function recoveryResume(flags: WalkFlags): string {
  return ['platctl bootstrap --resume', ...(flags.env ?? []).map((e) => `--env ${e}`)].join(' ');
}

/** A teardown must be confirmed: without a terminal to ask on, only `--yes` lets it start. */
export function unattendedTeardown(flags: WalkFlags, terminal: boolean): string | undefined {
  return flags.yes || terminal
    ? undefined
    : 'teardown destroys infrastructure and there is no terminal to confirm on; pass --yes to run it unattended';
}

/** What to run: the graph, the selection and the flags that shape the walk. */
export function runInput(
  command: RunCommand,
  flags: WalkFlags,
  project: WalkProject,
  scope: WalkScope,
  platctlVersion: string,
): RunRequest {
  return {
    command,
    root: project.root,
    graph: project.discovery.graph,
    config: project.config,
    ...scope,
    resume: flags.resume === true,
    force: flags.force === true,
    ...(flags.parallelism === undefined ? {} : { parallelism: flags.parallelism }),
    failFast: flags['fail-fast'] === true,
    ...rollbackMode(command, flags, project.config),
    commandLine: invocation(command, flags),
    platctlVersion,
  };
}

/** The options that shape a run, in the order a person would type them. */
function sharedFlags(flags: WalkFlags): string[] {
  const out: string[] = [];
  if (flags.config !== undefined) out.push('--config', flags.config);
  if (flags.parallelism !== undefined) out.push('--parallelism', String(flags.parallelism));
  if (flags['fail-fast']) out.push('--fail-fast');
  if (flags.yes) out.push('--yes');
  if (flags['allow-unresolved']) out.push('--allow-unresolved');
  if (flags.lockdown) out.push('--lockdown');
  if (flags['rollback-on-failure'] === true) out.push('--rollback-on-failure');
  if (flags['no-rollback'] === true || flags['rollback-on-failure'] === false) out.push('--no-rollback');
  return out;
}

/** The command line as typed (for the lock file). */
export function invocation(command: RunCommand, flags: WalkFlags): string {
  const selection = [
    ...(flags.env ?? []).flatMap((e) => ['--env', e]),
    ...(flags.unit ?? []).flatMap((u) => ['--unit', u]),
    ...(flags['with-deps'] ? ['--with-deps'] : []),
  ];
  const resume = [...(flags.resume ? ['--resume'] : []), ...(flags.force ? ['--force'] : [])];
  return formatCommandLine(['platctl', command, ...resume, ...selection, ...sharedFlags(flags)]);
}

/** The exact command that continues this run: the selection is in the state; `--env` says which run it is. */
export function resumeCommand(command: RunCommand, flags: WalkFlags): string {
  const envs = (flags.env ?? []).flatMap((e) => ['--env', e]);
  return formatCommandLine(['platctl', command, '--resume', ...envs, ...sharedFlags(flags)]);
}
