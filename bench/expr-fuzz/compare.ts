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
 */
import { resolve, sep } from 'node:path';
import { execa } from 'execa';
import { loadConfig } from '../../config/load.js';
import { discover } from '../../discover/index.js';
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
function targetNames(root: string, paths: readonly string[]): string[] {
  const targets = resolve(root, FUZZ_ENV, 'targets') + sep;
  return [...new Set(paths.map((p) => (p.startsWith(targets) ? p.slice(targets.length) : p)))].sort();
}

async function platctlOutcomes(root: string): Promise<Map<string, Outcome>> {
  const loaded = await loadConfig({ cwd: root });
  if (!loaded.ok)
    throw new Error(`the generated .platctl.yaml in ${root} is invalid: ${JSON.stringify(loaded.errors)}`);
  const discovery = await discover({ root, config: loaded.value.config, env: {}, cacheDir: false });
  const out = new Map<string, Outcome>();
  const errors = new Map<string, string>();
  for (const problem of discovery.problems) {
    if (problem.severity !== 'error' || problem.unit === undefined) continue;
    if (!errors.has(problem.unit)) errors.set(problem.unit, `${problem.kind}: ${problem.message}`);
  }
  for (const id of discovery.graph.ids()) {
    const unit = id.slice(FUZZ_ENV.length + 1);
    const error = errors.get(id);
    if (error !== undefined) {
      out.set(unit, { ok: false, error });
      continue;
    }
    const deps = [...(discovery.graph.get(id)?.dependencies ?? [])].map((dep) =>
      resolve(root, FUZZ_ENV, dep.slice(FUZZ_ENV.length + 1)),
    );
    const externals = discovery.externals.filter((e) => e.unit === id).map((e) => resolve(root, e.dir));
    out.set(unit, { ok: true, targets: targetNames(root, [...deps, ...externals]) });
  }
  return out;
}

/** Runs terragrunt with a bounded time; the result, never a throw. */
async function terragrunt(
  binary: string,
  args: readonly string[],
  cwd: string,
  home: string,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const run = await execa(binary, [...args], {
    cwd,
    env: toolEnv(home),
    extendEnv: false,
    reject: false,
    timeout: 300_000,
    stripFinalNewline: true,
  });
  return { exitCode: run.exitCode ?? -1, stdout: String(run.stdout), stderr: String(run.stderr) };
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
    const dir = resolve(root, FUZZ_ENV, probe.unit);
    const rendered = await terragrunt(binary, ['render', '--json', '--no-color', '--working-dir', dir], dir, home);
    if (rendered.exitCode !== 0) out.set(probe.unit, { ok: false, error: errorLine(rendered.stderr) });
  }
  return out;
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
  return manifest.probes.map((probe) => {
    const platctl = ours.get(probe.unit) ?? { ok: false, error: 'platctl did not discover the unit' };
    const terragrunt = theirs.get(probe.unit) ?? { ok: false, error: 'terragrunt find did not list the unit' };
    return { seed: manifest.seed, probe, platctl, terragrunt, verdict: verdict(probe, platctl, terragrunt) };
  });
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
    ...result.probe.locals.map((l) => `  local.${l}`),
    `  ${result.probe.block === 'dependency' ? 'config_path' : 'paths[0]'} = ${result.probe.expression}`,
  ].join('\n');
}
