/**
 * bench/validate: `platctl validate` on a healthy fixture platform of 100 units, as a user runs it (a fresh
 * `node bin/platctl.js` process: config, discovery, every check), against moto's server and a real
 * kube-apiserver (built by `npm run tools:kube`); and `platctl validate --check tailscale`, which must touch nothing but the tailscale CLI.
 *
 *   npm run build && node dist/bench/validate.js [--units 100] [--runs 5] [--concurrency N] [--profile DIR]
 *
 * Targets (issue 5), 2-core machine: 100 units < 2 s; --check tailscale < 100 ms of validate work.
 * Prints wall-clock times of the whole process and the validate run's own duration (duration_ms of --json).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startKubeServer } from '../scripts/lib/kube-server.js';
import { installCrds } from '../tests/helpers/kube-crds.js';
import { application, daemonSet, gateway, namespace, node } from '../tests/helpers/kube-objects.js';
import { MOTO_ACCOUNT_ID, seedPlatform, startMoto } from '../tests/helpers/moto.js';

const here = fileURLToPath(new URL('.', import.meta.url));
// dist/bench -> repository root
const REPO = resolve(here, '..', '..');
const CLI = join(REPO, 'bin', 'platctl.js');
const FAKE_TAILSCALE = join(REPO, 'tests', 'fixtures', 'validate', 'fake-tailscale.sh');

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at === -1 ? undefined : Number(process.argv[at + 1]);
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

// The SDK's Node 20 notice is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const unitCount = flag('units', 100);
/** `--profile DIR`: write a V8 CPU profile of every platctl run there (node --cpu-prof). */
const profileAt = process.argv.indexOf('--profile');
const profileDir = profileAt === -1 ? undefined : resolve(process.argv[profileAt + 1] ?? 'validate-profiles');
const runs = flag('runs', 5);
const stateUnits = Array.from({ length: unitCount - 3 }, (_, i) => `svc-${String(i).padStart(3, '0')}`);

const root = mkdtempSync(join(tmpdir(), 'platctl-bench-validate-'));
const moto = await startMoto();
const kube = await startKubeServer();
await installCrds(kube, ['applications', 'gateways']);
for (const ns of ['argocd', 'gateway']) await kube.create(namespace(ns));
for (const object of [
  ...Array.from({ length: 20 }, (_, i) => node(`ip-10-0-0-${i}`)),
  daemonSet('kube-system', 'cilium', { desired: 20 }),
  ...Array.from({ length: 50 }, (_, i) => application(`app-${i}`)),
  gateway('gateway', 'public'),
]) {
  await kube.apply(object);
}
const http = createServer((_request, response) => response.writeHead(200).end('ok'));
await new Promise<void>((done) => http.listen(0, '127.0.0.1', () => done()));
const address = http.address();
const endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;

try {
  // The repository: one environment, eks + cilium + argocd + state-checked services, all with S3 remote state.
  writeFileSync(
    join(root, 'root.hcl'),
    `remote_state {\n  backend = "s3"\n  config = {\n    bucket = "tf-state-bench"\n    key    = "\${path_relative_to_include()}/terraform.tfstate"\n    region = "eu-west-1"\n  }\n}\n`,
  );
  for (const unit of ['eks', 'cilium', 'argocd', ...stateUnits]) {
    mkdirSync(join(root, 'live/platform', unit), { recursive: true });
    writeFileSync(
      join(root, 'live/platform', unit, 'terragrunt.hcl'),
      'include "root" {\n  path = find_in_parent_folders("root.hcl")\n}\n',
    );
  }
  writeFileSync(
    join(root, '.platctl.yaml'),
    `version: 1
environments:
  platform:
    dir: live/platform
    aws:
      region: eu-west-1
      account_id: "${MOTO_ACCOUNT_ID}"
      deployer_role_arn: arn:aws:iam::${MOTO_ACCOUNT_ID}:role/Deployer
      state_bucket: tf-state-bench
    cluster:
      name: platform
      kubeconfig_context: bench
validate:
  endpoints:
    - url: ${endpoint}
  dns_delegation:
    - zone: platform.example.com
  gateway: { namespace: gateway, name: public }
  tailscale: { binary: ${FAKE_TAILSCALE}, peers: [platform-bastion] }
`,
  );

  // AWS side in moto: the healthy platform of the validate integration test, with this bench's bucket and units.
  await seedPlatform(moto, { bucket: 'tf-state-bench', stateUnits });

  const env = {
    ...moto.childEnv(process.env),
    KUBECONFIG: kube.writeKubeconfig(root, { context: 'bench' }),
    NO_COLOR: '1',
  };
  // Asynchronous on purpose: the loopback servers live in this process and must keep answering.
  const run = promisify(execFile);
  const measure = async (
    args: string[],
  ): Promise<{ wallMs: number; validateMs: number; checks: number; healthy: boolean; slowest: string[] }> => {
    const started = performance.now();
    const nodeArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
    const { stdout } = await run(process.execPath, [...nodeArgs, CLI, ...args, '--json'], {
      cwd: root,
      env,
      encoding: 'utf8',
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '{}' }));
    const wallMs = performance.now() - started;
    const report = JSON.parse(stdout) as {
      healthy?: boolean;
      duration_ms?: number;
      checks?: { id: string; status: string; duration_ms: number }[];
    };
    if (!report.healthy) {
      const bad = (report.checks ?? []).filter((c) => c.status !== 'pass').map((c) => `${c.id}=${c.status}`);
      throw new Error(`validate was not healthy: ${bad.join(', ') || stdout.slice(0, 400)}`);
    }
    const slowest = [...(report.checks ?? [])]
      .sort((a, b) => b.duration_ms - a.duration_ms)
      .slice(0, 4)
      .map((c) => `${c.id} ${c.duration_ms}ms`);
    return {
      wallMs,
      validateMs: report.duration_ms ?? 0,
      checks: report.checks?.length ?? 0,
      healthy: report.healthy,
      slowest,
    };
  };

  const extra = process.argv.includes('--concurrency') ? ['--concurrency', String(flag('concurrency', 8))] : [];
  const cold = await measure(['validate', ...extra]);
  const full = [];
  for (let i = 0; i < runs; i += 1) full.push(await measure(['validate', ...extra]));
  const tailscale = [];
  for (let i = 0; i < runs; i += 1) tailscale.push(await measure(['validate', '--check', 'tailscale']));
  const summary = {
    units: unitCount,
    runs,
    full: {
      checks: cold.checks,
      healthy: full.every((r) => r.healthy) && cold.healthy,
      cold_wall_ms: Math.round(cold.wallMs),
      wall_ms_median: Math.round(median(full.map((r) => r.wallMs))),
      validate_ms_median: Math.round(median(full.map((r) => r.validateMs))),
      slowest_checks_last_run: full.at(-1)?.slowest,
    },
    check_tailscale: {
      checks: tailscale[0]?.checks,
      wall_ms_median: Math.round(median(tailscale.map((r) => r.wallMs))),
      validate_ms_median: Math.round(median(tailscale.map((r) => r.validateMs))),
    },
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
} finally {
  http.close();
  await kube.stop();
  await moto.stop();
  rmSync(root, { recursive: true, force: true });
}
