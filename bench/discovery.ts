/**
 * bench/discovery: generates Terragrunt repositories of 1,000, 5,000 and 10,000 units (includes, locals,
 * read_terragrunt_config, mixed dependency styles) and prints cold and warm discovery time and peak memory, medians
 * of several runs, each run in a fresh process.
 *
 *   npm run build && node dist/bench/discovery.js [--sizes 1000,5000,10000] [--runs 3]
 *
 * Targets (issue 2), 2-core machine, 5,000 units: cold <= 2.0 s, warm <= 0.4 s, peak RSS <= 400 MB, linear growth.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENVS = ['dev', 'stage', 'prod', 'ops'];
const KINDS = ['vpc', 'eks', 'db', 'app'] as const;

function write(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/** A repository of `units` units: per env, regions of services, each service a chain vpc <- eks <- db <- app. */
export function generate(root: string, units: number): void {
  rmSync(root, { recursive: true, force: true });
  const perEnv = Math.ceil(units / ENVS.length);
  write(
    join(root, '.platctl.yaml'),
    `version: 1\nenvironments:\n${ENVS.map((e) => `  ${e}:\n    dir: live/${e}\n`).join('')}`,
  );
  write(
    join(root, 'root.hcl'),
    `locals {
  env_vars = read_terragrunt_config(find_in_parent_folders("env.hcl"))
  env      = local.env_vars.locals.env
  repo     = dirname(find_in_parent_folders("root.hcl"))
}

remote_state {
  backend = "s3"
  config = {
    bucket = "tfstate-\${local.env}"
    key    = "\${path_relative_to_include()}/terraform.tfstate"
    region = "eu-west-1"
  }
}
`,
  );
  write(
    join(root, '_envcommon/eks.hcl'),
    `locals {
  source = "git::https://example.com/modules.git//eks"
}

dependency "vpc" {
  config_path = "../vpc"
  mock_outputs = { vpc_id = "vpc-0" }
}
`,
  );
  write(
    join(root, '_envcommon/app.hcl'),
    `dependency "db" {
  config_path = "\${get_terragrunt_dir()}/../db"
}

dependencies {
  paths = ["../eks"]
}
`,
  );
  let made = 0;
  for (const env of ENVS) {
    write(join(root, 'live', env, 'env.hcl'), `locals {\n  env = "${env}"\n}\n`);
    for (let i = 0; made < units && i * KINDS.length < perEnv; i += 1) {
      const service = join(root, 'live', env, `region-${i % 7}`, `svc-${i}`);
      for (const kind of KINDS) {
        if (made >= units) break;
        made += 1;
        const include = `include "root" {\n  path   = find_in_parent_folders("root.hcl")\n  expose = true\n}\n`;
        let body = include;
        if (kind === 'eks') {
          body += `\ninclude "envcommon" {\n  path = "\${dirname(find_in_parent_folders("root.hcl"))}/_envcommon/eks.hcl"\n}\n`;
        } else if (kind === 'db') {
          body += `\nlocals {\n  eks = "\${get_terragrunt_dir()}/../eks"\n}\n\ndependency "eks" {\n  config_path = local.eks\n}\n\ndependency "vpc" {\n  config_path = "\${include.root.locals.repo}/live/\${include.root.locals.env}/region-${i % 7}/svc-${i}/vpc"\n}\n`;
        } else if (kind === 'app') {
          body += `\ninclude "envcommon" {\n  path = "\${dirname(find_in_parent_folders("root.hcl"))}/_envcommon/app.hcl"\n}\n\ninputs = {\n  name = "svc-${i}"\n}\n`;
        }
        // Every file is unique (as most real units are), so the parser's content dedup does not flatter the numbers.
        body += `\n# unit ${env}/region-${i % 7}/svc-${i}/${kind}\n`;
        write(join(service, kind, 'terragrunt.hcl'), body);
      }
    }
  }
}

interface Sample {
  ms: number;
  rssMb: number;
  units: number;
  parsed: number;
  problems: number;
}

function runOnce(root: string, cold: boolean): Sample {
  if (cold) rmSync(join(root, '.platctl-cache'), { recursive: true, force: true });
  const runner = join(dirname(fileURLToPath(import.meta.url)), 'discovery-run.js');
  const out = execFileSync(process.execPath, [runner, root], { encoding: 'utf8' });
  return JSON.parse(out) as Sample;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function main(): void {
  const args = process.argv.slice(2);
  const sizesArg = args[args.indexOf('--sizes') + 1];
  const runsArg = args[args.indexOf('--runs') + 1];
  const sizes = args.includes('--sizes') && sizesArg ? sizesArg.split(',').map(Number) : [1000, 5000, 10000];
  const runs = args.includes('--runs') && runsArg ? Number(runsArg) : 3;
  const rows: string[] = [];
  let firstCold: number | undefined;
  for (const size of sizes) {
    const root = join(tmpdir(), `platctl-bench-discovery-${size}`);
    generate(root, size);
    const cold: Sample[] = [];
    const warm: Sample[] = [];
    for (let r = 0; r < runs; r += 1) {
      cold.push(runOnce(root, true));
      warm.push(runOnce(root, false));
    }
    const first = cold[0];
    if (first && first.problems > 0) throw new Error(`generated repository has ${first.problems} problems`);
    const coldMs = median(cold.map((s) => s.ms));
    firstCold ??= coldMs / size;
    rows.push(
      [
        String(size).padStart(6),
        `${(coldMs / 1000).toFixed(2)} s`.padStart(8),
        `${(median(warm.map((s) => s.ms)) / 1000).toFixed(2)} s`.padStart(8),
        `${median(cold.map((s) => s.rssMb)).toFixed(0)} MB`.padStart(8),
        `${median(warm.map((s) => s.rssMb)).toFixed(0)} MB`.padStart(8),
        `${((coldMs / size) * 1000).toFixed(0)} us`.padStart(9),
        `${(coldMs / size / firstCold).toFixed(2)}`.padStart(7),
      ].join('  '),
    );
    rmSync(root, { recursive: true, force: true });
  }
  process.stdout.write(`discovery, median of ${runs} runs each (fresh process per run)\n`);
  process.stdout.write(' units      cold      warm  cold RSS  warm RSS  cold/unit  vs 1st\n');
  process.stdout.write(`${rows.join('\n')}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
