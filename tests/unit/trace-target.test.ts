/** When platctl traces and where to: `--trace`, the OTLP endpoint variables, and the ones that turn it off. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TRACES_URL, traceTarget } from '../../engine/trace-target.js';

describe('traceTarget', () => {
  it('is off without --trace and without an endpoint variable', () => {
    expect(traceTarget(false, {})).toEqual({ type: 'off' });
    expect(traceTarget(false, { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toEqual({ type: 'off' });
  });

  it('--trace alone goes to the OpenTelemetry default', () => {
    expect(traceTarget(true, {})).toEqual({ type: 'on', url: DEFAULT_TRACES_URL });
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/traces; the traces endpoint is used as given and wins', () => {
    expect(traceTarget(false, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toEqual({
      type: 'on',
      url: 'http://c:4318/v1/traces',
    });
    expect(
      traceTarget(false, {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t.example/otlp/traces',
      }),
    ).toEqual({ type: 'on', url: 'https://t.example/otlp/traces' });
  });

  it('OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn the variables off, not --trace', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' };
    expect(traceTarget(false, env)).toEqual({ type: 'off' });
    expect(traceTarget(false, { ...env, OTEL_SDK_DISABLED: undefined, OTEL_TRACES_EXPORTER: 'none' })).toEqual({
      type: 'off',
    });
    expect(traceTarget(true, env)).toEqual({ type: 'on', url: 'http://c:4318/v1/traces' });
  });

  it('refuses what is not an OTLP/HTTP URL, naming the variable', () => {
    const bad = traceTarget(false, { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' });
    expect(bad.type).toBe('invalid');
    expect(bad.type === 'invalid' && bad.message).toContain('OTEL_EXPORTER_OTLP_ENDPOINT=collector:4317');
    const notUrl = traceTarget(false, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' });
    expect(notUrl.type === 'invalid' && notUrl.message).toContain('is not a URL');
  });
});
