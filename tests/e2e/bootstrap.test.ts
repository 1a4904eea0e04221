/**
 * `platctl bootstrap` for real: the built CLI applies the 25 units of examples/platform (a temp copy) with real
 * terragrunt and OpenTofu, offline. Checked from the outside, the way a user would: the exit code, `platctl status
 * --json`, the state file, the per-unit logs, and the units' own terraform.tfstate files.
 */
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StatusJson } from './helpers/platctl.js';
import {
  findFiles,
  processesUnder,
  readState,
  readTfState,
  runPlatctl,
  useExampleWorkspace,
} from './helpers/platctl.js';

describe('platctl bootstrap with real terragrunt and OpenTofu', () => {
  const example = useExampleWorkspace('bootstrap');

  it('refuses with exit 3, running nothing, when TF_CLI_CONFIG_FILE names a missing file', async () => {
    const { ws } = example;
    const run = await runPlatctl(ws, ['bootstrap'], { env: { TF_CLI_CONFIG_FILE: join(ws.base, 'no-such.tfrc') } });
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stderr).toContain('TF_CLI_CONFIG_FILE points at');
    expect(existsSync(join(ws.root, '.platctl-state.json'))).toBe(false);
    expect(findFiles(join(ws.root, 'live'), 'terraform.tfstate')).toEqual([]);
  });

  it('applies every unit, passes outputs through dependency blocks and logs each unit', async () => {
    const { ws, graph, unit } = example;
    const run = await runPlatctl(ws, ['bootstrap']);
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/completed in /);
    expect(run.stdout).toContain(`${graph.size} units: ${graph.size} completed`);

    // platctl status agrees, and exits 0 only for a complete run.
    const status = await runPlatctl(ws, ['status', '--json']);
    expect(status.exitCode, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout) as StatusJson;
    expect(report.complete).toBe(true);
    expect(report.run?.command).toBe('bootstrap');
    expect(report.run?.status).toBe('completed');
    expect(report.units.map((u) => u.id).sort()).toEqual([...graph.keys()].sort());
    expect(report.units.filter((u) => u.status !== 'completed')).toEqual([]);

    // The state file: every unit completed once, with exit code 0.
    const state = readState(ws);
    expect(state.status).toBe('completed');
    for (const id of graph.keys()) {
      expect(state.units[id], id).toMatchObject({ status: 'completed', attempts: 1, exit_code: 0 });
    }

    // Every unit really applied: its state (written next to it by the generated local backend) has resources, and
    // no unit is left holding a state lock.
    for (const u of graph.values()) {
      expect(readTfState(ws, u).resources.length, u.id).toBeGreaterThan(0);
    }
    expect(findFiles(join(ws.root, 'live'), '.terraform.tfstate.lock.info')).toEqual([]);

    // Outputs flowed through dependency blocks: platform/cilium recorded platform/eks's endpoint, which is derived
    // from a terraform_data id that only exists after apply (the mocks say "mock"), and platform/argocd recorded
    // preprod/eks's endpoint across environments.
    const eksEndpoint = readTfState(ws, unit('platform/eks')).outputs.endpoint?.value;
    const preprodEndpoint = readTfState(ws, unit('preprod/eks')).outputs.endpoint?.value;
    expect(eksEndpoint).toMatch(/^https:\/\/[0-9A-F]{32}\.gr7\.eu-west-1\.eks\.amazonaws\.com$/);
    expect(preprodEndpoint).toMatch(/^https:\/\/[0-9A-F]{32}\.gr7\.eu-west-1\.eks\.amazonaws\.com$/);
    expect(preprodEndpoint).not.toBe(eksEndpoint);
    const cilium = readTfState(ws, unit('platform/cilium'));
    expect(cilium.outputs.upstream?.value).toMatchObject({ cluster_endpoint: eksEndpoint });
    expect(readFileSync(join(ws.root, unit('platform/cilium').dir, 'terraform.tfstate'), 'utf8')).toContain(
      String(eksEndpoint),
    );
    const argocd = readTfState(ws, unit('platform/argocd'));
    expect(argocd.outputs.upstream?.value).toMatchObject({
      cluster_endpoint: eksEndpoint,
      preprod_cluster_endpoint: preprodEndpoint,
    });

    // One log per unit under .platctl-logs/<run id>/, and `latest` points at that run.
    expect(readlinkSync(join(ws.root, '.platctl-logs', 'latest'))).toBe(state.run_id);
    for (const [id, record] of Object.entries(state.units)) {
      expect(record.log, id).toBe(`.platctl-logs/${state.run_id}/${record.wave}_${id.replaceAll('/', '__')}.log`);
      const log = readFileSync(join(ws.root, record.log!), 'utf8');
      expect(log, id).toContain(`# platctl bootstrap: ${id} (attempt 1)`);
      expect(log, id).toContain('Apply complete!');
      expect(log, id).toContain('# result:   completed (exit code 0)');
    }
    // Logs carry no terminal colours.
    expect(readFileSync(join(ws.root, state.units['platform/eks']!.log!), 'utf8')).not.toContain('\u001b[');

    expect(processesUnder(ws.base)).toEqual([]);
    expect(existsSync(join(ws.root, '.platctl.lock'))).toBe(false);
  });
});
