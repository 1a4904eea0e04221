/**
 * The phases around the walk, for real: a bootstrap whose platform/cilium is a crd_two_stage unit and whose
 * lockdown re-applies platform/eks with its public endpoint off against a control plane that is busy twice, then a
 * teardown that unlocks before it destroys anything. Real terragrunt and OpenTofu, offline.
 *
 * The workspace is examples/platform cut down to the four units under platform/cilium (iam-roles, networking, eks,
 * cilium) with its own .platctl.yaml, so the run is a complete bootstrap (lockdown runs without --lockdown) and stays
 * fast. The busy control plane is the example's own switch: PLATCTL_EXAMPLE_BUSY=platform/eks=2 makes the next two
 * endpoint updates of platform/eks fail as EKS does while another update runs (docs/example-platform.md).
 */
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphUnit, Workspace } from './helpers/platctl.js';
import {
  copyExample,
  findFiles,
  parseEvents,
  processesUnder,
  readGraph,
  readState,
  readTfState,
  removeWorkspace,
  runPlatctl,
} from './helpers/platctl.js';

const KEEP = ['iam-roles', 'networking', 'eks', 'cilium'];
const STEP = 'eks-private-endpoint';
const BUSY = { PLATCTL_EXAMPLE_BUSY: 'platform/eks=2' };

const CONFIG = `version: 1
terragrunt:
  binary: terragrunt
  tf_path: tofu
parallelism:
  apply: 4
environments:
  platform:
    dir: live/platform
    aws:
      region: eu-west-1
      account_id: '111111111111'
    cluster:
      name: platform
units:
  platform/iam-roles:
    teardown_skip: true
hooks:
  - type: crd_two_stage
    units: [platform/cilium]
    targets: [terraform_data.crds]
lockdown:
  env: platform
  retry: { attempts: 3, interval: 1s }
  steps:
    - id: ${STEP}
      unit: platform/eks
      lock_args: ['-var=endpoint_public_access=false']
      unlock_args: ['-var=endpoint_public_access=true']
`;

/** examples/platform with only the units of KEEP and the configuration above. */
function phasesWorkspace(): Workspace {
  const ws = copyExample('phases');
  rmSync(join(ws.root, 'live', 'preprod'), { recursive: true });
  for (const name of readdirSync(join(ws.root, 'live', 'platform'))) {
    if (name !== 'env.hcl' && !KEEP.includes(name))
      rmSync(join(ws.root, 'live', 'platform', name), { recursive: true });
  }
  writeFileSync(join(ws.root, '.platctl.yaml'), CONFIG);
  return ws;
}

/** The offsets of `needles` in `text`, in order; -1 where one is missing or only appears before the previous one. */
function offsetsInOrder(text: string, needles: readonly string[]): number[] {
  const found: number[] = [];
  let from = 0;
  for (const needle of needles) {
    const at = text.indexOf(needle, from);
    found.push(at);
    if (at >= 0) from = at + needle.length;
  }
  return found;
}

describe('bootstrap phases with real terragrunt and OpenTofu', () => {
  let ws: Workspace | undefined;
  let graph: Map<string, GraphUnit> | undefined;
  const workspace = (): Workspace => ws ?? expect.unreachable('no workspace');
  const unit = (id: string): GraphUnit => graph?.get(id) ?? expect.unreachable(`${id} is not in the graph`);

  beforeAll(async () => {
    ws = phasesWorkspace();
    graph = await readGraph(ws);
  });
  afterAll(() => {
    if (ws !== undefined) removeWorkspace(ws);
  });

  it('bootstraps with a two-stage unit, then locks down through two transient EKS errors', async () => {
    const ws = workspace();
    expect([...graph!.keys()].sort()).toEqual(KEEP.map((name) => `platform/${name}`).sort());

    const run = await runPlatctl(ws, ['bootstrap', '--json'], { env: BUSY });
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    const state = readState(ws);
    expect(state).toMatchObject({ command: 'bootstrap', status: 'completed' });
    for (const id of graph!.keys()) expect(state.units[id], id).toMatchObject({ status: 'completed', attempts: 1 });

    // crd_two_stage: the state records stage 1, the unit's completion records stage 2, and OpenTofu's state holds
    // the CRDs and the release.
    const cilium = state.units['platform/cilium']!;
    expect(cilium.hooks?.['before-unit:crd_two_stage']).toMatchObject({
      status: 'completed',
      detail: 'stage 1 applied terraform_data.crds',
    });
    const ciliumResources = readTfState(ws, unit('platform/cilium')).resources.map((r) => `${r.type}.${r.name}`);
    expect(ciliumResources).toEqual(expect.arrayContaining(['terraform_data.crds', 'terraform_data.release']));
    // The unit's log: stage 1 under its own header created only the CRDs, stage 2 under its own the release.
    const ciliumLog = readFileSync(join(ws.root, cilium.log!), 'utf8');
    const [stage1, crdsCreated, stage1Done, stage2, releaseCreated, stage2Done] = offsetsInOrder(ciliumLog, [
      '# ---- crd_two_stage stage 1 of 2: apply only terraform_data.crds\n# command: ',
      'terraform_data.crds[0]: Creation complete',
      'Apply complete! Resources: 1 added, 0 changed, 0 destroyed.',
      '# ---- apply platform/cilium\n# command: ',
      'terraform_data.release: Creation complete',
      'Apply complete! Resources: 1 added, 0 changed, 0 destroyed.',
    ]);
    for (const at of [stage1, crdsCreated, stage1Done, stage2, releaseCreated, stage2Done]) {
      expect(at, ciliumLog).toBeGreaterThanOrEqual(0);
    }
    expect(ciliumLog.slice(stage1, stage2)).toMatch(
      /# command: .* -- apply -auto-approve -input=false -target=terraform_data\.crds\n/,
    );
    expect(ciliumLog.slice(stage1, stage2)).not.toContain('terraform_data.release: Creat');
    expect(ciliumLog.slice(stage2)).toMatch(
      /^# ---- apply platform\/cilium\n# command: .* -- apply -auto-approve -input=false\n/,
    );
    expect(ciliumLog.slice(stage2)).not.toContain('terraform_data.crds[0]: Creat');

    // Lockdown: three tries of the step, the first two refused by the busy control plane, the third applied.
    const events = parseEvents(run.stdout).filter((e) => e.type.startsWith('lockdown-step-'));
    expect(events.map((e) => [e.type, e.direction, e.step, e.attempt, e.result])).toEqual([
      ['lockdown-step-started', 'lock', STEP, 1, undefined],
      ['lockdown-step-finished', 'lock', STEP, 1, 'retrying'],
      ['lockdown-step-started', 'lock', STEP, 2, undefined],
      ['lockdown-step-finished', 'lock', STEP, 2, 'retrying'],
      ['lockdown-step-started', 'lock', STEP, 3, undefined],
      ['lockdown-step-finished', 'lock', STEP, 3, 'completed'],
    ]);
    expect(events[1]!.message).toMatch(/ResourceInUseException.*trying again in 1s \(attempt 2 of 3\)/);
    expect(events[3]!.message).toMatch(
      /an update \(EndpointAccessUpdate\) of the cluster is in progress.*\(attempt 3 of 3\)/,
    );
    expect(state.lockdown).toEqual({
      direction: 'lock',
      status: 'completed',
      steps: {
        [STEP]: {
          status: 'completed',
          attempts: 3,
          ended_at: expect.any(String) as string,
          log: `.platctl-logs/${state.run_id}/lockdown_0_${STEP}.log`,
        },
      },
    });
    // The lockdown step started only after every unit completed.
    const walkEnd = Math.max(...Object.values(state.units).map((u) => Date.parse(u.ended_at!)));
    expect(Date.parse(String(events[0]!.at))).toBeGreaterThanOrEqual(walkEnd);
    const stepLog = readFileSync(join(ws.root, state.lockdown!.steps[STEP]!.log!), 'utf8');
    expect(stepLog.match(/# platctl lockdown step eks-private-endpoint: platform\/eks \(attempt \d\)/g)).toEqual([
      '# platctl lockdown step eks-private-endpoint: platform/eks (attempt 1)',
      '# platctl lockdown step eks-private-endpoint: platform/eks (attempt 2)',
      '# platctl lockdown step eks-private-endpoint: platform/eks (attempt 3)',
    ]);
    expect(stepLog).toContain('-- apply -auto-approve -input=false -var=endpoint_public_access=false');
    expect(stepLog).toContain('updated the endpoint access of EKS cluster platform');
    expect(stepLog.match(/Apply complete!/g)).toHaveLength(1);

    // The cluster really is private now, and was changed in place: the endpoint cilium read in the walk stands.
    const eks = readTfState(ws, unit('platform/eks'));
    expect(eks.outputs.endpoint_public_access?.value).toBe(false);
    expect(readTfState(ws, unit('platform/cilium')).outputs.upstream?.value).toMatchObject({
      cluster_endpoint: eks.outputs.endpoint?.value,
    });
    expect(processesUnder(ws.base)).toEqual([]);
  });

  it('tears down after unlocking, before anything is destroyed', async () => {
    const ws = workspace();
    const run = await runPlatctl(ws, ['teardown', '--yes', '--json'], { env: BUSY });
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    const events = parseEvents(run.stdout);
    const unlockEvents = events.filter((e) => e.type.startsWith('lockdown-step-'));
    expect(unlockEvents.map((e) => [e.type, e.direction, e.step, e.attempt, e.result])).toEqual([
      ['lockdown-step-started', 'unlock', STEP, 1, undefined],
      ['lockdown-step-finished', 'unlock', STEP, 1, 'completed'],
    ]);
    // Order, from the events: the unlock finished before the first unit started.
    const unlocked = events.indexOf(unlockEvents[1]!);
    const firstUnit = events.findIndex((e) => e.type === 'unit-started');
    expect(firstUnit).toBeGreaterThan(unlocked);

    // Order, from the state: every destroy started after the unlock step ended.
    const state = readState(ws);
    expect(state).toMatchObject({ command: 'teardown', status: 'completed' });
    const step = state.lockdown?.steps[STEP];
    expect(state.lockdown).toMatchObject({ direction: 'unlock', status: 'completed' });
    expect(step).toMatchObject({ status: 'completed', attempts: 1 });
    const destroyed = Object.entries(state.units).filter(([, u]) => u.kept !== true);
    expect(destroyed.map(([id]) => id).sort()).toEqual(['platform/cilium', 'platform/eks', 'platform/networking']);
    for (const [id, record] of destroyed) {
      expect(record, id).toMatchObject({ status: 'completed', attempts: 1 });
      expect(Date.parse(record.started_at!), id).toBeGreaterThanOrEqual(Date.parse(step!.ended_at!));
    }

    // Order, from the logs: the unlock apply turned the public endpoint back on while the cluster still existed.
    const stepLog = readFileSync(join(ws.root, step!.log!), 'utf8');
    expect(step!.log).toBe(`.platctl-logs/${state.run_id}/unlock_0_${STEP}.log`);
    expect(stepLog).toContain('-- apply -auto-approve -input=false -var=endpoint_public_access=true');
    expect(stepLog).toContain('Apply complete! Resources: 0 added, 1 changed, 1 destroyed.');
    const eksLog = readFileSync(join(ws.root, state.units['platform/eks']!.log!), 'utf8');
    expect(eksLog).toContain('-- destroy -auto-approve -input=false');
    expect(eksLog).toContain('Destroy complete!');

    for (const id of ['platform/cilium', 'platform/eks', 'platform/networking']) {
      expect(readTfState(ws, unit(id)).resources, id).toEqual([]);
    }
    expect(readTfState(ws, unit('platform/iam-roles')).resources.length).toBeGreaterThan(0);
    expect(findFiles(ws.root, '.terraform.tfstate.lock.info')).toEqual([]);
    expect(processesUnder(ws.base)).toEqual([]);
  });
});
