/**
 * Driving the built CLI (`bin/platctl.js`, compiled by `npm test`'s build step) against a copy of a fixture
 * repository, with the fake terragrunt from tests/fixtures/engine standing in for the real one.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { RunState } from '../../engine/state.js';
import { STATE_FILE, parseState } from '../../engine/state.js';
import { tempDir } from '../unit/engine/helpers.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = join(HERE, '..', '..');
export const PLATCTL = join(REPO_ROOT, 'bin', 'platctl.js');
export const ENGINE_FIXTURES = join(REPO_ROOT, 'tests', 'fixtures', 'engine');

/** Per-unit behaviour of the fake terragrunt (see tests/fixtures/engine/fake-terragrunt.mjs). */
export interface UnitBehaviour {
  sleep_ms?: number;
  fail?: boolean;
  exit_code?: number;
  ignore_signals?: boolean;
  grandchild?: boolean;
  say?: string[];
  /** Lines printed on stderr before a failure. */
  fail_say?: string[];
  /** Fail only while fewer than this many identical earlier calls are recorded. */
  fail_times?: number;
  /** A command (argument array, no shell) run to its end before the apply finishes. */
  exec?: string[];
  /** Overrides for calls whose Terraform arguments contain the key. */
  when_args?: Record<string, UnitBehaviour>;
  /** `state pull`: a state with this many managed resources (none: no state). */
  state_resources?: number;
  /** `state pull` fails as with an expired credential. */
  state_fail?: boolean;
  state_sleep_ms?: number;
}

/** One recorded call of the fake terragrunt. */
export interface Call {
  unit: string;
  command: 'apply' | 'destroy';
  argv: string[];
  tf_args: string[];
  cwd: string;
  pid: number;
  grandchild_pid: number | null;
  run_id: string;
  plugin_cache: string | null;
  /** The W3C trace context and Terragrunt's trace exporter settings it was started with (tracing: docs/tracing.md). */
  traceparent: string | null;
  trace_exporter: string | null;
  traces_endpoint: string | null;
  at: number;
}

export interface Sandbox {
  readonly root: string;
  readonly env: Record<string, string>;
  /** Sets the fake terragrunt's behaviour (read by each call). */
  control(units: Record<string, UnitBehaviour>, fallback?: UnitBehaviour): Promise<void>;
  /** Every call so far. */
  calls(): Promise<Call[]>;
  /** Runs platctl to completion. */
  run(args: readonly string[], extraEnv?: Record<string, string>): Promise<CliResult>;
  /** Starts platctl and returns the running subprocess. */
  start(args: readonly string[], extraEnv?: Record<string, string>): Started;
  state(): Promise<RunState>;
}

function launch(cwd: string, env: Record<string, string>, args: readonly string[]) {
  return execa('node', [PLATCTL, ...args], { cwd, env, extendEnv: false, reject: false, stdin: 'ignore' });
}

/** A running platctl. */
export type Started = ReturnType<typeof launch>;

export interface CliResult {
  readonly exitCode: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
}

/** Every unit of the `basic` sandbox (the default of {@link sandbox}), sorted. */
export const BASIC_UNITS: readonly string[] = [
  'platform/argocd',
  'platform/cilium',
  'platform/dns',
  'platform/ecr',
  'platform/eks',
  'platform/iam-roles',
  'platform/vpc',
];

/** Copies `tests/fixtures/engine/repos/<name>` to a temp dir wired to the fake terragrunt. */
export async function sandbox(name = 'basic'): Promise<Sandbox> {
  const base = await tempDir('platctl-int-');
  const root = join(base, 'repo');
  await cp(join(ENGINE_FIXTURES, 'repos', name), root, { recursive: true });
  const record = join(base, 'calls.ndjson');
  const controlFile = join(base, 'control.json');
  await writeFile(record, '');
  await writeFile(controlFile, '{}');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: base,
    NO_COLOR: '1',
    PLATCTL_TERRAGRUNT: join(ENGINE_FIXTURES, 'fake-terragrunt.mjs'),
    PLATCTL_TF_PATH: join(ENGINE_FIXTURES, 'fake-tofu.sh'),
    PLATCTL_KILL_GRACE: '2',
    FAKE_TG_RECORD: record,
    FAKE_TG_CONTROL: controlFile,
  };
  const start = (args: readonly string[], extraEnv: Record<string, string> = {}): Started =>
    launch(root, { ...env, ...extraEnv }, args);
  return {
    root,
    env,
    control: (units, fallback = {}) => writeFile(controlFile, JSON.stringify({ default: fallback, units })),
    calls: async () =>
      (await readFile(record, 'utf8'))
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Call),
    start,
    run: async (args, extraEnv) => {
      const result = await start(args, extraEnv);
      return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
    },
    state: async () => {
      const loaded = parseState(await readFile(join(root, STATE_FILE), 'utf8'));
      if (loaded.type !== 'ok') throw new Error(`state: ${JSON.stringify(loaded)}`);
      return loaded.state;
    },
  };
}

export { until } from '../helpers/wait.js';

/** The `Resume with:` command a failed run printed, as arguments after `platctl`. */
export function printedResumeArgs(output: string): string[] {
  const line = output.split('\n').find((l) => l.startsWith('Resume with: '));
  if (!line) throw new Error(`no resume command in:\n${output}`);
  const words = line.slice('Resume with: '.length).trim().split(/\s+/);
  if (words[0] !== 'platctl') throw new Error(`unexpected resume command: ${line}`);
  return words.slice(1);
}
