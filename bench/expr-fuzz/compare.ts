/**
 * The comparing half of the differential expression fuzzer: evaluates one generated repository with platctl's
 * discovery and with real Terragrunt, and classifies every probe unit.
 *
 * platctl's side is `discover()`, the function behind `platctl graph --format json`, called in-process so one
 * probe's evaluation error does not hide the other probes' edges (the CLI refuses the whole graph on any error).
 * Terragrunt's side is `terragrunt find --dag --json --dependencies --external` over the whole repository (one
 * start-up for every probe); `find` drops a unit's dependencies silently when its configuration does not evaluate,
 * so every probe `find` shows without a dependency is asked again with `terragrunt render --json`, whose exit code
 * and message tell an evaluation error from a real absence.
 *
 * Both sides run in child processes with a memory cap and a time limit (a generated expression once drove
 * `terragrunt render` to 22 GB): terragrunt under `prlimit --as` (a Go binary reserves little address space it does
 * not use), platctl's discovery (bench/expr-fuzz/platctl-side.ts) under `prlimit --data`, because V8 reserves
 * gigabytes of address space for WebAssembly up front and would not start under an address-space cap; the data
 * limit counts only memory actually made writable.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { FUZZ_ENV } from './generate.js';
import type { Manifest, ProbeRecord } from './generate.js';

/** What one tool made of one probe: the targets it depends on, or the error that stopped it. */
export type Outcome =
  { readonly ok: true; readonly targets: readonly string[] } | { readonly ok: false; readonly error: string };

export type Verdict =
  /** Both reached the same targets, or both refused the expression. */
  | 'agree'
  /** Both evaluated it, to different targets: a wrong edge. */
  | 'different-edge'
  /** Terragrunt evaluated it; platctl refused valid HCL. */
  | 'platctl-refuses'
  /** platctl evaluated it; Terragrunt refused it (platctl accepted invalid HCL). */
  | 'platctl-accepts'
  /** The expression calls run_cmd, which platctl refuses offline by design. */
  | 'run-cmd';

export interface ProbeResult {
  readonly seed: number;
  readonly probe: ProbeRecord;
  readonly platctl: Outcome;
  readonly terragrunt: Outcome;
  readonly verdict: Verdict;
  /**
   * When platctl refuses a probe `find` drew an edge for: the error `terragrunt render` reports for the same unit
   * (undefined when render evaluates it). `find` can draw an edge over a local that does not evaluate, which
   * render and every run refuse (see known.ts).
   */
  readonly renderError?: string;
}

interface FoundComponent {
  readonly type: string;
  readonly path: string;
  readonly dependencies?: readonly string[];
}

/** The environment for terragrunt: nothing inherited that could steer it (TF_/TG_ settings), a throwaway HOME. */
export function toolEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(TF_|TG_|TERRAGRUNT_|PLATCTL_FUZZ_)/.test(key)) env[key] = value;
  }
  return { ...env, HOME: home, NO_COLOR: '1' };
}

/** Target names a probe's dependency paths point at (`targets/7` gives `7`), sorted; other paths kept whole. */
export function targetNames(root: string, paths: readonly string[]): string[] {
  const targets = resolve(root, FUZZ_ENV, 'targets') + sep;
  return [...new Set(paths.map((p) => (p.startsWith(targets) ? p.slice(targets.length) : p)))].sort();
}

/** Memory caps (bytes) and the time limit (ms) of one tool run. */
export const LIMITS = { terragruntAddressSpace: 4_000_000_000, platctlData: 4_000_000_000, timeout: 180_000 };

/** The compiled platctl side: next to this file when it runs from dist/, in dist/ when it runs from source. */
function platctlSideScript(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, 'platctl-side.js');
  if (existsSync(beside)) return beside;
  const built = resolve(here, '..', '..', 'dist', 'bench', 'expr-fuzz', 'platctl-side.js');
  if (existsSync(built)) return built;
  throw new Error(`${built} does not exist: run "npm run build" first`);
}

/** Why a capped run ended without its answer, or undefined when it ran to the end. */
function capped(
  run: { timedOut?: boolean; signal?: string | undefined; stderr: unknown },
  what: string,
): string | undefined {
  if (run.timedOut === true) return `${what} ran longer than ${LIMITS.timeout / 1000} s and was stopped`;
  if (run.signal !== undefined) return `${what} was killed by ${run.signal} (memory cap reached?)`;
  if (/out of memory|cannot allocate memory|heap out of memory/i.test(String(run.stderr)))
    return `${what} ran out of its memory cap`;
  return undefined;
}

async function platctlOutcomes(root: string): Promise<Map<string, Outcome>> {
  const run = await execa(
    'prlimit',
    [`--data=${LIMITS.platctlData}`, '--', process.execPath, platctlSideScript(), root],
    { reject: false, timeout: LIMITS.timeout, stripFinalNewline: true },
  );
  const stopped = capped(run, 'platctl');
  if (stopped !== undefined) throw new Error(`${stopped} on ${root}`);
  if (run.exitCode !== 0) throw new Error(`platctl's side failed on ${root}: ${String(run.stderr).slice(-2000)}`);
  return new Map(Object.entries(JSON.parse(String(run.stdout)) as Record<string, Outcome>));
}

/** Runs terragrunt with a bounded time; the result, never a throw. */
async function terragrunt(
  binary: string,
  args: readonly string[],
  cwd: string,
  home: string,
): Promise<{ exitCode: number; stdout: string; stderr: string; capped: boolean }> {
  const run = await execa('prlimit', [`--as=${LIMITS.terragruntAddressSpace}`, '--', binary, ...args], {
    cwd,
    env: toolEnv(home),
    extendEnv: false,
    reject: false,
    timeout: LIMITS.timeout,
    stripFinalNewline: true,
  });
  const stopped = capped(run, 'terragrunt');
  return {
    exitCode: run.exitCode ?? -1,
    stdout: String(run.stdout),
    stderr: stopped ?? String(run.stderr),
    capped: stopped !== undefined,
  };
}

/** The last error line of a terragrunt run, trimmed of log decoration. */
function errorLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const error = lines.filter((l) => /error/i.test(l));
  return (error.join(' | ') || lines.slice(-3).join(' | ') || 'failed without a message').slice(0, 600);
}

async function terragruntOutcomes(
  root: string,
  binary: string,
  home: string,
  probes: readonly ProbeRecord[],
): Promise<Map<string, Outcome>> {
  const found = await terragrunt(
    binary,
    ['find', '--dag', '--json', '--dependencies', '--external', '--no-color', '--working-dir', root],
    root,
    home,
  );
  if (found.exitCode !== 0) throw new Error(`terragrunt find failed in ${root}: ${errorLine(found.stderr)}`);
  const components = JSON.parse(found.stdout) as FoundComponent[];
  const out = new Map<string, Outcome>();
  for (const component of components) {
    if (component.type !== 'unit') continue;
    const unit = resolve(root, component.path)
      .slice(resolve(root, FUZZ_ENV).length + 1)
      .split(sep)
      .join('/');
    out.set(unit, {
      ok: true,
      targets: targetNames(
        root,
        (component.dependencies ?? []).map((d) => resolve(root, d)),
      ),
    });
  }
  // A probe always names a target; none means its configuration did not evaluate: ask render why.
  const silent = probes.filter((p) => {
    const outcome = out.get(p.unit);
    return outcome?.ok === true && outcome.targets.length === 0;
  });
  for (const probe of silent) {
    const error = await renderError(root, binary, home, probe);
    if (error !== undefined) out.set(probe.unit, { ok: false, error });
  }
  return out;
}

/** The error `terragrunt render` reports for a probe's unit; undefined when it renders. */
async function renderError(
  root: string,
  binary: string,
  home: string,
  probe: ProbeRecord,
): Promise<string | undefined> {
  const dir = resolve(root, FUZZ_ENV, probe.unit);
  const rendered = await terragrunt(binary, ['render', '--json', '--no-color', '--working-dir', dir], dir, home);
  // render reports some evaluation errors (an unsupported attribute in `dependencies`) and still exits 0 with
  // the block dropped: an error it logged counts as a refusal.
  if (rendered.exitCode !== 0 || /\bERROR\s+Error:/.test(rendered.stderr)) return errorLine(rendered.stderr);
  return undefined;
}

function verdict(probe: ProbeRecord, platctl: Outcome, terragrunt: Outcome): Verdict {
  if (probe.runCmd) return 'run-cmd';
  if (platctl.ok && terragrunt.ok) {
    return platctl.targets.join(',') === terragrunt.targets.join(',') ? 'agree' : 'different-edge';
  }
  if (!platctl.ok && !terragrunt.ok) return 'agree';
  return platctl.ok ? 'platctl-accepts' : 'platctl-refuses';
}

/** Evaluates a generated repository with both tools and classifies each probe. */
export async function compareRepository(
  root: string,
  manifest: Manifest,
  tools: { readonly terragrunt: string; readonly home: string },
): Promise<ProbeResult[]> {
  const [ours, theirs] = await Promise.all([
    platctlOutcomes(root),
    terragruntOutcomes(root, tools.terragrunt, tools.home, manifest.probes),
  ]);
  const results: ProbeResult[] = [];
  for (const probe of manifest.probes) {
    const platctl = ours.get(probe.unit) ?? { ok: false, error: 'platctl did not discover the unit' };
    const terragrunt = theirs.get(probe.unit) ?? { ok: false, error: 'terragrunt find did not list the unit' };
    const result = { seed: manifest.seed, probe, platctl, terragrunt, verdict: verdict(probe, platctl, terragrunt) };
    // Rare (a few in a thousand probes): one render each, to tell find's edge over a broken local from a refusal.
    const error =
      result.verdict === 'platctl-refuses' ? await renderError(root, tools.terragrunt, tools.home, probe) : undefined;
    results.push(error === undefined ? result : { ...result, renderError: error });
  }
  return results;
}

/** Agreement over the probes that count (run_cmd probes are reported apart). */
export function summarize(results: readonly ProbeResult[]): {
  counted: number;
  agreed: number;
  rate: number;
  byVerdict: Record<Verdict, number>;
} {
  const byVerdict: Record<Verdict, number> = {
    agree: 0,
    'different-edge': 0,
    'platctl-refuses': 0,
    'platctl-accepts': 0,
    'run-cmd': 0,
  };
  for (const result of results) byVerdict[result.verdict] += 1;
  const counted = results.length - byVerdict['run-cmd'];
  return { counted, agreed: byVerdict.agree, rate: counted === 0 ? 1 : byVerdict.agree / counted, byVerdict };
}

/** A difference as a few readable lines: where, what each tool said, and the expression. */
export function describeResult(result: ProbeResult): string {
  const show = (o: Outcome): string => (o.ok ? `targets [${o.targets.join(', ')}]` : `error: ${o.error}`);
  return [
    `seed ${result.seed} ${result.probe.unit}: ${result.verdict}`,
    `  platctl:    ${show(result.platctl)}`,
    `  terragrunt: ${show(result.terragrunt)}`,
    ...(result.renderError === undefined ? [] : [`  render:     error: ${result.renderError}`]),
    ...result.probe.locals.map((l) => `  local.${l}`),
    `  ${result.probe.block === 'dependency' ? 'config_path' : 'paths[0]'} = ${result.probe.expression}`,
  ].join('\n');
}
