/** `converge:` in .platctl.yaml: bounded durations, one thing per wait, unit ids, environments and ids checked. */
import { describe, expect, it } from 'vitest';
import type { ConfigError } from '../../config/errors.js';
import type { ConfigResult } from '../../config/load.js';
import { parseConfig } from '../../config/load.js';

const FILE = '/repo/.platctl.yaml';
const TWO_ENVS = 'version: 1\nenvironments:\n  platform:\n    dir: live/platform\n  preprod:\n    dir: live/preprod\n';

function errorsOf(result: ConfigResult): ConfigError[] {
  if (result.ok) throw new Error('expected the configuration to be refused');
  return result.errors;
}

describe('converge:', () => {
  it('fills the defaults: a 10s interval, expect 200 or 302, after none', () => {
    const result = parseConfig(
      `${TWO_ENVS}converge:\n  waits:\n    - { id: apps, after: [platform/argocd], argocd_apps: {} }\n    - { id: ui, http: { url: "https://a.example.com/" } }\n`,
      FILE,
    );
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.value.config.converge).toEqual({
      interval: 10_000,
      waits: [
        { id: 'apps', after: ['platform/argocd'], argocd_apps: { namespace: 'argocd' } },
        { id: 'ui', after: [], http: { url: 'https://a.example.com/', expect: [200, 302] } },
      ],
    });
  });

  it("an output wait reads a unit's output: no cluster, so no env even with two environments; its unit must exist", () => {
    const ok = parseConfig(
      `${TWO_ENVS}converge:\n  waits:\n    - { id: vpc, output: { unit: preprod/networking, name: vpc_cidr, equals: 10.20.0.0/16 } }\n`,
      FILE,
    );
    if (!ok.ok) throw new Error(JSON.stringify(ok.errors));
    expect(ok.value.config.converge?.waits).toEqual([
      { id: 'vpc', after: [], output: { unit: 'preprod/networking', name: 'vpc_cidr', equals: '10.20.0.0/16' } },
    ]);
    const bad = errorsOf(
      parseConfig(
        `${TWO_ENVS}converge:\n  waits:\n    - { id: vpc, output: { unit: preprod/networking, equals: [1] } }\n`,
        FILE,
      ),
    );
    expect(bad.map((e) => e.keyPath)).toEqual(
      expect.arrayContaining(['converge.waits[0].output.name', 'converge.waits[0].output.equals']),
    );
  });

  it('refuses unbounded durations, waits naming two things or none, duplicate ids, unknown environments and a wait with no cluster to read', () => {
    const text = [
      TWO_ENVS.trimEnd(),
      'converge:',
      '  interval: 10m',
      '  waits:',
      '    - { id: a, env: platform, timeout: 7h, crds: [x.example.com] }',
      '    - { id: b, env: platform, crds: [x.example.com], workloads: [{ namespace: n, name: d }] }',
      '    - { id: c, env: platform }',
      '',
    ].join('\n');
    const errors = errorsOf(parseConfig(text, FILE));
    expect(errors.map((e) => [e.keyPath, e.reason, e.location?.line])).toEqual([
      ['converge.interval', 'invalid-value', 8],
      ['converge.waits[0].timeout', 'invalid-value', 10],
      ['converge.waits[1]', 'invalid-value', 11],
      ['converge.waits[2]', 'invalid-value', 12],
    ]);
    expect(errors[0]?.message).toMatch(/10m is longer than interval allows: 1s to 5m/);
    expect(errors[2]?.message).toMatch(
      /name exactly one thing to wait for: argocd_apps, crds, workloads, http, output/,
    );
    // Once the shapes are right, the references are checked: ids, environments, unit ids, which cluster.
    const shaped = [
      TWO_ENVS.trimEnd(),
      'converge:',
      '  waits:',
      '    - { id: b, env: platform, crds: [x.example.com] }',
      '    - { id: b, env: staging, crds: [x.example.com] }',
      '    - { id: c, crds: [x.example.com] }',
      '    - { id: d, after: [preprdo/argocd], argocd_apps: {} }',
      '',
    ].join('\n');
    const refs = errorsOf(parseConfig(shaped, FILE));
    expect(refs.map((e) => [e.keyPath, e.reason, e.location?.line])).toEqual([
      ['converge.waits[1].id', 'duplicate-id', 10],
      ['converge.waits[1].env', 'unknown-environment', 10],
      ['converge.waits[2]', 'missing-key', 11],
      ['converge.waits[3].after[0]', 'unknown-environment', 12],
    ]);
    expect(refs[2]?.message).toBe(
      'converge wait "c" reads a cluster but names neither env nor after units, and there are 2 environments',
    );
  });
});
