/**
 * `npm run demo:park` (scripts/demo-park.sh builds, then runs this as dist/scripts/demo-park.js): platctl down and
 * up against emulators, in one command. It starts moto (EKS node groups, EC2 instances, S3, STS) and a real
 * Kubernetes API server (etcd and kube-apiserver from .tools/bin, built by `npm run tools`; started by
 * scripts/lib/kube-server.ts, the start-up the tests use), seeds a parkable environment (two node groups, a bastion, a
 * Karpenter NodePool with its NodeClaim, a do-not-disrupt pod, an Argo CD application with auto-sync) while test
 * controllers play Karpenter, the garbage collector and the kubelet, writes `.demo/park/.platctl.yaml`,
 * then runs `platctl down --dry-run`, `down`, `status`, `up` and `status` there with their output as is, and stops
 * both emulators whatever happens. Exit code: 0 when down and up both succeeded. platctl reaches moto through the
 * tests' AWS proxy, which also answers SSM DescribeInstanceInformation (moto lacks it: up waits for the bastion's
 * agent to be Online, which the proxy reports while the instance runs).
 *
 * `--keep` (`npm run demo:park -- --keep`): after the sequence, both emulators keep running so `down`, `up`, `status`
 * and `validate` can be tried by hand; it prints the variables to export and the commands, and stops both emulators
 * on Ctrl-C or SIGTERM (`kill <pid>`, printed too).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAwsProxy } from '../tests/helpers/aws-proxy.js';
import type { AwsProxy } from '../tests/helpers/aws-proxy.js';
import { startMoto } from '../tests/helpers/moto.js';
import type { MotoServer } from '../tests/helpers/moto.js';
import { kubeServerUnavailable } from './lib/kube-server.js';
import type { ParkKube } from '../tests/helpers/park-fixture.js';
import { parkConfig, seedParkAws, startParkKube } from '../tests/helpers/park-fixture.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where the demo's repository goes; PLATCTL_DEMO_DIR moves it (the test of the demo uses a temporary one). */
const DEMO = process.env.PLATCTL_DEMO_DIR || join(REPO, '.demo', 'park');
// The SDK's notice about Node versions is not what the demo is about.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
const USAGE = 'usage: npm run demo:park [-- --keep]';

function step(title: string): void {
  process.stdout.write(color ? `\n\x1b[1m== ${title}\x1b[0m\n` : `\n== ${title}\n`);
}

/** Runs platctl with its output on ours; resolves to its exit code. */
function platctl(args: readonly string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin', 'platctl.js'), ...args], {
      cwd: DEMO,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal === 'SIGINT' ? 130 : 143)));
  });
}

/** `export` lines for what the demo's platctl runs got beyond the caller's environment, quoted for a POSIX shell. */
function exportLines(env: Readonly<Record<string, string>>): string[] {
  const quote = (value: string): string =>
    /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
  return Object.entries(env)
    .filter(([key, value]) => process.env[key] !== value)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `export ${key}=${quote(value)}`);
}

/** With --keep: says how to use the running emulators, then waits for Ctrl-C or SIGTERM. */
async function keepRunning(env: Readonly<Record<string, string>>, stopped: Promise<string>): Promise<void> {
  const config = join(DEMO, '.platctl.yaml');
  step('moto and the Kubernetes API keep running (--keep)');
  console.log('In another shell, export these (moto answers every AWS call; the credentials are its fixed test ones):');
  console.log('');
  for (const line of exportLines(env)) console.log(`  ${line}`);
  console.log('');
  console.log(`then try, with npx platctl from ${REPO} (or platctl on PATH):`);
  console.log('');
  for (const args of ['status', 'down --env platform --yes', 'up --env platform', 'validate --env platform']) {
    console.log(`  npx platctl ${args} --config ${config}`);
  }
  console.log('');
  console.log(`Ctrl-C here (or kill ${process.pid}) stops moto and the Kubernetes API.`);
  const signal = await stopped;
  console.log(`${signal}: stopping`);
}

async function main(keep: boolean): Promise<number> {
  let moto: MotoServer | undefined;
  let proxy: AwsProxy | undefined;
  let kube: ParkKube | undefined;
  // Ctrl-C reaches platctl too, which stops cleanly; this process only has to outlive it and clean up. With --keep,
  // a signal after the sequence ends the wait.
  let onStop: (signal: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => (onStop = resolve));
  const onSignal = (signal: string): void => onStop(signal);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    step('moto and a Kubernetes API server');
    moto = await startMoto();
    proxy = await startAwsProxy(moto.endpoint);
    const { bastionId } = await seedParkAws(moto.endpoint);
    kube = await startParkKube();
    console.log(`moto on ${moto.endpoint}: EKS cluster platform, node groups system (2/4/3) and workers (1/6/2),`);
    console.log(`  bastion ${bastionId}, state bucket park-state-platform`);
    console.log(`kube-apiserver on ${kube.server.url}: NodePool default with NodeClaim default-abc, pod apps/api-1`);
    console.log(
      '  (karpenter.sh/do-not-disrupt), Argo CD application karpenter with auto-sync; platctl runs as a user',
    );
    console.log(
      '  bound to the ClusterRole platctl-park of docs/park.md, and the demo plays Karpenter and the kubelet',
    );

    rmSync(DEMO, { recursive: true, force: true });
    mkdirSync(join(DEMO, 'live', 'platform'), { recursive: true });
    writeFileSync(join(DEMO, '.platctl.yaml'), parkConfig('    ready_namespaces: [kube-system]\n'));
    const env: Record<string, string> = {
      ...moto.childEnv(process.env),
      AWS_ENDPOINT_URL: proxy.endpoint,
      KUBECONFIG: kube.kubeconfig(DEMO),
    };
    console.log(`working in ${DEMO} (.platctl.yaml: park.platform)`);

    step('platctl down --env platform --dry-run');
    const dry = await platctl(['down', '--env', 'platform', '--dry-run'], env);
    step('platctl down --env platform --yes');
    const down = await platctl(['down', '--env', 'platform', '--yes'], env);
    step('platctl status');
    await platctl(['status'], env);
    if (dry !== 0 || down !== 0) return down || dry;
    step('platctl up --env platform');
    const up = await platctl(['up', '--env', 'platform'], env);
    step('platctl status');
    await platctl(['status'], env);
    if (keep && up === 0) await keepRunning(env, stopped);
    return up;
  } finally {
    step('cleaning up');
    await kube?.stop();
    await proxy?.close();
    await moto?.stop();
    console.log('stopped moto and the Kubernetes API');
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

const args = process.argv.slice(2);
const unavailable = kubeServerUnavailable();
if (args.some((arg) => arg !== '--keep')) {
  process.stderr.write(`demo:park: unknown argument ${args.find((arg) => arg !== '--keep')}\n${USAGE}\n`);
  process.exitCode = 2;
} else if (unavailable !== undefined) {
  process.stderr.write(`demo:park: ${unavailable}\n`);
  process.exitCode = 3;
} else {
  process.exitCode = await main(args.includes('--keep'));
}
