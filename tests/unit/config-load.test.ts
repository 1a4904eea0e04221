import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigError } from '../../config/errors.js';
import type { ConfigResult } from '../../config/load.js';
import { checkConfigFilesystem, findConfig, loadConfig, parseConfig } from '../../config/load.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/config');
const FILE = '/repo/.platctl.yaml';

function errorsOf(result: ConfigResult): ConfigError[] {
  if (result.ok) throw new Error('expected the configuration to be refused');
  return result.errors;
}

/** The one error at `keyPath`, failing when there is none or several. */
function errorAt(result: ConfigResult, keyPath: string): ConfigError {
  const matching = errorsOf(result).filter((e) => e.keyPath === keyPath);
  expect(matching, `errors at ${keyPath}: ${JSON.stringify(errorsOf(result), null, 2)}`).toHaveLength(1);
  return matching[0]!;
}

const MINIMAL = 'version: 1\nenvironments:\n  platform:\n    dir: live/platform\n';

describe('parseConfig', () => {
  it('accepts a minimal file and fills the defaults, durations in milliseconds', () => {
    const result = parseConfig(MINIMAL, FILE);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { config, root, path: file } = result.value;
    expect(file).toBe(FILE);
    expect(root).toBe('/repo');
    expect(config.environments).toEqual({ platform: { dir: 'live/platform' } });
    expect(config.terragrunt).toEqual({ binary: 'terragrunt', tf_path: 'tofu', extra_args: [], env: {} });
    expect(config.parallelism).toEqual({ apply: 4, validate: 8 });
    // 60 minutes: zod's .default() would have skipped the seconds-to-milliseconds transform.
    expect(config.unit_timeout).toBe(3_600_000);
    expect(config.validate.checkers).toEqual({ eks: 'eks_cluster', cilium: 'cilium_agent', argocd: 'argocd_apps' });
    expect(config.lockdown).toBeUndefined();
  });

  it('state: local by default (exactly the files of the checkout); s3 needs a bucket and keeps its prefix', () => {
    const local = parseConfig(MINIMAL, FILE);
    if (!local.ok) throw new Error(JSON.stringify(local.errors));
    expect(local.value.config.state).toEqual({ backend: 'local', key_prefix: 'platctl', heartbeat: 30_000 });
    const s3 = parseConfig(`${MINIMAL}state:\n  backend: s3\n  bucket: tf-state\n  heartbeat: 10s\n`, FILE);
    if (!s3.ok) throw new Error(JSON.stringify(s3.errors));
    expect(s3.value.config.state).toMatchObject({ backend: 's3', bucket: 'tf-state', heartbeat: 10_000 });
    const noBucket = parseConfig(`${MINIMAL}state:\n  backend: s3\n`, FILE);
    expect(errorAt(noBucket, 'state.bucket').message).toMatch(/backend s3 needs a bucket/);
    const slash = parseConfig(`${MINIMAL}state:\n  key_prefix: /platctl/\n`, FILE);
    expect(errorAt(slash, 'state.key_prefix').message).toMatch(/without a leading or trailing slash/);
  });

  it('parses durations in every written form', () => {
    const text = `${MINIMAL}unit_timeout: 1h30m\nunits:\n  platform/eks:\n    timeout: 90\nlockdown:\n  env: platform\n  retry: { attempts: 3 }\n`;
    const result = parseConfig(text, FILE);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.value.config.unit_timeout).toBe(90 * 60_000);
    expect(result.value.config.units['platform/eks']?.timeout).toBe(90_000);
    expect(result.value.config.lockdown?.retry).toEqual({ attempts: 3, interval: 30_000 });
  });

  it('reports YAML syntax errors with their positions', () => {
    const result = parseConfig('version: 1\nenvironments:\n  platform: [live\nunits: {}\n', FILE);
    const [error, ...rest] = errorsOf(result);
    expect(rest).toEqual([]);
    expect(error?.reason).toBe('yaml-syntax');
    expect(error?.message).toMatch(/^YAML: /);
    expect(error?.location).toEqual({ file: FILE, line: 4, column: 1 });
  });

  it('reports duplicate keys and tabs as YAML errors', () => {
    const duplicate = errorsOf(parseConfig(`${MINIMAL}version: 1\n`, FILE));
    expect(duplicate.map((e) => [e.reason, e.location?.line])).toEqual([['yaml-syntax', 5]]);
    expect(duplicate[0]?.hint).toMatch(/once per map/);
    const tab = errorsOf(parseConfig('version: 1\nenvironments:\n\tplatform: {}\n', FILE));
    expect(tab[0]?.reason).toBe('yaml-syntax');
    expect(tab[0]?.location?.line).toBe(3);
  });

  it('reports an alias without its anchor instead of throwing', () => {
    const result = parseConfig('version: 1\nenvironments: *envs\n', FILE);
    const [error] = errorsOf(result);
    expect(error).toMatchObject({ reason: 'yaml-syntax', location: { line: 2, column: 15 } });
  });

  it('refuses a file whose aliases expand without bound', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++) {
      const prev = String.fromCharCode(96 + i);
      levels.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${prev}`).join(', ')}]`,
      );
    }
    // Expanded, the aliases would be 10^8 values: a bound of seconds tells refusing from expanding on any machine.
    const started = performance.now();
    const [error, ...rest] = errorsOf(parseConfig(`${levels.join('\n')}\n`, FILE));
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(rest).toEqual([]);
    expect(error).toMatchObject({ reason: 'yaml-syntax', hint: 'write the values out instead of nesting aliases' });
  });

  it('refuses an empty file and a file that is not a map', () => {
    expect(errorsOf(parseConfig('# nothing yet\n', FILE))[0]?.message).toBe('the file has no settings');
    expect(errorsOf(parseConfig('- a\n', FILE))[0]?.message).toMatch(/must be a map of settings, not a list/);
  });

  it('reports a value of the wrong type at the value, with a hint to quote numbers', () => {
    const text =
      'version: 1\nenvironments:\n  platform:\n    dir: live\n    aws:\n      region: eu-west-1\n      account_id: 012345678901\n';
    const error = errorAt(parseConfig(text, FILE), 'environments.platform.aws.account_id');
    expect(error.reason).toBe('invalid-type');
    expect(error.message).toBe('account_id must be a string, not the number 12345678901');
    expect(error.location).toEqual({ file: FILE, line: 7, column: 19 });
    expect(error.hint).toBe('quote it so YAML keeps it a string: "012345678901"');
  });

  it('reports yes/no where a boolean belongs', () => {
    const text = `${MINIMAL}units:\n  platform/iam:\n    teardown_skip: yes\n`;
    const error = errorAt(parseConfig(text, FILE), 'units.platform/iam.teardown_skip');
    expect(error.message).toBe('teardown_skip must be true or false, not the string "yes"');
    expect(error.hint).toMatch(/true or false/);
  });

  it('reports unknown keys at the key, with a did-you-mean from the keys allowed at that level', () => {
    const text = 'version: 1\nunit_timout: 30m\nenvironments:\n  platform:\n    dri: live\n';
    const result = parseConfig(text, FILE);
    const top = errorAt(result, 'unit_timout');
    expect(top).toMatchObject({
      reason: 'unknown-key',
      message: 'unknown key "unit_timout"',
      location: { file: FILE, line: 2, column: 1 },
      hint: 'did you mean "unit_timeout"?',
    });
    expect(errorAt(result, 'environments.platform.dri')).toMatchObject({
      location: { line: 5, column: 5 },
      hint: 'did you mean "dir"?',
    });
    // dir itself is missing too: reported at its parent, where it has to be added.
    expect(errorAt(result, 'environments.platform.dir')).toMatchObject({
      reason: 'missing-key',
      location: { line: 4, column: 3 },
    });
  });

  it('lists the allowed keys when nothing is close, and picks the hook type before suggesting', () => {
    const text = `${MINIMAL}hooks:\n  - type: eni_ip_validation\n    units: [platform/nodes]\n    min_free: 10\n  - type: secret_cleanup\n    units: [platform/es]\n    colour: red\n`;
    const result = parseConfig(text, FILE);
    expect(errorAt(result, 'hooks[0].min_free').hint).toBe('did you mean "min_free_ips"?');
    expect(errorAt(result, 'hooks[1].colour').hint).toBe(
      'the keys allowed here are: names, prefixes, timeout, type, units',
    );
  });

  it('suggests a hook type for a misspelt one', () => {
    const text = `${MINIMAL}hooks:\n  - type: crd_two_stages\n    units: [platform/crossplane]\n`;
    const error = errorAt(parseConfig(text, FILE), 'hooks[0].type');
    expect(error.message).toBe('unknown type "crd_two_stages"');
    expect(error.hint).toMatch(/^did you mean "crd_two_stage"\?/);
    expect(error.location).toMatchObject({ line: 6, column: 11 });
  });

  it('reports a bad duration', () => {
    const result = parseConfig(`${MINIMAL}unit_timeout: 5 minutes\nunits:\n  platform/eks: { timeout: true }\n`, FILE);
    expect(errorAt(result, 'unit_timeout')).toMatchObject({
      reason: 'invalid-value',
      message: '"5 minutes" is not a duration: write it like 90s, 45m or 1h30m',
      location: { line: 5, column: 15 },
    });
    expect(errorAt(result, 'units.platform/eks.timeout').message).toBe('timeout must be a duration, not true');
  });

  it('reports a zero duration and non-positive parallelism', () => {
    const result = parseConfig(`${MINIMAL}unit_timeout: 0s\nparallelism: { apply: 0 }\n`, FILE);
    expect(errorAt(result, 'unit_timeout').message).toMatch(/is not a duration/);
    expect(errorAt(result, 'parallelism.apply').message).toBe('apply must be greater than 0');
  });

  it('bounds every duration: past the timer limit of Node a timeout would fire at once, so each key has a range', () => {
    // Each duration key, written past its maximum and below its minimum: the error is at the value, with the limit.
    const cases: [string, string, string, string, string][] = [
      // [key path, text with VALUE, too long, too short, the range]
      ['unit_timeout', 'unit_timeout: VALUE\n', '600h', '500ms', '1s to 24h'],
      ['units.platform/eks.timeout', 'units:\n  platform/eks: { timeout: VALUE }\n', '25h', '0.5s', '1s to 24h'],
      [
        'manual_steps[0].check_timeout',
        'manual_steps:\n  - { id: a, description: b, check: [x], check_timeout: VALUE }\n',
        '2h',
        '10ms',
        '1s to 1h',
      ],
      [
        'hooks[0].timeout',
        'hooks:\n  - { type: secret_cleanup, units: [platform/eks], names: [a], timeout: VALUE }\n',
        '600h',
        '1ms',
        '1s to 1h',
      ],
      [
        'lockdown.retry.interval',
        'lockdown:\n  env: platform\n  retry: { attempts: 2, interval: VALUE }\n',
        '2h',
        '1ms',
        '100ms to 1h',
      ],
      ['validate.timeout', 'validate:\n  timeout: VALUE\n', '2h', '1ms', '100ms to 1h'],
      [
        'validate.endpoints[0].timeout',
        'validate:\n  endpoints:\n    - { url: "https://a.example.com", timeout: VALUE }\n',
        '11m',
        '1ms',
        '100ms to 10m',
      ],
      ['park.platform.drain_grace', 'park:\n  platform:\n    drain_grace: VALUE\n', '2h', '1ms', '1s to 1h'],
      [
        'park.platform.karpenter.nodeclaim_timeout',
        'park:\n  platform:\n    karpenter: { nodeclaim_timeout: VALUE }\n',
        '600h',
        '1ms',
        '1s to 2h',
      ],
      [
        'park.platform.db_clients_timeout',
        'park:\n  platform:\n    db_clients_timeout: VALUE\n',
        '3h',
        '1ms',
        '1s to 2h',
      ],
      ['park.platform.ready_timeout', 'park:\n  platform:\n    ready_timeout: VALUE\n', '3h', '1ms', '1s to 2h'],
      ['state.heartbeat', 'state:\n  heartbeat: VALUE\n', '600h', '10ms', '200ms to 5m'],
    ];
    for (const [keyPath, text, long, short, range] of cases) {
      const tooLong = errorAt(parseConfig(`${MINIMAL}${text.replace('VALUE', long)}`, FILE), keyPath);
      expect(tooLong, keyPath).toMatchObject({
        reason: 'invalid-value',
        message: `${long} is longer than ${keyPath.replace(/^.*[.\]]/, '')} allows: ${range}`,
      });
      expect(tooLong.location?.line, keyPath).toBeGreaterThan(4);
      const tooShort = errorAt(parseConfig(`${MINIMAL}${text.replace('VALUE', short)}`, FILE), keyPath);
      expect(tooShort.message, keyPath).toBe(
        `${short} is shorter than ${keyPath.replace(/^.*[.\]]/, '')} allows: ${range}`,
      );
    }
    // A bare number is seconds, and the limit is said in the file's terms.
    expect(errorAt(parseConfig(`${MINIMAL}unit_timeout: 2160000\n`, FILE), 'unit_timeout')).toMatchObject({
      message: '2160000 is longer than unit_timeout allows: 1s to 24h',
      location: { line: 5, column: 15 },
    });
    // The bounds themselves are accepted.
    const edges = parseConfig(`${MINIMAL}unit_timeout: 24h\nstate: { heartbeat: 200ms }\n`, FILE);
    if (!edges.ok) throw new Error(JSON.stringify(edges.errors));
    expect(edges.value.config.unit_timeout).toBe(86_400_000);
  });

  it('reports a missing version and an unsupported one', () => {
    expect(errorAt(parseConfig('environments: { p: { dir: p } }\n', FILE), 'version')).toMatchObject({
      reason: 'missing-key',
      hint: expect.stringMatching(/^add version: 1/) as unknown,
    });
    expect(errorAt(parseConfig(MINIMAL.replace('version: 1', 'version: 2'), FILE), 'version')).toMatchObject({
      message: 'unsupported version 2',
      location: { line: 1, column: 10 },
    });
  });

  it('reports placeholders naming the key, and only once per key', () => {
    const text = [
      'version: 1',
      'environments:',
      '  platform:',
      '    dir: live/platform',
      '    aws:',
      '      region: eu-west-1',
      '      account_id: YOUR_ACCOUNT_ID',
      '      deployer_role_arn: arn:aws:iam::<account-id>:role/Deployer',
      '      state_bucket: REPLACE_ME',
      '    cluster: { name: TODO }',
      'manual_steps:',
      '  - id: token',
      '    description: Run aws sso login --profile <profile> and put your-token in SSM',
      '    check: [sh, -c, "test -n \\"$CHANGEME\\""]',
      '',
    ].join('\n');
    const result = parseConfig(text, FILE);
    const errors = errorsOf(result);
    expect(errors.map((e) => [e.keyPath, e.reason])).toEqual([
      ['environments.platform.aws.account_id', 'placeholder'],
      ['environments.platform.aws.deployer_role_arn', 'placeholder'],
      ['environments.platform.aws.state_bucket', 'placeholder'],
      ['environments.platform.cluster.name', 'placeholder'],
      ['manual_steps[0].check[2]', 'placeholder'],
    ]);
    expect(errors[0]).toMatchObject({
      message: expect.stringContaining('"YOUR_ACCOUNT_ID" is a placeholder') as unknown,
      location: { line: 7, column: 19 },
    });
    expect(errors[1]?.message).toContain('<account-id>');
  });

  it('reports a placeholder used as a key', () => {
    const text = `${MINIMAL}implicit_deps:\n  <env>/eks: [platform/vpc]\n`;
    const errors = errorsOf(parseConfig(text, FILE));
    expect(errors.map((e) => e.reason)).toEqual(['placeholder']);
    expect(errors[0]).toMatchObject({ keyPath: 'implicit_deps["<env>/eks"]', location: { line: 6, column: 3 } });
  });

  it('checks that lockdown, park, access and validate name declared environments', () => {
    const text = [
      MINIMAL.trimEnd(),
      'lockdown:',
      '  env: platfrom',
      'park:',
      '  prod: {}',
      'access:',
      '  platform: { principals: [] }',
      '  staging: { principals: [] }',
      'validate:',
      '  gateway: { namespace: gw, name: public, env: preprod }',
      '',
    ].join('\n');
    const result = parseConfig(text, FILE);
    expect(errorsOf(result).map((e) => [e.keyPath, e.reason, e.location?.line])).toEqual([
      ['lockdown.env', 'unknown-environment', 6],
      ['park.prod', 'unknown-environment', 8],
      ['access.staging', 'unknown-environment', 11],
      ['validate.gateway.env', 'unknown-environment', 13],
    ]);
    expect(errorAt(result, 'lockdown.env').hint).toBe('did you mean "platform"? (declared: platform)');
  });

  it("checks the environment part of unit ids; the rest is discovery's to check", () => {
    const text = `${MINIMAL}implicit_deps:\n  platform/cilium: [platfrom/eks, platform/not-a-unit-yet]\nunits:\n  preprod/eks: {}\n`;
    const result = parseConfig(text, FILE);
    expect(errorsOf(result).map((e) => e.keyPath)).toEqual(['implicit_deps.platform/cilium[0]', 'units.preprod/eks']);
    expect(errorAt(result, 'implicit_deps.platform/cilium[0]').location).toMatchObject({ line: 6, column: 21 });
  });

  it('refuses unit ids that are not normalised, wherever they are written, before any discovery', () => {
    const bad = [
      'platform/../../outside',
      'platform/./eks',
      'platform//eks',
      'platform/eks/',
      'platform/live\\eks',
      'platform/..',
    ];
    for (const id of bad) {
      const text =
        `${MINIMAL}lockdown:\n  env: platform\n  steps:\n    - { id: a, unit: ${JSON.stringify(id)} }\n` +
        `park:\n  platform:\n    node_group_units: [${JSON.stringify(id)}]\n`;
      const result = parseConfig(text, FILE);
      const step = errorAt(result, 'lockdown.steps[0].unit');
      expect(step.message, id).toMatch(/not a normalised unit id/);
      expect(step.location?.line, id).toBe(8);
      expect(errorAt(result, 'park.platform.node_group_units[0]').message, id).toMatch(/not a normalised unit id/);
    }
    const key = errorsOf(parseConfig(`${MINIMAL}units:\n  platform/../eks: {}\n`, FILE));
    expect(key.map((e) => [e.keyPath, e.location?.line])).toEqual([['units["platform/../eks"]', 6]]);
    expect(key[0]?.message).toMatch(/not a normalised unit id/);
    // A dot inside a name is fine.
    expect(parseConfig(`${MINIMAL}units:\n  platform/eu-west-1.eks/v1.2: {}\n`, FILE).ok).toBe(true);
  });

  it('refuses env dirs that are absolute, leave the root, or overlap', () => {
    const text = [
      'version: 1',
      'environments:',
      '  a: { dir: /abs/live }',
      '  b: { dir: ../elsewhere }',
      '  c: { dir: live/c }',
      '  d: { dir: live/c/inner }',
      '  e: { dir: ./live/c/ }',
      '',
    ].join('\n');
    const errors = errorsOf(parseConfig(text, FILE));
    expect(errors.map((e) => [e.keyPath, e.reason])).toEqual([
      ['environments.a.dir', 'bad-env-dir'],
      ['environments.b.dir', 'bad-env-dir'],
      ['environments.d.dir', 'overlapping-env-dirs'],
      ['environments.e.dir', 'overlapping-env-dirs'],
      ['environments.e.dir', 'overlapping-env-dirs'],
    ]);
    expect(errors[2]?.message).toBe(
      'environment d has a dir inside the dir of environment c (live/c/inner and live/c)',
    );
    expect(errors[3]?.message).toBe('environment e has the same dir as environment c (live/c and live/c)');
  });

  it('refuses duplicate step ids', () => {
    const text = `${MINIMAL}manual_steps:\n  - { id: a, description: A, check: [true] }\n  - { id: a, description: B, check: [true] }\n`;
    expect(errorAt(parseConfig(text, FILE), 'manual_steps[1].id')).toMatchObject({
      reason: 'duplicate-id',
      location: { line: 7, column: 11 },
    });
  });

  it('reports every error of a file at once, in file order', async () => {
    const file = path.join(FIXTURES, 'broken.yaml');
    const errors = errorsOf(parseConfig(await readFile(file, 'utf8'), file));
    expect(errors.map((e) => [e.location?.line, e.reason, e.keyPath])).toEqual([
      [3, 'unknown-key', 'unit_timout'],
      [9, 'placeholder', 'environments.platform.aws.account_id'],
      [11, 'invalid-type', 'parallelism.apply'],
      [13, 'unknown-environment', 'lockdown.env'],
      [15, 'invalid-value', 'lockdown.retry.interval'],
    ]);
    expect(errors.every((e) => e.location?.file === file)).toBe(true);
  });

  it('locates keys for later stages, and nothing for keys the file does not spell out', async () => {
    const file = path.join(FIXTURES, 'repo/.platctl.yaml');
    const result = parseConfig(await readFile(file, 'utf8'), file);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const { locate } = result.value;
    expect(locate(['implicit_deps', 'platform/cilium'])).toEqual({ file, line: 13, column: 3 });
    expect(locate(['implicit_deps', 'platform/cilium', 0])).toEqual({ file, line: 14, column: 7 });
    expect(locate(['units', 'platform/eks', 'timeout'])).toEqual({ file, line: 17, column: 5 });
    expect(locate(['implicit_deps', 'platform/nope'])).toBeUndefined();
    expect(locate(['parallelism'])).toBeUndefined();
  });
});

describe('findConfig', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'platctl-config-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('searches upward from the working directory', async () => {
    const found = await findConfig(path.join(FIXTURES, 'repo/live/platform/eks'));
    expect(found).toEqual({ ok: true, path: path.join(FIXTURES, 'repo/.platctl.yaml') });
  });

  it('prefers --config, resolved against the working directory', async () => {
    const found = await findConfig(path.join(FIXTURES, 'repo'), '../missing-dir/.platctl.yaml');
    expect(found).toEqual({ ok: true, path: path.join(FIXTURES, 'missing-dir/.platctl.yaml') });
  });

  it('says where it looked and what to do when there is no file', async () => {
    const deep = path.join(tmp, 'a/b');
    await mkdir(deep, { recursive: true });
    const found = await findConfig(deep);
    if (found.ok) throw new Error(`unexpectedly found ${found.path}`);
    expect(found.error.reason).toBe('not-found');
    expect(found.error.message).toBe(`no .platctl.yaml in ${deep} or any directory above it (searched up to /)`);
    expect(found.error.hint).toMatch(/\.platctl\.example\.yaml.*--config FILE/);
    expect(found.error.location).toBeUndefined();
  });

  it('points at a .platctl.yml it finds on the way', async () => {
    const dir = path.join(tmp, 'yml');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, '.platctl.yml'), MINIMAL);
    const found = await findConfig(dir);
    expect(found.ok ? undefined : found.error.hint).toMatch(/found .*\.platctl\.yml: rename it to \.platctl\.yaml/);
  });

  it('refuses a --config that does not exist or is a directory', async () => {
    const missing = await findConfig(tmp, 'nope.yaml');
    expect(missing.ok ? undefined : missing.error.message).toBe(
      `--config nope.yaml: ${path.join(tmp, 'nope.yaml')} does not exist`,
    );
    const directory = await findConfig(tmp, '.');
    expect(directory.ok ? undefined : directory.error.hint).toBe('pass the file itself: --config .platctl.yaml');
  });
});

describe('loadConfig', () => {
  it('loads a valid repository found upward from the working directory', async () => {
    const result = await loadConfig({ cwd: path.join(FIXTURES, 'repo/live/platform/eks') });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.value.root).toBe(path.join(FIXTURES, 'repo'));
    expect(result.value.config.unit_timeout).toBe(45 * 60_000);
    expect(result.value.config.units['platform/eks']?.timeout).toBe(90 * 60_000);
    expect(result.value.config.environments.platform?.aws?.account_id).toBe('123456789012');
  });

  it('reports environment dirs that are missing or not directories, with the resolved path', async () => {
    const root = path.join(FIXTURES, 'missing-dir');
    const result = await loadConfig({ cwd: root });
    const errors = errorsOf(result);
    expect(errors.map((e) => [e.keyPath, e.reason, e.location?.line])).toEqual([
      ['environments.preprod.dir', 'bad-env-dir', 7],
      ['environments.notes.dir', 'bad-env-dir', 9],
    ]);
    expect(errors[0]?.message).toBe(`environment preprod: dir ${path.join(root, 'live/preprod')} does not exist`);
    expect(errors[1]?.message).toBe(`environment notes: dir ${path.join(root, 'live/notes.txt')} is not a directory`);
    expect(errors[0]?.hint).toContain(root);
  });

  it('skips the filesystem when asked, and checkConfigFilesystem does it separately', async () => {
    const root = path.join(FIXTURES, 'missing-dir');
    const result = await loadConfig({ cwd: root, checkFilesystem: false });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const errors = await checkConfigFilesystem(result.value);
    expect(errors.map((e) => [e.keyPath, e.location?.line])).toEqual([
      ['environments.preprod.dir', 7],
      ['environments.notes.dir', 9],
    ]);
  });

  it('reports a missing file as a single not-found error', async () => {
    const result = await loadConfig({ cwd: FIXTURES, path: 'absent.yaml' });
    expect(errorsOf(result).map((e) => e.reason)).toEqual(['not-found']);
  });
});
