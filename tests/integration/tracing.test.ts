/**
 * Traces through the built CLI with the fake terragrunt: a bootstrap exported to a loopback OTLP/HTTP receiver
 * (the span tree, ids, attributes, and TRACEPARENT in each terragrunt's environment), and a dead collector.
 */
import { describe, expect, it } from 'vitest';
import { startBlackHole } from '../helpers/black-hole.js';
import { childrenOf, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { BASIC_UNITS, sandbox } from './engine-helpers.js';

describe('platctl bootstrap with tracing (built CLI, fake terragrunt)', { timeout: 120_000 }, () => {
  it('exports run -> phase walk -> unit spans, and each terragrunt gets its unit span as TRACEPARENT', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const box = await sandbox();
      await box.control({}, { sleep_ms: 20 });
      const result = await box.run(['bootstrap'], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
      expect(result.stderr).not.toContain('warning');
      expect(result.exitCode).toBe(0);
      expect(receiver.contentTypes.every((t) => t.startsWith('application/json'))).toBe(true);
      const spans = receiver.spans;
      const root = spans.find((s) => s.name === 'platctl bootstrap');
      expect(root).toBeDefined();
      expect(root!.parentSpanId).toBe('');
      expect(root!.service).toBe('platctl');
      expect(root!.attributes).toMatchObject({ 'platctl.exit_code': 0, 'platctl.result': 'completed' });
      const phases = childrenOf(spans, root!);
      expect(phases.map((s) => s.name)).toEqual(['phase walk']);
      const units = childrenOf(spans, phases[0]!);
      expect(units.map((s) => s.name).sort()).toEqual(BASIC_UNITS.map((u) => `unit ${u}`));
      const eks = units.find((s) => s.name === 'unit platform/eks')!;
      expect(eks.attributes).toMatchObject({
        'platctl.unit.id': 'platform/eks',
        'platctl.env': 'platform',
        'platctl.attempt': 1,
        'platctl.result': 'completed',
        'platctl.exit_code': 0,
      });
      expect(eks.startNs).toBeGreaterThanOrEqual(phases[0]!.startNs);
      expect(eks.endNs).toBeLessThanOrEqual(root!.endNs);

      const calls = await box.calls();
      expect(calls).toHaveLength(BASIC_UNITS.length);
      for (const call of calls) {
        const span = units.find((s) => s.attributes['platctl.unit.id'] === call.unit)!;
        expect(call.traceparent).toBe(`00-${span.traceId}-${span.spanId}-01`);
        expect(call.trace_exporter).toBe('otlpHttp');
        expect(call.traces_endpoint).toBe(`${receiver.endpoint}/v1/traces`);
      }
    } finally {
      await receiver.close();
    }
  });

  it('a failed unit: its span has the exit code and an error status; the run keeps exit code 1', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const box = await sandbox();
      await box.control({ 'platform/eks': { fail: true, exit_code: 3 } });
      const result = await box.run(['bootstrap', '--trace'], {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces`,
      });
      expect(result.exitCode).toBe(1);
      const eks = receiver.spans.find((s) => s.name === 'unit platform/eks')!;
      expect(eks.attributes).toMatchObject({ 'platctl.result': 'failed', 'platctl.exit_code': 3 });
      expect(eks.statusCode).toBe(2);
      const argocd = receiver.spans.find((s) => s.name === 'unit platform/argocd')!;
      expect(argocd.attributes['platctl.result']).toBe('skipped');
      const root = receiver.spans.find((s) => s.name === 'platctl bootstrap')!;
      expect(root.attributes).toMatchObject({ 'platctl.exit_code': 1, 'platctl.result': 'failed' });
    } finally {
      await receiver.close();
    }
  });

  it('a rollback is its own phase: a destroy span per unit, each the parent of its terragrunt', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const box = await sandbox();
      await box.control({ 'platform/eks': { fail_times: 1 } });
      const result = await box.run(['bootstrap', '--rollback-on-failure', '--parallelism', '1', '--trace'], {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      });
      expect(result.exitCode, result.stdout + result.stderr).toBe(1);
      const spans = receiver.spans;
      const root = spans.find((s) => s.name === 'platctl bootstrap')!;
      expect(root.eventNames.filter((e) => e === 'rollback probe').length).toBeGreaterThan(0);
      const phases = childrenOf(spans, root);
      expect(phases.map((s) => s.name)).toEqual(['phase walk', 'phase rollback']);
      expect(phases[1]!.attributes).toMatchObject({
        'platctl.rollback.action': 'destroy',
        'platctl.result': 'completed',
      });
      const destroys = childrenOf(spans, phases[1]!);
      const destroyed = (await box.calls()).filter((c) => c.command === 'destroy');
      expect(destroys.map((s) => s.name).sort()).toEqual(destroyed.map((c) => `destroy ${c.unit}`).sort());
      expect(destroys.every((s) => s.attributes['platctl.result'] === 'destroyed')).toBe(true);
      for (const call of destroyed) {
        const span = destroys.find((s) => s.attributes['platctl.unit.id'] === call.unit)!;
        expect(call.traceparent).toBe(`00-${span.traceId}-${span.spanId}-01`);
      }
    } finally {
      await receiver.close();
    }
  });

  it('a dead collector: the run ends with its own exit code and a warning, within the flush bound', async () => {
    const hole = await startBlackHole();
    try {
      const box = await sandbox();
      await box.control({}, { sleep_ms: 20 });
      const started = Date.now();
      const result = await box.run(['bootstrap', '--unit', 'platform/vpc'], {
        OTEL_EXPORTER_OTLP_ENDPOINT: hole.endpoint,
      });
      const tookMs = Date.now() - started;
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toMatch(/warning: the trace was not exported to .* within 5000 ms/);
      expect(result.stderr).toContain("the run's exit code is unchanged");
      expect(hole.requests.some((line) => line.startsWith('POST /v1/traces'))).toBe(true);
      // The 5 s bound, plus the run itself on a loaded machine; never the SDK's 30 s defaults.
      expect(tookMs).toBeLessThan(25_000);
    } finally {
      await hole.close();
    }
  });

  it('refuses an endpoint that is not an OTLP/HTTP URL before anything runs (exit 2)', async () => {
    const box = await sandbox();
    const result = await box.run(['bootstrap'], { OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('OTEL_EXPORTER_OTLP_ENDPOINT=grpc://collector:4317');
    expect(await box.calls()).toHaveLength(0);
  });
});
