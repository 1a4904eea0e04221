/**
 * Driving the built CLI (`node bin/platctl.js`) the way a user does, against a temporary copy of examples/platform
 * and the real terragrunt and OpenTofu from `.tools/bin`.
 *
 * The tools reach platctl only through `PLATCTL_TERRAGRUNT` / `PLATCTL_TF_PATH`. The child's environment is built
 * from scratch: the caller's `TF_*`/`TG_*`/`TERRAGRUNT_*`/`PLATCTL_*` variables are dropped (this machine has
 * `TF_CLI_CONFIG_FILE` naming a missing file, which platctl refuses on purpose), `HOME` is a temp dir (terragrunt
 * keeps its provider cache under it), and every HTTP(S) proxy points at a closed loopback port, so a run that needed
 * the network fails instead of passing by luck.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, sep } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll } from 'vitest';
import { repoRoot, requireToolPaths } from './tools.js';

/** The CLI entry point a user runs (it imports the compiled dist/; `npm run test:e2e` builds first). */
export const platctlBin = join(repoRoot, 'bin', 'platctl.js');

/** What `cpSync` leaves out of the copy: anything a local run of the example may have left in the repository. */
const LEFT_OUT = new Set([
  '.platctl-cache',
  '.platctl-logs',
  '.platctl-state.json',
  '.platctl.lock',
  '.terragrunt-cache',
  '.terraform',
]);

/** A temporary copy of examples/platform with its own HOME. */
export interface Workspace {
  /** The temp dir holding everything below; processes and files are searched for under it. */
  readonly base: string;
  /** The copy of examples/platform: the repository root platctl runs in. */
  readonly root: string;
  readonly home: string;
}

/** Copies examples/platform (without state, logs or caches) into a fresh temp dir. */
export function copyExample(label: string): Workspace {
  const base = mkdtempSync(join(tmpdir(), `platctl-e2e-${label}-`));
  const root = join(base, 'platform');
  const home = join(base, 'home');
  mkdirSync(home);
  cpSync(join(repoRoot, 'examples', 'platform'), root, {
    recursive: true,
    filter: (source) => {
      const name = basename(source);
      return !LEFT_OUT.has(name) && !name.startsWith('.platctl-state.json') && !/\.tfstate(\.backup)?$/.test(name);
    },
  });
  return { base, root, home };
}

/**
 * Removes a workspace. Any process still running from it is SIGKILLed first (by pid: these are processes the test
 * started), so a failed test does not leave terragrunt behind to disturb the next one.
 */
export function removeWorkspace(ws: Workspace): void {
  for (const proc of processesUnder(ws.base)) {
    try {
      process.kill(proc.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(ws.base, { recursive: true, force: true });
}

/** The complete environment of a platctl child: see the file comment. */
export function platctlEnv(ws: Workspace, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const tools = requireToolPaths();
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(TF_|TG_|TERRAGRUNT_|PLATCTL_)/.test(key) || key === 'FORCE_COLOR') continue;
    env[key] = value;
  }
  const deadProxy = 'http://127.0.0.1:9';
  return {
    ...env,
    HOME: ws.home,
    HTTP_PROXY: deadProxy,
    HTTPS_PROXY: deadProxy,
    http_proxy: deadProxy,
    https_proxy: deadProxy,
    NO_PROXY: '',
    no_proxy: '',
    NO_COLOR: '1',
    PLATCTL_TERRAGRUNT: tools.terragrunt,
    PLATCTL_TF_PATH: tools.tofu,
    ...extra,
  };
}

export interface PlatctlRun {
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
}

export interface PlatctlOptions {
  /** Added to (or overriding) the environment `platctlEnv` builds. */
  readonly env?: Readonly<Record<string, string>>;
  /** Kill platctl after this long (default 240 s): a hung run fails the test instead of the suite's timeout. */
  readonly timeoutMs?: number;
}

/**
 * Starts `node bin/platctl.js <args>` in the workspace root, stdin closed and output captured (not a terminal). The
 * result is execa's subprocess: `pid` to signal it, awaited for `exitCode`, `stdout`, `stderr` (never rejects).
 */
export function startPlatctl(ws: Workspace, args: readonly string[], options: PlatctlOptions = {}) {
  return execa(process.execPath, [platctlBin, ...args], {
    cwd: ws.root,
    env: platctlEnv(ws, options.env),
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    timeout: options.timeoutMs ?? 240_000,
  });
}

/** Runs platctl to its end. */
export async function runPlatctl(
  ws: Workspace,
  args: readonly string[],
  options: PlatctlOptions = {},
): Promise<PlatctlRun> {
  const started = Date.now();
  const result = await startPlatctl(ws, args, options);
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    durationMs: Date.now() - started,
  };
}

/** A unit as `.platctl-state.json` records it (the fields the tests read). */
export interface UnitRecord {
  readonly status: string;
  readonly attempts: number;
  readonly wave: number;
  readonly log?: string;
  readonly started_at?: string;
  readonly ended_at?: string;
  readonly exit_code?: number;
  readonly error?: string;
  readonly reason?: string;
  readonly skipped_because?: string;
  readonly skip_reason?: string;
  readonly kept?: boolean;
  /** Named hooks that ran, by `<point>:<name>` (`before-unit:crd_two_stage`). */
  readonly hooks?: Readonly<
    Record<string, { readonly status: string; readonly ended_at: string; readonly detail?: string }>
  >;
}

/** One lockdown or unlock step as the state file records it. */
export interface LockStepRecord {
  readonly status: string;
  readonly attempts: number;
  readonly ended_at?: string;
  readonly error?: string;
  readonly log?: string;
}

export interface StateFile {
  readonly run_id: string;
  readonly command: string;
  readonly status: string;
  readonly resumes: number;
  readonly units: Readonly<Record<string, UnitRecord>>;
  /** The lockdown (after a bootstrap) or unlock (before a teardown) phase. */
  readonly lockdown?: {
    readonly direction: string;
    readonly status: string;
    readonly steps: Readonly<Record<string, LockStepRecord>>;
  };
}

export function readState(ws: Workspace): StateFile {
  return JSON.parse(readFileSync(join(ws.root, '.platctl-state.json'), 'utf8')) as StateFile;
}

/** `platctl status --json`. */
export interface StatusJson {
  readonly run: { readonly run_id: string; readonly command: string; readonly status: string } | null;
  readonly units: readonly (UnitRecord & { readonly id: string })[];
  readonly counts: Readonly<Record<string, number>> | null;
  readonly complete: boolean;
}

/** A unit of `platctl graph --format json`. */
export interface GraphUnit {
  readonly id: string;
  readonly dir: string;
  readonly dependencies: readonly string[];
  readonly dependents: readonly string[];
}

/** The discovered graph, from the CLI itself (no tool run). */
export async function readGraph(ws: Workspace): Promise<Map<string, GraphUnit>> {
  const run = await runPlatctl(ws, ['graph', '--format', 'json']);
  if (run.exitCode !== 0) throw new Error(`platctl graph failed (${String(run.exitCode)}): ${run.stderr}`);
  const graph = JSON.parse(run.stdout) as { units: GraphUnit[] };
  return new Map(graph.units.map((unit) => [unit.id, unit]));
}

/** A workspace and its graph, set up by {@link useExampleWorkspace}; valid inside tests, not at collection time. */
export interface ExampleWorkspace {
  readonly ws: Workspace;
  /** The example's units by id, as `platctl graph` discovered them in the workspace. */
  readonly graph: Map<string, GraphUnit>;
  /** The unit `id` of the graph; throws if the example has none, so a renamed unit fails loudly. */
  readonly unit: (id: string) => GraphUnit;
}

/**
 * Registers vitest hooks around the enclosing `describe`: copy examples/platform and read its graph before the tests,
 * remove the workspace (and anything still running in it) after them.
 */
export function useExampleWorkspace(label: string): ExampleWorkspace {
  let ws: Workspace | undefined;
  let graph: Map<string, GraphUnit> | undefined;
  const outside = (): never => {
    throw new Error('the example workspace exists only inside a test or hook');
  };
  beforeAll(async () => {
    ws = copyExample(label);
    graph = await readGraph(ws);
  });
  afterAll(() => {
    if (ws !== undefined) removeWorkspace(ws);
  });
  return {
    get ws() {
      return ws ?? outside();
    },
    get graph() {
      return graph ?? outside();
    },
    unit: (id) => {
      const found = (graph ?? outside()).get(id);
      if (found === undefined) throw new Error(`${id} is not in the example's graph`);
      return found;
    },
  };
}

/** Every unit that depends on `unit`, directly or not. */
export function transitiveDependents(graph: ReadonlyMap<string, GraphUnit>, unit: string): Set<string> {
  const out = new Set<string>();
  const queue = [...(graph.get(unit)?.dependents ?? [])];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (out.has(next)) continue;
    out.add(next);
    queue.push(...(graph.get(next)?.dependents ?? []));
  }
  return out;
}

/** The parts of an OpenTofu state file the tests read. */
export interface TfState {
  readonly serial: number;
  readonly lineage: string;
  readonly outputs: Readonly<Record<string, { readonly value: unknown }>>;
  readonly resources: readonly { readonly type: string; readonly name: string; readonly instances: unknown[] }[];
}

/** `<unit dir>/terraform.tfstate` (the example's root.hcl generates a local backend writing it there). */
export function tfStatePath(ws: Workspace, unit: GraphUnit): string {
  return join(ws.root, unit.dir, 'terraform.tfstate');
}

export function readTfState(ws: Workspace, unit: GraphUnit): TfState {
  return JSON.parse(readFileSync(tfStatePath(ws, unit), 'utf8')) as TfState;
}

/** Every file named `name` below `dir` (hidden directories and `.terragrunt-cache` included). */
export function findFiles(dir: string, name: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((rel) => basename(rel) === name)
    .map((rel) => join(dir, rel));
}

/** One process found in /proc. */
export interface ProcessInfo {
  readonly pid: number;
  readonly cmdline: string;
  readonly cwd: string;
}

/**
 * Live processes whose working directory, command line or environment mentions `dir`: terragrunt runs with
 * `--working-dir <unit>`, tofu and its provisioners run in `<unit>/.terragrunt-cache/...`, and every child of a
 * workspace's platctl inherits `HOME=<workspace>/home`, even one that changed directory or was reparented to init.
 * Zombies are left out (they are dead; only their parent has not reaped them yet).
 */
export function processesUnder(dir: string): ProcessInfo[] {
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  const found: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The state letter follows the parenthesised command name, which may itself contain spaces or parentheses.
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      let cwd = '';
      let environ = '';
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`);
        environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
      } catch {
        // a kernel thread, or a process of another user
      }
      if (cwd === dir || cwd.startsWith(prefix) || cmdline.includes(dir) || environ.includes(dir)) {
        found.push({ pid, cmdline, cwd });
      }
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** Polls `check` every 50 ms until it returns true or `ms` pass; returns its last answer. */
export async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** NDJSON events printed by `--json`. */
export function parseEvents(stdout: string): { readonly type: string; readonly [key: string]: unknown }[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { type: string });
}
