/**
 * bench/startup: how fast each verb answers, measured as a user runs it: the whole `node bin/platctl.js ...`
 * process, from spawn to exit, side by side with `node -e 0` (Node's own start-up) in the same rounds.
 *
 *   npm run build && node dist/bench/startup.js [--runs 11] [--units 5000] [--bin other/bin/platctl.js]...
 *
 * Every round runs every case once (interleaved), so a machine whose speed drifts affects all cases alike; the
 * table shows medians, and each ratio is the median of the per-round ratios to that round's `node -e 0`. With
 * several `--bin` (another build, e.g. main's), each is measured in the same rounds, for a before/after; each build
 * gets its own copies of the repositories, so one build's caches never evict another's. The load average is printed
 * before and after: on a shared machine it says how far to trust the absolute times (the ratios suffer less).
 * The `cpu` column is the process's CPU time (user and system, all its threads, from /proc): on a loaded machine
 * it moves much less than the wall time, and a cold run's CPU above its wall time shows it already uses both cores.
 *
 * Targets (issue 9, issue 27): `--version` <= 1.5x `node -e 0`, `kubeconfig token` (kubectl runs it before every
 * command; answered from the token cache but for the first call of each dozen minutes, shown as "signing") <= 1.5x, `--help` <= 2x; `status` <= 2.5x; `graph` of examples/platform,
 * warm, <= 3x; `graph` of 5,000 units (bench/discovery's generated repository) <= 1.5 s cold, <= 0.3 s warm. Warm
 * is the same command again over an unchanged repository; "snapshot" is the first run after a change elsewhere (the
 * discovery snapshot answers, the output is rendered and kept), shown without a target.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './discovery.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Case {
  readonly name: string;
  /** Arguments after `node` (the platctl binary is spliced in where `BIN` stands). */
  readonly args: readonly string[];
  readonly cwd: string;
  /** Run before each measured run, not timed (a cold cache). */
  readonly before?: () => void;
  /** Target: a ratio to `node -e 0` (`x`) or an absolute time (`ms`). */
  readonly target?: { readonly x: number } | { readonly ms: number };
  /** The exit code a correct run has. */
  readonly exit: number;
  /** Added to the environment of the run. */
  readonly env?: Readonly<Record<string, string>>;
}

const BIN = '<platctl>';

function option(args: readonly string[], name: string): string[] {
  const out: string[] = [];
  args.forEach((arg, i) => {
    if (arg === name && args[i + 1] !== undefined) out.push(args[i + 1]!);
  });
  return out;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Clock ticks per second of /proc's CPU times. */
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/**
 * CPU time (user and system, every thread) of this process's finished children, in ms, from /proc/self/stat;
 * undefined where there is no /proc. On a loaded machine a process's CPU time moves much less than its wall time.
 */
function childrenCpuMs(): number | undefined {
  try {
    // The fields after the command's closing parenthesis: the 14th and 15th of those are cutime and cstime.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[13]) + Number(fields[14]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Wall time and CPU time of one whole process, in ms (CPU undefined without /proc); throws when it does not exit as
 * a correct run would.
 */
function time(bin: string, c: Case): { ms: number; cpu: number | undefined } {
  c.before?.();
  const args = c.args.map((a) => (a === BIN ? bin : a));
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  const result = spawnSync(process.execPath, args, {
    cwd: c.cwd,
    env: { ...process.env, ...c.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ms = performance.now() - start;
  const cpuAfter = childrenCpuMs();
  if (result.status !== c.exit) {
    throw new Error(`${c.name} with ${bin}: exit ${result.status}, wanted ${c.exit}\n${String(result.stderr)}`);
  }
  return { ms, cpu: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore };
}

/** A copy of examples/platform with a completed bootstrap recorded (a stand-in terragrunt that applies at once). */
function platformCopy(work: string, bin: string): string {
  const root = join(work, 'platform');
  cpSync(join(REPO, 'examples', 'platform'), root, {
    recursive: true,
    filter: (src) => !src.includes('.platctl-cache') && !src.includes('.platctl-state'),
  });
  const fake = join(work, 'terragrunt');
  writeFileSync(fake, '#!/bin/sh\necho "Apply complete! Resources: 0 added, 0 changed, 0 destroyed."\n');
  chmodSync(fake, 0o755);
  // The stand-in runs nothing, so the machine's Terraform CLI settings must not stop it.
  const { TF_CLI_CONFIG_FILE: _config, TF_PLUGIN_CACHE_DIR: _cache, ...env } = process.env;
  const done = spawnSync(process.execPath, [bin, 'bootstrap'], {
    cwd: root,
    env: { ...env, PLATCTL_TERRAGRUNT: fake, PLATCTL_TF_PATH: '/bin/true', NO_COLOR: '1' },
    encoding: 'utf8',
  });
  if (done.status !== 0) throw new Error(`bootstrap of the example platform failed:\n${done.stdout}${done.stderr}`);
  return root;
}

/**
 * The cases for one build, in `dir`: its own copy of the example platform (bootstrapped, for `status`) and of the
 * generated repository of `units` units, so its caches are its own.
 */
function benchCases(dir: string, bin: string, units: number): Case[] {
  mkdirSync(dir, { recursive: true });
  const platform = platformCopy(dir, bin);
  const big = join(dir, `repo-${units}`);
  generate(big, units);
  // Static keys for the example's profile: an EKS token is a presigned URL, made without the network.
  const credentials = join(dir, 'aws-credentials');
  writeFileSync(credentials, '[platform-deployer]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = example\n');
  const tokenEnv = {
    AWS_SHARED_CREDENTIALS_FILE: credentials,
    AWS_CONFIG_FILE: join(dir, 'no-aws-config'),
    XDG_CACHE_HOME: join(dir, 'cache'),
  };
  const noCache = (root: string) => () => rmSync(join(root, '.platctl-cache'), { recursive: true, force: true });
  return [
    { name: 'node -e 0', args: ['-e', '0'], cwd: dir, exit: 0 },
    { name: 'platctl --version', args: [BIN, '--version'], cwd: dir, target: { x: 1.5 }, exit: 0 },
    { name: 'platctl --help', args: [BIN, '--help'], cwd: dir, target: { x: 2 }, exit: 0 },
    {
      // kubectl runs it before every command (the exec plugin of `platctl kubeconfig`): answered from the token
      // cache for all but the first call of each 12 minutes or so.
      name: 'platctl kubeconfig token (cached)',
      args: [BIN, 'kubeconfig', 'token', '--env', 'platform'],
      cwd: platform,
      env: tokenEnv,
      target: { x: 1.5 },
      exit: 0,
    },
    {
      // The first call, or every call with the cache off: the configuration, the credential chain and the signing.
      name: 'platctl kubeconfig token (signing)',
      args: [BIN, 'kubeconfig', 'token', '--env', 'platform'],
      cwd: platform,
      env: { ...tokenEnv, PLATCTL_TOKEN_CACHE: 'off' },
      exit: 0,
    },
    { name: 'platctl status', args: [BIN, 'status'], cwd: platform, target: { x: 2.5 }, exit: 0 },
    { name: 'platctl graph (example, warm)', args: [BIN, 'graph'], cwd: platform, target: { x: 3 }, exit: 0 },
    {
      name: `platctl graph (${units} units, cold)`,
      args: [BIN, 'graph'],
      cwd: big,
      before: noCache(big),
      target: { ms: 1500 },
      exit: 0,
    },
    {
      // The run right after a change: the snapshot answers, the output is rendered (and kept).
      name: `platctl graph (${units} units, snapshot)`,
      args: [BIN, 'graph'],
      cwd: big,
      before: () => rmSync(join(big, '.platctl-cache', 'rendered'), { recursive: true, force: true }),
      exit: 0,
    },
    {
      // Asked again, nothing changed: as a user runs it a second time.
      name: `platctl graph (${units} units, warm)`,
      args: [BIN, 'graph'],
      cwd: big,
      before: () => time(bin, { name: 'untimed', args: [bin, 'graph'], cwd: big, exit: 0 }),
      target: { ms: 300 },
      exit: 0,
    },
  ];
}

function main(): void {
  const argv = process.argv.slice(2);
  const runs = Number(option(argv, '--runs')[0] ?? 11);
  const units = Number(option(argv, '--units')[0] ?? 5000);
  const bins = option(argv, '--bin').map((b) => resolve(b));
  if (bins.length === 0) bins.push(join(REPO, 'bin', 'platctl.js'));

  const work = mkdtempSync(join(tmpdir(), 'platctl-bench-startup-'));
  const loadBefore = loadavg();
  try {
    const casesOf = new Map(bins.map((bin, i) => [bin, benchCases(join(work, `bin-${i}`), bin, units)]));
    const cases = casesOf.get(bins[0]!)!;
    // One untimed run of each fills the caches the warm cases rely on (and proves every case works).
    for (const bin of bins) for (const c of casesOf.get(bin)!) time(bin, c);

    const samples = new Map<string, number[]>();
    const cpuTimes = new Map<string, number[]>();
    const ratios = new Map<string, number[]>();
    const push = (map: Map<string, number[]>, key: string, value: number) =>
      map.set(key, [...(map.get(key) ?? []), value]);
    for (let round = 0; round < runs; round += 1) {
      for (const bin of bins) {
        const own = casesOf.get(bin)!;
        let baseline = 0;
        for (const c of own) {
          const { ms, cpu } = time(bin, c);
          const key = `${bin}\0${c.name}`;
          push(samples, key, ms);
          if (cpu !== undefined) push(cpuTimes, key, cpu);
          if (c === own[0]) baseline = ms;
          else push(ratios, key, ms / baseline);
        }
      }
    }

    const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(' ');
    const out: string[] = [
      `whole-process start-up, median of ${runs} interleaved rounds (${process.platform}, Node ${process.version}, ${cpus().length} cores)`,
      `load average before: ${load(loadBefore)}, after: ${load(loadavg())}`,
    ];
    bins.forEach((bin, i) => {
      out.push(
        '',
        `[${i + 1}] ${bin}`,
        `${'case'.padEnd(40)}${'median'.padStart(10)}${'vs node'.padStart(9)}${'cpu'.padStart(10)}  target`,
      );
      for (const c of cases) {
        const key = `${bin}\0${c.name}`;
        const ms = median(samples.get(key) ?? []);
        const ratio = ratios.has(key) ? median(ratios.get(key)!) : 1;
        const cpu = cpuTimes.has(key) ? `${median(cpuTimes.get(key)!).toFixed(0)} ms` : 'n/a';
        let verdict = '';
        if (c.target && 'x' in c.target) verdict = `<= ${c.target.x}x ${ratio <= c.target.x ? 'ok' : 'MISSED'}`;
        if (c.target && 'ms' in c.target) verdict = `<= ${c.target.ms} ms ${ms <= c.target.ms ? 'ok' : 'MISSED'}`;
        out.push(
          `${c.name.padEnd(40)}${`${ms.toFixed(0)} ms`.padStart(10)}${`${ratio.toFixed(2)}x`.padStart(9)}${cpu.padStart(10)}  ${verdict}`,
        );
      }
    });
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
