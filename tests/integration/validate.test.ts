/**
 * `platctl validate` end to end in-process: real configuration loading and discovery of a fixture repository, AWS
 * over moto's server (STS, S3 state objects, EKS DescribeCluster, Route 53), the cluster on a real Kubernetes API
 * server (as a user bound to exactly the ClusterRole docs/validate.md publishes), HTTP endpoints over a loopback
 * server, and Tailscale through a stand-in CLI. A TCP proxy in front of the API server counts connections and plays
 * the hung server.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ssoTokenFile } from '../../cloud/sso.js';
import type { ValidateJson } from '../../engine/reporters/validate.js';
import { runCli } from '../helpers/run-cli.js';
import { installCrds } from '../helpers/kube-crds.js';
import { application, daemonSet, gateway, namespace, node } from '../helpers/kube-objects.js';
import type { KubeProxy } from '../helpers/kube-proxy.js';
import { startKubeProxy } from '../helpers/kube-proxy.js';
import { bindClusterRole, documentedClusterRole } from '../helpers/kube-rbac.js';
import type { KubeObject } from '../helpers/kube-server.js';
import { kubeServerUnavailable, useKubeServer } from '../helpers/kube-server.js';
import type { SeedPlatformOptions } from '../helpers/moto.js';
import { MOTO_ACCOUNT_ID, seedPlatform, useMoto } from '../helpers/moto.js';
import { childrenOf, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { PROM_PARSER_MISSING, parseProm, sampleValue } from '../helpers/prom-parse.js';

const FAKE_TAILSCALE = join(import.meta.dirname, '../fixtures/validate/fake-tailscale.sh');
const UNITS = ['vpc', 'eks', 'cilium', 'argocd', 'dns', 'iam-roles'];
const STATE_UNITS = ['vpc', 'dns', 'iam-roles'];

const unavailable = kubeServerUnavailable();

let root: string;
let home: string;
let http: Server;
let httpBase: string;

const healthyNodes = () => [node('ip-10-0-1-1'), node('ip-10-0-1-2'), node('ip-10-0-1-3')];
const healthyApps = () => [application('root'), application('backstage'), application('monitoring')];
const healthyRest = () => [daemonSet('kube-system', 'cilium', { desired: 3 }), gateway('gateway', 'public')];

interface ConfigOptions {
  accountId?: string;
  profile?: string;
  stateBucket?: string;
  endpoints?: string;
  /** `validate.timeout` (default 20s). */
  timeout?: string;
}

/**
 * The fixture platform's `.platctl.yaml`. Its check timeout is generous: the first AWS check of a run also loads the
 * SDK in the child process, which took more than 3 s on Node 22 on a loaded 2-core machine (the test then failed with
 * "no answer within 3s" for a moto that answers in milliseconds). Tests of timeouts set their own, shorter ones (the
 * hung-API test: 3 s).
 */
function writeConfig(options: ConfigOptions = {}): void {
  const endpoints =
    options.endpoints ?? `    - url: ${httpBase}/ok\n    - url: ${httpBase}/login\n      expect: [200, 302]\n`;
  writeFileSync(
    join(root, '.platctl.yaml'),
    `version: 1
environments:
  platform:
    dir: live/platform
    aws:
${options.profile ? `      profile: ${options.profile}\n` : ''}      region: eu-west-1
      account_id: "${options.accountId ?? MOTO_ACCOUNT_ID}"
      deployer_role_arn: arn:aws:iam::${MOTO_ACCOUNT_ID}:role/Deployer
      state_bucket: ${options.stateBucket ?? 'tf-state-platform'}
    cluster:
      name: platform
      kubeconfig_context: fixture
validate:
  endpoints:
${endpoints}  dns_delegation:
    - zone: platform.example.com
  gateway:
    namespace: gateway
    name: public
  tailscale:
    binary: ${FAKE_TAILSCALE}
    peers: [platform-bastion]
  timeout: ${options.timeout ?? '20s'}
`,
  );
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'platctl-validate-'));
  home = join(root, 'home');
  mkdirSync(home);
  writeFileSync(
    join(root, 'root.hcl'),
    `remote_state {
  backend = "s3"
  config = {
    bucket = "tf-state-platform"
    key    = "\${path_relative_to_include()}/terraform.tfstate"
    region = "eu-west-1"
  }
}
`,
  );
  for (const unit of UNITS) {
    mkdirSync(join(root, 'live/platform', unit), { recursive: true });
    writeFileSync(
      join(root, 'live/platform', unit, 'terragrunt.hcl'),
      `include "root" {\n  path = find_in_parent_folders("root.hcl")\n}\n`,
    );
  }
  http = createServer((request, response) => {
    if (request.url === '/ok') return response.writeHead(200).end('ok');
    if (request.url === '/login') return response.writeHead(302, { location: '/sso' }).end();
    if (request.url === '/broken') return response.writeHead(500).end('internal error');
    // /hang never answers
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  const address = http.address();
  httpBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(unavailable !== undefined)(`platctl validate${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  const moto = useMoto();
  const kube = useKubeServer();
  let proxy: KubeProxy;
  let zones: { child: string[] };

  beforeAll(async () => {
    await installCrds(kube, ['applications', 'gateways']);
    await kube.create(namespace('argocd'));
    await kube.create(namespace('gateway'));
    await bindClusterRole(kube, documentedClusterRole('validate.md', 'platctl-validate'));
    proxy = await startKubeProxy(kube.url);
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
  });

  /** platctl reaches the cluster through the proxy, as the user bound to the documented ClusterRole. */
  /** With `token`, the kubeconfig (in a folder of its own) carries that token instead of the limited user's. */
  const env = (token?: string) => {
    const dir = token ? join(root, 'other-token') : root;
    mkdirSync(dir, { recursive: true });
    const user = token ? { token } : { user: 'limited' as const };
    return {
      ...moto.env,
      HOME: home,
      KUBECONFIG: kube.writeKubeconfig(dir, { context: 'fixture', server: proxy.url, ...user }),
      PATH: process.env.PATH,
    };
  };

  /** The cluster holds exactly `objects` of the kinds validate reads (status written as the kubelet would). */
  async function setCluster(objects: KubeObject[]): Promise<void> {
    for (const collection of [
      '/api/v1/nodes',
      '/apis/apps/v1/namespaces/kube-system/daemonsets',
      '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications',
      '/apis/gateway.networking.k8s.io/v1/namespaces/gateway/gateways',
    ]) {
      const res = await kube.request('DELETE', collection);
      if (res.status !== 200) throw new Error(`DELETE ${collection}: HTTP ${res.status}`);
    }
    for (const object of objects) await kube.apply(object);
  }

  /** The platform every test starts from; `options` breaks one part of it. */
  async function seed(options: Pick<SeedPlatformOptions, 'createBucket' | 'parentNs'> = {}): Promise<void> {
    const seeded = await seedPlatform(moto, { stateUnits: STATE_UNITS, serial: 3, ...options });
    zones = { child: seeded.child.nameServers };
  }

  beforeEach(async () => {
    await setCluster([...healthyNodes(), ...healthyApps(), ...healthyRest()]);
    writeConfig();
  });
  afterEach(() => {
    proxy.mode = 'forward';
  });

  async function validateJson(args: string[] = [], envOverrides: Record<string, string | undefined> = {}) {
    const run = await runCli(['validate', '--json', ...args], { cwd: root, env: { ...env(), ...envOverrides } });
    const report = run.stdout ? (JSON.parse(run.stdout) as ValidateJson) : undefined;
    const status = Object.fromEntries(
      (report?.checks ?? []).map((c) => [c.id, c.skipped_because ? `skip<-${c.skipped_because}` : c.status]),
    );
    return { run, report, status, byId: new Map((report?.checks ?? []).map((c) => [c.id, c])) };
  }

  it('passes a healthy platform: every check, exit 0', async () => {
    await seed();
    const { run, report, status } = await validateJson();
    expect(report?.checks.filter((c) => c.status !== 'pass')).toEqual([]);
    expect(run.stderr).toMatch(/^healthy: 15 of 15 checks passed/);
    expect(run.code).toBe(0);
    expect(report?.healthy).toBe(true);
    expect(status).toEqual({
      'iam/credentials:platform': 'pass',
      'iam/deployer_role:platform': 'pass',
      'iam/state_bucket:platform': 'pass',
      'cluster/api:platform': 'pass',
      'unit/argocd_apps:platform/argocd': 'pass',
      'unit/cilium_agent:platform/cilium': 'pass',
      'unit/state:platform/dns': 'pass',
      'unit/eks_cluster:platform/eks': 'pass',
      'unit/state:platform/iam-roles': 'pass',
      'unit/state:platform/vpc': 'pass',
      [`http/endpoint:${httpBase}/ok`]: 'pass',
      [`http/endpoint:${httpBase}/login`]: 'pass',
      'dns/delegation:platform.example.com': 'pass',
      'gateway/status:gateway/public': 'pass',
      'tailscale/status:local': 'pass',
    });
    expect(report?.checks.every((c) => typeof c.duration_ms === 'number')).toBe(true);
  });

  it('prints a table and a verdict without --json', async () => {
    await seed();
    const run = await runCli(['validate'], { cwd: root, env: env() });
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CHECK\s+TARGET\s+RESULT\s+TIME\s+MESSAGE$/);
    expect(lines.find((l) => l.startsWith('unit/eks_cluster'))).toMatch(
      /^unit\/eks_cluster\s+platform\/eks\s+PASS\s+\d+ms\s+platform ACTIVE.*3 nodes Ready$/,
    );
    expect(lines.at(-1)).toMatch(/^healthy: \d+ of \d+ checks passed/);
  });

  it('an expired SSO session is one failure with the login command; the rest of the environment is skipped', async () => {
    await seed();
    writeConfig({ profile: 'sso-platform' });
    moto.writeConfig(
      '[profile sso-platform]\nsso_start_url = https://corp.awsapps.com/start\nsso_region = eu-west-1\nsso_account_id = 123456789012\nsso_role_name = Admin\n',
    );
    mkdirSync(join(home, '.aws/sso/cache'), { recursive: true });
    writeFileSync(
      ssoTokenFile('https://corp.awsapps.com/start', { HOME: home }),
      JSON.stringify({ accessToken: 'secret', expiresAt: '2020-01-01T00:00:00Z', region: 'eu-west-1' }),
    );
    const { run, report, status, byId } = await validateJson();
    expect(run.code).toBe(1);
    expect(report?.healthy).toBe(false);
    const failures = report?.checks.filter((c) => c.status === 'fail' || c.status === 'error') ?? [];
    expect(failures.map((c) => c.id)).toEqual(['iam/credentials:platform']);
    expect(byId.get('iam/credentials:platform')?.message).toBe(
      'the SSO session of profile sso-platform expired at 2020-01-01T00:00:00.000Z',
    );
    expect(byId.get('iam/credentials:platform')?.hint).toBe('run `aws sso login --profile sso-platform`');
    for (const id of [
      'iam/deployer_role:platform',
      'cluster/api:platform',
      'unit/eks_cluster:platform/eks',
      'unit/state:platform/vpc',
      'dns/delegation:platform.example.com',
      'gateway/status:gateway/public',
    ]) {
      expect(status[id], id).toBe('skip<-iam/credentials:platform');
    }
    // Checks that need no AWS still run.
    expect(status['tailscale/status:local']).toBe('pass');
    expect(status[`http/endpoint:${httpBase}/ok`]).toBe('pass');
  });

  it('refuses the wrong account', async () => {
    await seed();
    writeConfig({ accountId: '111111111111' });
    const { run, status, byId } = await validateJson();
    expect(run.code).toBe(1);
    expect(status['iam/credentials:platform']).toBe('fail');
    expect(byId.get('iam/credentials:platform')?.message).toContain(`are for account ${MOTO_ACCOUNT_ID}`);
    expect(status['unit/state:platform/vpc']).toBe('skip<-iam/credentials:platform');
  });

  it('an unreadable state bucket fails phase 1 and skips the units', async () => {
    await seed({ createBucket: false });
    const { run, status, byId } = await validateJson();
    expect(run.code).toBe(1);
    expect(status['iam/state_bucket:platform']).toBe('fail');
    expect(byId.get('iam/state_bucket:platform')?.message).toBe('bucket tf-state-platform does not exist');
    expect(status['iam/deployer_role:platform']).toBe('pass');
    expect(status['unit/eks_cluster:platform/eks']).toBe('skip<-iam/state_bucket:platform');
    expect(status['unit/state:platform/iam-roles']).toBe('skip<-iam/state_bucket:platform');
  });

  it('names what is broken: a NotReady node, an OutOfSync/Degraded app, a 500, a hung endpoint, an NS mismatch', async () => {
    await seed({ parentNs: ['ns-1.stale-zone.example.net.', 'ns-2.stale-zone.example.net.'] });
    writeConfig({
      endpoints: `    - url: ${httpBase}/broken\n    - url: ${httpBase}/hang\n      timeout: 400ms\n`,
    });
    await setCluster([
      node('ip-10-0-1-1'),
      node('ip-10-0-1-2', false),
      application('root'),
      application('backstage', 'OutOfSync', 'Degraded', 'argocd', 'Deployment backstage has 0 available replicas'),
      ...healthyRest(),
    ]);
    const started = Date.now();
    const { run, status, byId } = await validateJson();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.code).toBe(1);
    expect(status['unit/eks_cluster:platform/eks']).toBe('fail');
    expect(byId.get('unit/eks_cluster:platform/eks')?.message).toBe('1 of 2 nodes not Ready: ip-10-0-1-2');
    expect(status['unit/argocd_apps:platform/argocd']).toBe('fail');
    expect(byId.get('unit/argocd_apps:platform/argocd')?.details).toEqual([
      'backstage: OutOfSync/Degraded (Deployment backstage has 0 available replicas)',
    ]);
    expect(byId.get(`http/endpoint:${httpBase}/broken`)).toMatchObject({
      status: 'fail',
      message: 'HTTP 500, expected 200',
    });
    expect(byId.get(`http/endpoint:${httpBase}/hang`)).toMatchObject({
      status: 'fail',
      message: 'no answer within 0.4s',
    });
    const dns = byId.get('dns/delegation:platform.example.com');
    expect(dns?.status).toBe('fail');
    expect(dns?.message).toMatch(
      /^Route 53 zone example\.com \(\w+\) delegates platform\.example\.com to other name servers/,
    );
    expect(dns?.details?.[0]).toBe('parent: ns-1.stale-zone.example.net, ns-2.stale-zone.example.net');
    expect(dns?.details?.[1]).toContain([...zones.child].sort().join(', '));
    // Healthy parts stay green.
    expect(status['unit/cilium_agent:platform/cilium']).toBe('pass');
    expect(status['gateway/status:gateway/public']).toBe('pass');
  });

  it('a hung Kubernetes API times out the cluster gate instead of hanging', async () => {
    writeConfig({ timeout: '3s' });
    await seed();
    proxy.mode = 'hang';
    const started = Date.now();
    const { run, status } = await validateJson(['--check', 'unit/cilium']);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.code).toBe(1);
    expect(status).toEqual({
      'iam/credentials:platform': 'pass',
      'iam/deployer_role:platform': 'pass',
      'iam/state_bucket:platform': 'pass',
      'cluster/api:platform': 'fail',
      'unit/cilium_agent:platform/cilium': 'skip<-cluster/api:platform',
    });
  });

  it('a cluster that rejects the token fails the cluster gate only: S3 is still checked', async () => {
    await seed();
    // A token the API server does not know: its own 401.
    // One check at a time: the gate runs before the state checks that could be swept away with it.
    const { run, status, byId } = await validateJson(['--concurrency', '1'], {
      KUBECONFIG: env('not-a-token-this-server-knows').KUBECONFIG,
    });
    expect(run.code).toBe(1);
    expect(status).toMatchObject({
      'cluster/api:platform': 'error',
      'unit/eks_cluster:platform/eks': 'skip<-cluster/api:platform',
      'unit/cilium_agent:platform/cilium': 'skip<-cluster/api:platform',
      'gateway/status:gateway/public': 'skip<-cluster/api:platform',
      // A 401 from the cluster says nothing about the AWS credentials, which STS just accepted.
      'unit/state:platform/vpc': 'pass',
      'unit/state:platform/dns': 'pass',
      'unit/state:platform/iam-roles': 'pass',
      'dns/delegation:platform.example.com': 'pass',
    });
    expect(byId.get('cluster/api:platform')?.message).toContain('401');
    expect(byId.get('cluster/api:platform')?.hint).toMatch(/access entr/);
  });

  it('with an OTLP endpoint: a trace of validate -> checks <phase> -> check <id>, with the result', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const { run } = await validateJson(['--check', 'tailscale'], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
      expect(run.code).toBe(0);
      const root = receiver.spans.find((s) => s.name === 'platctl validate')!;
      expect(root.attributes).toMatchObject({ 'platctl.exit_code': 0 });
      const phases = childrenOf(receiver.spans, root);
      expect(phases).toHaveLength(1);
      const checks = childrenOf(receiver.spans, phases[0]!);
      expect(checks.map((c) => c.name)).toEqual(['check tailscale/status:local']);
      expect(checks[0]!.attributes).toMatchObject({ 'platctl.result': 'pass', 'platctl.check': 'tailscale/status' });
    } finally {
      await receiver.close();
    }
  });

  it('--check tailscale touches nothing else: no AWS, no cluster, no discovery', async () => {
    rmSync(join(root, '.platctl-cache'), { recursive: true, force: true });
    const before = proxy.connections;
    const started = performance.now();
    const { run, status } = await validateJson(['--check', 'tailscale'], { AWS_ENDPOINT_URL: 'http://127.0.0.1:1' });
    const elapsed = performance.now() - started;
    expect(run.code).toBe(0);
    expect(status).toEqual({ 'tailscale/status:local': 'pass' });
    expect(proxy.connections).toBe(before);
    // No discovery: neither of its caches was written (the validated .platctl.yaml may be cached).
    expect(existsSync(join(root, '.platctl-cache', 'units.json'))).toBe(false);
    expect(existsSync(join(root, '.platctl-cache', 'hcl-parse.json'))).toBe(false);
    expect(elapsed).toBeLessThan(2000);
  });

  it('--dry-run lists which check each unit gets and calls nothing: no AWS, no cluster', async () => {
    const before = proxy.connections;
    const text = await runCli(['validate', '--dry-run'], {
      cwd: root,
      env: { HOME: home, AWS_ENDPOINT_URL: 'http://127.0.0.1:1', PATH: process.env.PATH },
    });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^unit\/eks_cluster +platform\/eks +units /m);
    expect(text.stdout).toMatch(/^unit\/state +platform\/vpc +units /m);
    expect(text.stdout).toContain('nothing was called (--dry-run)');
    const json = await runCli(['validate', '--dry-run', '--json', '--check', 'unit/'], {
      cwd: root,
      env: { HOME: home, AWS_ENDPOINT_URL: 'http://127.0.0.1:1', PATH: process.env.PATH },
    });
    expect(json.code).toBe(0);
    const plan = JSON.parse(json.stdout) as { checks: { id: string; requires: string[] }[] };
    expect(plan.checks.map((c) => c.id)).toContain('unit/cilium_agent:platform/cilium');
    expect(plan.checks.find((c) => c.id === 'unit/argocd_apps:platform/argocd')?.requires).toContain(
      'cluster/api:platform',
    );
    expect(proxy.connections).toBe(before);
  });

  it.skipIf(PROM_PARSER_MISSING !== undefined)(
    `--metrics-file writes every check, the duration and the last success, kept when a later run fails${PROM_PARSER_MISSING ? ` (skipped: ${PROM_PARSER_MISSING})` : ''}`,
    async () => {
      await seed();
      mkdirSync(join(root, 'textfile'), { recursive: true });
      const file = join(root, 'textfile', 'validate.prom');
      const healthy = await runCli(['validate', '--metrics-file', 'textfile/validate.prom'], { cwd: root, env: env() });
      expect(healthy.code).toBe(0);
      let samples = await parseProm(readFileSync(file, 'utf8'));
      const checks = samples.filter((s) => s.name === 'platctl_validate_check_ok');
      expect(checks).toHaveLength(15);
      expect(checks.every((c) => c.value === 1)).toBe(true);
      expect(
        sampleValue(samples, 'platctl_validate_check_ok', { env: 'platform', check: 'unit/eks_cluster:platform/eks' }),
      ).toBe(1);
      // A check of no environment has an empty env label.
      expect(sampleValue(samples, 'platctl_validate_check_ok', { env: '', check: 'tailscale/status:local' })).toBe(1);
      expect(sampleValue(samples, 'platctl_validate_duration_seconds', { env: 'platform' })).toBeGreaterThan(0);
      expect(sampleValue(samples, 'platctl_run_exit_code', { verb: 'validate', env: 'platform' })).toBe(0);
      const success = sampleValue(samples, 'platctl_run_last_success_timestamp_seconds', {
        verb: 'validate',
        env: 'platform',
      });
      expect(success).toBeGreaterThan(Date.now() / 1000 - 600);

      writeConfig({ endpoints: `    - url: ${httpBase}/broken\n` });
      const unhealthy = await runCli(['validate', '--metrics-file', file], { cwd: root, env: env() });
      expect(unhealthy.code).toBe(1);
      samples = await parseProm(readFileSync(file, 'utf8'));
      expect(sampleValue(samples, 'platctl_validate_check_ok', { check: `http/endpoint:${httpBase}/broken` })).toBe(0);
      expect(sampleValue(samples, 'platctl_run_exit_code', { verb: 'validate' })).toBe(1);
      expect(
        sampleValue(samples, 'platctl_run_duration_seconds', { env: 'platform', result: 'failure' }),
      ).toBeGreaterThan(0);
      expect(sampleValue(samples, 'platctl_run_last_success_timestamp_seconds', { env: 'platform' })).toBe(success);

      const missing = await runCli(['validate', '--metrics-file', 'nowhere/validate.prom'], { cwd: root, env: env() });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(
        /^platctl: --metrics-file nowhere\/validate\.prom: the directory .* does not exist/,
      );
    },
  );

  it('usage errors exit 2', async () => {
    const none = await runCli(['validate', '--check', 'nope'], { cwd: root, env: env() });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--check nope: no check id starts with it');
    const badConcurrency = await runCli(['validate', '--concurrency', '0'], { cwd: root, env: env() });
    expect(badConcurrency.code).toBe(2);
    const badEnv = await runCli(['validate', '--check', 'tailscale', '--env', 'platfrom'], { cwd: root, env: env() });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain('did you mean platform?');
  });
});
