/**
 * `platctl teardown --yes` for real, after a real bootstrap: every unit is destroyed, dependents first, except the
 * floor (platform/iam-roles has `teardown_skip`, and nothing it depends on lies inside the environments), whose
 * resources must still be in its state.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { StatusJson } from './helpers/platctl.js';
import {
  findFiles,
  parseEvents,
  processesUnder,
  readState,
  readTfState,
  runPlatctl,
  useExampleWorkspace,
} from './helpers/platctl.js';

describe('platctl teardown with real terragrunt and OpenTofu', () => {
  const example = useExampleWorkspace('teardown');

  it('destroys everything but the floor, dependents before their dependencies', async () => {
    const { ws, graph } = example;
    const plan = await runPlatctl(ws, ['teardown', '--dry-run', '--json']);
    expect(plan.exitCode, plan.stderr).toBe(0);
    const { kept } = JSON.parse(plan.stdout) as { kept: string[] };
    expect(kept).toEqual(['platform/iam-roles']);

    const bootstrap = await runPlatctl(ws, ['bootstrap']);
    expect(bootstrap.exitCode, `${bootstrap.stdout}\n${bootstrap.stderr}`).toBe(0);
    const floorBefore = readFileSync(`${ws.root}/${graph.get('platform/iam-roles')!.dir}/terraform.tfstate`);

    // No terminal here: without --yes teardown refuses (exit 3) and destroys nothing.
    const unconfirmed = await runPlatctl(ws, ['teardown']);
    expect(unconfirmed.exitCode).toBe(3);
    expect(unconfirmed.stderr).toContain('pass --yes');
    for (const [id, unit] of graph) expect(readTfState(ws, unit).resources.length, id).toBeGreaterThan(0);

    const teardown = await runPlatctl(ws, ['teardown', '--yes', '--json']);
    expect(teardown.exitCode, teardown.stderr).toBe(0);
    const events = parseEvents(teardown.stdout);
    const destroyed = events.filter((e) => e.type === 'unit-completed').map((e) => String(e.unit));
    expect(destroyed.sort()).toEqual([...graph.keys()].filter((id) => !kept.includes(id)).sort());
    // Order: a unit finished destroying only after everything that depends on it.
    const finishedAt = new Map(
      destroyed.map((id) => [id, events.findIndex((e) => e.unit === id && e.type === 'unit-completed')]),
    );
    const startedAt = new Map(
      destroyed.map((id) => [id, events.findIndex((e) => e.unit === id && e.type === 'unit-started')]),
    );
    for (const id of destroyed) {
      for (const dependent of graph.get(id)!.dependents) {
        expect(finishedAt.get(dependent)!, `${dependent} before ${id}`).toBeLessThan(startedAt.get(id)!);
      }
    }

    for (const [id, unit] of graph) {
      const resources = readTfState(ws, unit).resources;
      if (kept.includes(id)) expect(resources.length, id).toBeGreaterThan(0);
      else expect(resources, id).toEqual([]);
    }
    // The floor was not even run: its state file is the bootstrap's, byte for byte.
    const floorAfter = readFileSync(`${ws.root}/${graph.get('platform/iam-roles')!.dir}/terraform.tfstate`);
    expect(floorAfter.equals(floorBefore)).toBe(true);
    // platform/ecr got its teardown_args.
    const state = readState(ws);
    expect(readFileSync(`${ws.root}/${state.units['platform/ecr']!.log!}`, 'utf8')).toContain(
      'destroy -auto-approve -input=false -var=force_destroy=true',
    );

    expect(state).toMatchObject({ command: 'teardown', status: 'completed' });
    expect(state.units['platform/iam-roles']).toMatchObject({ status: 'completed', kept: true, attempts: 0 });
    const status = await runPlatctl(ws, ['status', '--json']);
    expect(status.exitCode).toBe(0);
    const report = JSON.parse(status.stdout) as StatusJson;
    expect(report.run).toMatchObject({ command: 'teardown', status: 'completed' });
    expect(findFiles(ws.root, '.terraform.tfstate.lock.info')).toEqual([]);
    expect(processesUnder(ws.base)).toEqual([]);
  });
});
