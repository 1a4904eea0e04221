/**
 * `bootstrap --rollback-on-failure` for real. preprod/networking is applied first, in a run of its own, so it stands
 * before the bootstrap of preprod; PLATCTL_EXAMPLE_FAIL_APPLY makes preprod/cilium fail partway (one resource
 * created, the next one failing in its provisioner). The rollback must destroy exactly what this run applied for the
 * first time, the failed unit included (cilium, then eks: dependents first), and leave networking and its resources
 * as they were. preprod/eks has a dependent outside the selection (platform/argocd, never applied): the probe reads it
 * too, so it does not keep eks standing.
 *
 * Then a Ctrl-C during the rollback's destroy: PLATCTL_EXAMPLE_DESTROY_DELAY makes cilium sleep while it is
 * destroyed. platctl must exit 130, start no other destroy, and record what was not destroyed as still standing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GraphUnit, StateFile, Workspace } from './helpers/platctl.js';
import {
  findFiles,
  parseEvents,
  processesUnder,
  readState,
  readTfState,
  runPlatctl,
  startPlatctl,
  useExampleWorkspace,
  waitFor,
} from './helpers/platctl.js';

const STANDING = 'preprod/networking';
const FAILING = 'preprod/cilium';

/** The `rollback` record of `.platctl-state.json` (engine/state.ts). */
interface RollbackRecord {
  readonly mode: string;
  readonly status: string;
  readonly message?: string;
  readonly probe: Readonly<Record<string, { readonly result: string; readonly detail?: string }>>;
  readonly kept?: readonly string[];
  readonly units?: Readonly<Record<string, { readonly status: string; readonly log?: string }>>;
}

const rollbackOf = (state: StateFile): RollbackRecord =>
  (state as StateFile & { readonly rollback: RollbackRecord }).rollback;

const addresses = (ws: Workspace, unit: GraphUnit): string[] =>
  readTfState(ws, unit).resources.map((r) => `${r.type}.${r.name}`);

describe('a narrow rollback with real terragrunt and OpenTofu', () => {
  const example = useExampleWorkspace('rollback');

  it('destroys exactly the units the run created, the failed one included, dependents first', async () => {
    const { ws, unit } = example;
    const first = await runPlatctl(ws, ['bootstrap', '--unit', STANDING]);
    expect(first.exitCode, `${first.stdout}\n${first.stderr}`).toBe(0);
    const standingBefore = readTfState(ws, unit(STANDING));
    expect(addresses(ws, unit(STANDING))).toEqual(['terraform_data.vpc']);

    const run = await runPlatctl(ws, ['bootstrap', '--env', 'preprod', '--rollback-on-failure', '--json'], {
      env: { PLATCTL_EXAMPLE_FAIL_APPLY: FAILING },
    });
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(1);
    const events = parseEvents(run.stdout);
    const failed = events.find((e) => e.type === 'unit-failed');
    expect(failed).toMatchObject({ unit: FAILING });
    expect(String(failed?.error)).toContain('fails partway on purpose');
    // Dependents first: cilium's destroy ends before eks's starts.
    const rollback = events
      .filter((e) => e.type === 'rollback-unit')
      .map((e) => `${String(e.unit)} ${String(e.result)}`);
    expect(rollback).toEqual([
      `${FAILING} started`,
      `${FAILING} destroyed`,
      'preprod/eks started',
      'preprod/eks destroyed',
    ]);
    expect(events.find((e) => e.type === 'rollback-finished')).toMatchObject({
      status: 'completed',
      destroyed: [FAILING, 'preprod/eks'],
      left: [],
    });

    const state = readState(ws);
    expect(state.status).toBe('failed');
    const record = rollbackOf(state);
    expect(record).toMatchObject({ mode: 'on_failure', status: 'completed' });
    expect(record.probe[STANDING]).toMatchObject({ result: 'standing' });
    expect(record.probe['preprod/eks']).toMatchObject({ result: 'absent' });
    // The dependent outside the selection was read too, and held nothing.
    expect(record.probe['platform/argocd']).toMatchObject({ result: 'absent' });
    expect(Object.keys(record.units ?? {}).sort()).toEqual([FAILING, 'preprod/eks']);
    expect(record.kept).toEqual([`${STANDING} stays: its state held 1 resource before the run`]);
    expect(state.units[FAILING]).toMatchObject({ status: 'failed', rolled_back: true });
    expect(state.units['preprod/eks']).toMatchObject({ status: 'pending', rolled_back: true });
    expect(state.units[STANDING]).toMatchObject({ status: 'completed' });
    expect(state.units[STANDING]).not.toHaveProperty('rolled_back');

    // The failed unit held what it created before failing; its destroy removed it.
    const ciliumLog = readFileSync(join(ws.root, record.units![FAILING]!.log!), 'utf8');
    expect(ciliumLog).toContain('module.chaos.terraform_data.partial[0]: Destruction complete');
    expect(addresses(ws, unit(FAILING))).toEqual([]);
    expect(addresses(ws, unit('preprod/eks'))).toEqual([]);
    // Skipped units never ran: no state at all.
    for (const id of ['preprod/eks-addons', 'preprod/node-groups']) {
      expect(existsSync(join(ws.root, unit(id).dir, 'terraform.tfstate')), id).toBe(false);
    }
    // The unit that stood before the run (applied again by it, nothing to change) keeps its state and resources.
    const standingAfter = readTfState(ws, unit(STANDING));
    expect(standingAfter.lineage).toBe(standingBefore.lineage);
    expect(standingAfter.resources).toEqual(standingBefore.resources);
    expect(findFiles(ws.root, '.terraform.tfstate.lock.info')).toEqual([]);
    expect(processesUnder(ws.base)).toEqual([]);
  });
});

describe('Ctrl-C during a real rollback', () => {
  const example = useExampleWorkspace('rollback-interrupt');

  it('exits 130, destroys nothing more, and records what still stands', async () => {
    const { ws, unit } = example;
    const first = await runPlatctl(ws, ['bootstrap', '--unit', STANDING]);
    expect(first.exitCode, `${first.stdout}\n${first.stderr}`).toBe(0);
    // A grace period longer than the test's bound, so a SIGKILL from platctl cannot pass for a clean stop.
    const child = startPlatctl(ws, ['bootstrap', '--env', 'preprod', '--rollback-on-failure'], {
      env: {
        PLATCTL_EXAMPLE_FAIL_APPLY: FAILING,
        PLATCTL_EXAMPLE_DESTROY_DELAY: `${FAILING}=300`,
        PLATCTL_KILL_GRACE: '60',
      },
    });
    const sleeping = (): boolean => processesUnder(ws.base).some((p) => /(^|\/)sleep 300$/.test(p.cmdline));
    const destroying = (): boolean => {
      if (!existsSync(join(ws.root, '.platctl-state.json'))) return false;
      return rollbackOf(readState(ws))?.units?.[FAILING]?.status === 'running';
    };
    expect(await waitFor(() => destroying() && sleeping(), 120_000), 'the rollback never reached its delay').toBe(true);

    process.kill(child.pid!, 'SIGINT');
    const result = await child;
    const stdout = String(result.stdout);
    expect(result.exitCode, `${stdout}\n${String(result.stderr)}`).toBe(130);

    const state = readState(ws);
    expect(state.status).toBe('interrupted');
    const record = rollbackOf(state);
    expect(record.status).toBe('interrupted');
    expect(record.units?.[FAILING]).toMatchObject({ status: 'interrupted' });
    // eks's destroy never started: pending in the record, its resources in its state.
    expect(record.units?.['preprod/eks']).toMatchObject({ status: 'pending' });
    expect(record.message).toContain(`still standing: ${FAILING}, preprod/eks`);
    expect(state.units['preprod/eks']).toMatchObject({ status: 'completed' });
    expect(state.units['preprod/eks']).not.toHaveProperty('rolled_back');
    expect(addresses(ws, unit('preprod/eks'))).toContain('terraform_data.cluster');
    // The interrupted destroy left the delay resource in cilium's state; networking was never touched.
    expect(addresses(ws, unit(FAILING))).toContain('terraform_data.destroy_delay');
    expect(addresses(ws, unit(STANDING))).toEqual(['terraform_data.vpc']);
    expect(stdout).not.toMatch(/destroy preprod\/eks/);

    expect(findFiles(ws.root, '.terraform.tfstate.lock.info')).toEqual([]);
    expect(existsSync(join(ws.root, '.platctl.lock'))).toBe(false);
    const gone = await waitFor(() => processesUnder(ws.base).length === 0, 5_000);
    expect(gone, JSON.stringify(processesUnder(ws.base))).toBe(true);
  });
});
