/**
 * A real failure in the middle of the graph, then `--resume`. PLATCTL_EXAMPLE_FAIL makes platform/eks-addons fail
 * for real (an OpenTofu variable validation, exit 1); its transitive dependents must be skipped, everything else
 * applied. Once the failure is cleared, `--resume` must run exactly the failed and skipped units and leave the
 * completed units' OpenTofu state untouched, byte for byte.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StatusJson } from './helpers/platctl.js';
import { requireToolPaths } from './helpers/tools.js';
import {
  parseEvents,
  processesUnder,
  readState,
  readTfState,
  runPlatctl,
  tfStatePath,
  transitiveDependents,
  useExampleWorkspace,
} from './helpers/platctl.js';

const FAILING = 'platform/eks-addons';

describe('a failed bootstrap resumed, with real terragrunt and OpenTofu', () => {
  const example = useExampleWorkspace('resume');

  it('skips the dependents of a failed unit, applies the rest, then resumes only what did not complete', async () => {
    const { ws, graph } = example;
    const dependents = transitiveDependents(graph, FAILING);
    const independent = [...graph.keys()].filter((id) => id !== FAILING && !dependents.has(id));
    // The unit is mid-graph: some units hang below it, and whole branches (preprod, dns, karpenter) do not.
    expect(dependents.size).toBeGreaterThan(3);
    expect([...dependents]).toContain('platform/argocd');
    expect(independent).toEqual(expect.arrayContaining(['platform/eks', 'platform/karpenter', 'preprod/eks-addons']));

    const failed = await runPlatctl(ws, ['bootstrap'], { env: { PLATCTL_EXAMPLE_FAIL: FAILING } });
    expect(failed.exitCode, `${failed.stdout}\n${failed.stderr}`).toBe(1);
    // The summary names the failure with tofu's own error line, each skipped unit, and the command that resumes.
    expect(failed.stdout).toMatch(new RegExp(`FAILED\\s+${FAILING}`));
    expect(failed.stdout).toContain(`${FAILING} fails on purpose: PLATCTL_EXAMPLE_FAIL names it`);
    for (const id of dependents) expect(failed.stdout).toMatch(new RegExp(`SKIPPED\\s+${id}\\s`));
    // The exact command, alone on its line (execa strips the final newline).
    expect(failed.stdout).toMatch(/^Resume with: platctl bootstrap --resume$/m);

    const before = readState(ws);
    expect(before.status).toBe('failed');
    expect(before.units[FAILING]).toMatchObject({
      status: 'failed',
      attempts: 1,
      exit_code: 1,
      reason: 'exit-non-zero',
    });
    for (const id of dependents) {
      expect(before.units[id], id).toMatchObject({
        status: 'skipped',
        attempts: 0,
        skipped_because: FAILING,
        skip_reason: 'dependency-failed',
      });
      // Skipped means never started: terragrunt never ran there.
      expect(existsSync(tfStatePath(ws, graph.get(id)!)), id).toBe(false);
    }
    for (const id of independent) expect(before.units[id], id).toMatchObject({ status: 'completed', attempts: 1 });

    const status = await runPlatctl(ws, ['status', '--json']);
    expect(status.exitCode).toBe(1);
    const report = JSON.parse(status.stdout) as StatusJson;
    expect(report.complete).toBe(false);
    expect(report.counts).toMatchObject({
      completed: independent.length,
      failed: 1,
      skipped: dependents.size,
    });
    const statusText = await runPlatctl(ws, ['status']);
    expect(statusText.exitCode).toBe(1);
    expect(statusText.stdout).toContain('Resume with: platctl bootstrap --resume');

    // What the completed units' states look like before the resume: bytes, serial, lineage.
    const snapshot = new Map(
      independent.map((id) => {
        const unit = graph.get(id)!;
        return [id, { bytes: readFileSync(tfStatePath(ws, unit)), tf: readTfState(ws, unit) }] as const;
      }),
    );

    // The failure is cleared (the variable is simply not set any more) and the run resumed.
    const resumed = await runPlatctl(ws, ['bootstrap', '--resume', '--json']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const events = parseEvents(resumed.stdout);
    const runStarted = events.find((e) => e.type === 'run-started');
    expect(runStarted).toMatchObject({ resumed: true, run_id: before.run_id, to_run: dependents.size + 1 });
    const started = events.filter((e) => e.type === 'unit-started').map((e) => String(e.unit));
    expect(started.sort()).toEqual([FAILING, ...dependents].sort());
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'completed' });

    const after = readState(ws);
    expect(after).toMatchObject({ run_id: before.run_id, status: 'completed', resumes: 1 });
    expect(after.units[FAILING]).toMatchObject({ status: 'completed', attempts: 2, exit_code: 0 });
    for (const id of dependents) expect(after.units[id], id).toMatchObject({ status: 'completed', attempts: 1 });
    for (const id of independent) {
      // Not run again: the state file's record is the first run's, and OpenTofu's state is unchanged byte for byte.
      expect(after.units[id], id).toEqual(before.units[id]);
      const unit = graph.get(id)!;
      const kept = snapshot.get(id)!;
      expect(readFileSync(tfStatePath(ws, unit)).equals(kept.bytes), `${id}'s terraform.tfstate changed`).toBe(true);
      expect(readTfState(ws, unit)).toMatchObject({ serial: kept.tf.serial, lineage: kept.tf.lineage });
    }
    for (const id of [FAILING, ...dependents]) {
      expect(readTfState(ws, graph.get(id)!).resources.length, id).toBeGreaterThan(0);
    }

    // The failed unit's log keeps the failed attempt above the successful one.
    const log = readFileSync(join(ws.root, after.units[FAILING]!.log!), 'utf8');
    const first = log.indexOf(`# platctl bootstrap: ${FAILING} (attempt 1)`);
    const second = log.indexOf(`# platctl bootstrap: ${FAILING} (attempt 2)`);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(second).toBeGreaterThan(first);
    expect(log.slice(first, second)).toContain('fails on purpose');
    expect(log.slice(second)).toContain('# result:   completed (exit code 0)');

    const finalStatus = await runPlatctl(ws, ['status', '--json']);
    expect(finalStatus.exitCode).toBe(0);
    expect((JSON.parse(finalStatus.stdout) as StatusJson).complete).toBe(true);
    expect(processesUnder(ws.base)).toEqual([]);
  });
});

describe("a failed unit's summary when its stdout is read late", () => {
  const example = useExampleWorkspace('late-stdout');

  // platctl reads terragrunt's stdout and stderr from two pipes. On a loaded machine the tail of stdout (tofu's plan)
  // can be read after stderr, where the error is; seen in this suite under load: the summary then showed plan lines
  // and not the error. A wrapper around the real terragrunt hands stdout on late, making that order certain.
  it('shows the error output, not the plan that was printed before it', async () => {
    const { ws } = example;
    const wrapper = join(ws.base, 'terragrunt-late-stdout');
    writeFileSync(wrapper, '#!/usr/bin/env bash\nset -o pipefail\n"$REAL_TERRAGRUNT" "$@" | { sleep 1; cat; }\n', {
      mode: 0o755,
    });
    const unit = 'platform/networking';
    const run = await runPlatctl(ws, ['bootstrap', '--unit', unit, '--json'], {
      env: { PLATCTL_EXAMPLE_FAIL: unit, PLATCTL_TERRAGRUNT: wrapper, REAL_TERRAGRUNT: requireToolPaths().terragrunt },
    });
    expect(run.exitCode, run.stderr).toBe(1);
    // The plan really came last: the log file records lines in the order platctl read them.
    const state = readState(ws);
    const log = readFileSync(join(ws.root, state.units[unit]!.log!), 'utf8');
    expect(log.lastIndexOf('STDOUT tofu:')).toBeGreaterThan(log.lastIndexOf('fails on purpose'));

    const failedEvent = parseEvents(run.stdout).find((e) => e.type === 'unit-failed');
    expect((failedEvent?.last_lines as string[]).join('\n')).toContain(`${unit} fails on purpose`);
    expect(run.stderr).toContain(`${unit} fails on purpose`);
    expect(state.units[unit]?.error).toBe('exit code 1: Error: Invalid value for variable');
  });
});
