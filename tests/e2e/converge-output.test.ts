/**
 * A convergence wait on a unit's output, read with the real `terragrunt output -json`: after preprod/networking is
 * applied, its `vpc_cidr` output must equal preprod's CIDR (it does) and its `vpc_id` must be set (it is); a wait on
 * a value the output never takes fails at its bound, naming what the output is; a unit terragrunt cannot read fails
 * the wait at once with terragrunt's error. A wait naming a unit discovery does not find is refused before anything
 * runs.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState, runPlatctl, useExampleWorkspace } from './helpers/platctl.js';

const UNIT = 'preprod/networking';

describe('a convergence wait on a unit output, with real terragrunt and OpenTofu', () => {
  const example = useExampleWorkspace('converge-output');

  it('passes when the output is set or equal, fails at the bound naming its value, refuses an unknown unit', async () => {
    const { ws } = example;
    const config = join(ws.root, '.platctl.yaml');
    const original = readFileSync(config, 'utf8');
    const waits = (extra: string): void =>
      writeFileSync(
        config,
        `${original}\nconverge:\n  interval: 1s\n  waits:\n` +
          `    - { id: cidr, after: [${UNIT}], output: { unit: ${UNIT}, name: vpc_cidr, equals: 10.20.0.0/16 } }\n` +
          `    - { id: vpc, after: [${UNIT}], output: { unit: ${UNIT}, name: vpc_id } }\n${extra}`,
      );

    waits('');
    const passed = await runPlatctl(ws, ['bootstrap', '--unit', UNIT]);
    expect(passed.exitCode, `${passed.stdout}\n${passed.stderr}`).toBe(0);
    expect(passed.stdout).toMatch(/ready {3}cidr /);
    expect(passed.stdout).toMatch(/ready {3}vpc /);
    const state = readState(ws) as ReturnType<typeof readState> & {
      converge?: { status: string; waits: Record<string, { status: string }> };
    };
    expect(state.converge).toMatchObject({
      status: 'completed',
      waits: { cidr: { status: 'passed' }, vpc: { status: 'passed' } },
    });

    waits(
      `    - { id: azs, after: [${UNIT}], timeout: 2s, output: { unit: ${UNIT}, name: vpc_cidr, equals: 10.99.0.0/16 } }\n`,
    );
    const failed = await runPlatctl(ws, ['bootstrap', '--unit', UNIT]);
    expect(failed.exitCode, `${failed.stdout}\n${failed.stderr}`).toBe(1);
    expect(failed.stdout).toContain(
      `CONVERGENCE FAILED at wait azs: not ready after 2.0s (converge timeout): output vpc_cidr of ${UNIT} is "10.20.0.0/16", not "10.99.0.0/16"`,
    );

    // A unit terragrunt cannot read (never applied, its dependency's outputs missing): the wait fails at once, long
    // before its bound, with terragrunt's error.
    waits(`    - { id: nodes, after: [${UNIT}], timeout: 5m, output: { unit: preprod/node-groups, name: x } }\n`);
    const unreadable = await runPlatctl(ws, ['bootstrap', '--unit', UNIT]);
    expect(unreadable.exitCode, `${unreadable.stdout}\n${unreadable.stderr}`).toBe(1);
    expect(unreadable.durationMs).toBeLessThan(120_000);
    expect(unreadable.stdout).toContain(
      'CONVERGENCE FAILED at wait nodes: cannot look: cannot read output x of preprod/node-groups: terragrunt output exited 1: resolving dependency "eks" outputs:',
    );

    appendFileSync(config, `    - { id: typo, output: { unit: preprod/networkin, name: vpc_id } }\n`);
    const refused = await runPlatctl(ws, ['bootstrap', '--unit', UNIT]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      'converge.waits[3].output.unit names unit "preprod/networkin", which discovery did not find',
    );
    expect(refused.stderr).toContain(UNIT);
  });
});
