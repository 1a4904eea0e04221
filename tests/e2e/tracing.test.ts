/**
 * Traces with real terragrunt: platctl's unit span is the parent (TRACEPARENT) of the spans terragrunt v1.1.3
 * exports itself (protobuf over OTLP/HTTP, TG_TELEMETRY_TRACE_EXPORTER=otlpHttp), to the same loopback receiver.
 */
import { describe, expect, it } from 'vitest';
import { childrenOf, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { runPlatctl, useExampleWorkspace } from './helpers/platctl.js';

describe('traces reach into terragrunt', () => {
  const example = useExampleWorkspace('tracing');

  it("terragrunt's own spans nest under the unit's span", async () => {
    const receiver = await startOtlpReceiver();
    try {
      const run = await runPlatctl(example.ws, ['bootstrap', '--unit', 'platform/networking'], {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
      });
      expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stderr).not.toContain('warning: the trace');
      const unit = receiver.spans.find((s) => s.name === 'unit platform/networking');
      expect(unit).toBeDefined();
      const fromTerragrunt = receiver.spans.filter((s) => s.encoding === 'protobuf');
      expect(fromTerragrunt.length).toBeGreaterThan(0);
      // Every terragrunt span belongs to platctl's trace, and its top spans are children of the unit's span.
      expect(fromTerragrunt.every((s) => s.traceId === unit!.traceId)).toBe(true);
      const top = childrenOf(fromTerragrunt, unit!);
      expect(top.length).toBeGreaterThan(0);
      expect(top.every((s) => s.service !== 'platctl')).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
