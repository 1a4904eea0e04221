/**
 * The configuration of the SSM features: a manual step's `check: {ssm_parameter: NAME, env?}` (whose environment
 * must be decided and have AWS settings) and `park.<env>.bastion_ready_timeout` (bounded).
 */
import { describe, expect, it } from 'vitest';
import type { ConfigError } from '../../config/errors.js';
import type { ConfigResult } from '../../config/load.js';
import { parseConfig } from '../../config/load.js';
import { manualStepEnv } from '../../config/semantic.js';

const FILE = '/repo/.platctl.yaml';

function errorsOf(result: ConfigResult): ConfigError[] {
  if (result.ok) throw new Error('expected the configuration to be refused');
  return result.errors;
}

const TWO_ENVS = [
  'version: 1',
  'environments:',
  '  platform: { dir: live/platform, aws: { region: eu-west-1, profile: platform } }',
  '  preprod: { dir: live/preprod, aws: { region: eu-west-1, profile: preprod } }',
  '  sandbox: { dir: live/sandbox }',
  '',
].join('\n');

const step = (check: string, before?: string) =>
  `manual_steps:\n  - id: key\n    description: Put the key in SSM\n    check: ${check}\n${before ? `    before: ${before}\n` : ''}`;

describe('manual step check ssm_parameter', () => {
  it('accepts a parameter name, with or without env, beside the argument-list form', () => {
    const text = `${TWO_ENVS}${step('{ ssm_parameter: /platform/tailscale/authkey, env: platform }')}`;
    const result = parseConfig(text, FILE);
    expect(result.ok && result.value.config.manual_steps[0]?.check).toEqual({
      ssm_parameter: '/platform/tailscale/authkey',
      env: 'platform',
    });
    const list = parseConfig(`${TWO_ENVS}${step('[sh, -c, "true"]')}`, FILE);
    expect(list.ok && list.value.config.manual_steps[0]?.check).toEqual(['sh', '-c', 'true']);
  });

  it("takes the environment of the step's before units, or the only environment", () => {
    expect(manualStepEnv({}, ['preprod/dns', 'preprod/eks'], ['platform', 'preprod'])).toBe('preprod');
    expect(manualStepEnv({}, ['preprod/dns', 'platform/eks'], ['platform', 'preprod'])).toBeUndefined();
    expect(manualStepEnv({}, undefined, ['platform'])).toBe('platform');
    expect(manualStepEnv({}, undefined, ['platform', 'preprod'])).toBeUndefined();
    expect(manualStepEnv({ env: 'platform' }, ['preprod/dns'], ['platform', 'preprod'])).toBe('platform');
    const text = `${TWO_ENVS}${step('{ ssm_parameter: /preprod/key }', '[preprod/dns]')}`;
    expect(parseConfig(text, FILE).ok).toBe(true);
  });

  it('refuses a check whose environment is not decided, unknown, or without aws settings', () => {
    const undecided = errorsOf(parseConfig(`${TWO_ENVS}${step('{ ssm_parameter: /k }')}`, FILE));
    expect(undecided).toEqual([
      expect.objectContaining({
        reason: 'missing-key',
        keyPath: 'manual_steps[0].check',
        message:
          "manual step key: which environment's AWS account holds SSM parameter /k is not clear (several environments are declared)",
        hint: 'add env: <one of platform, preprod, sandbox> to the check',
        location: expect.objectContaining({ line: 9 }) as unknown,
      }),
    ]);
    const spanning = errorsOf(
      parseConfig(`${TWO_ENVS}${step('{ ssm_parameter: /k }', '[platform/a, preprod/b]')}`, FILE),
    );
    expect(spanning[0]?.message).toMatch(/its before units are in several environments/);

    const unknown = errorsOf(parseConfig(`${TWO_ENVS}${step('{ ssm_parameter: /k, env: prod }')}`, FILE));
    expect(unknown.map((e) => [e.keyPath, e.reason])).toEqual([['manual_steps[0].check.env', 'unknown-environment']]);

    const noAws = errorsOf(parseConfig(`${TWO_ENVS}${step('{ ssm_parameter: /k, env: sandbox }')}`, FILE));
    expect(noAws).toEqual([
      expect.objectContaining({
        keyPath: 'manual_steps[0].check.env',
        message: 'manual step key: its SSM parameter is read in environment sandbox, which has no aws settings',
      }),
    ]);
  });

  it('refuses a name SSM would refuse, and a misspelt key with a did-you-mean', () => {
    const bad = errorsOf(parseConfig(`${TWO_ENVS}${step('{ ssm_parameter: "/a b", env: platform }')}`, FILE));
    expect(bad.map((e) => [e.keyPath, e.reason])).toEqual([['manual_steps[0].check.ssm_parameter', 'invalid-value']]);
    const typo = errorsOf(parseConfig(`${TWO_ENVS}${step('{ ssm_paramter: /k, env: platform }')}`, FILE));
    expect(typo.map((e) => [e.keyPath, e.reason, e.hint])).toEqual([
      ['manual_steps[0].check.ssm_parameter', 'missing-key', expect.stringContaining('add ssm_parameter')],
      ['manual_steps[0].check.ssm_paramter', 'unknown-key', 'did you mean "ssm_parameter"?'],
    ]);
  });
});

describe('park.<env>.bastion_ready_timeout', () => {
  const park = (timeout?: string) =>
    `${TWO_ENVS}park:\n  platform:\n    bastion: { tags: { Role: bastion } }\n${timeout ? `    bastion_ready_timeout: ${timeout}\n` : ''}`;

  it('is 5 minutes by default, and bounded to an hour', () => {
    const result = parseConfig(park(), FILE);
    expect(result.ok && result.value.config.park.platform?.bastion_ready_timeout).toBe(300_000);
    const set = parseConfig(park('90s'), FILE);
    expect(set.ok && set.value.config.park.platform?.bastion_ready_timeout).toBe(90_000);
    expect(errorsOf(parseConfig(park('2h'), FILE))).toEqual([
      expect.objectContaining({
        keyPath: 'park.platform.bastion_ready_timeout',
        message: expect.stringContaining('2h is longer than bastion_ready_timeout allows: 1s to 1h') as unknown,
      }),
    ]);
    expect(errorsOf(parseConfig(park('0s'), FILE))[0]?.keyPath).toBe('park.platform.bastion_ready_timeout');
  });
});
