/**
 * The real tools: the binaries built by scripts/install-tools.sh report the pinned versions, and terragrunt drives
 * tofu through two dependent units exactly the way platctl's executor invokes it, with no network.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedVersions, requireToolPaths, type ToolPaths } from './helpers/tools.js';

/**
 * Every HTTP(S) request the tools might make is sent to a closed loopback port, so a run that needed the network
 * (a provider download, a registry lookup, a version check) fails instead of passing by luck on a connected machine.
 */
function offlineEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // Keep the child's environment free of the caller's Terraform/Terragrunt settings.
    if (value !== undefined && !/^(TF_|TG_|TERRAGRUNT_)/.test(key)) env[key] = value;
  }
  const deadProxy = 'http://127.0.0.1:9';
  return {
    ...env,
    HOME: home,
    HTTP_PROXY: deadProxy,
    HTTPS_PROXY: deadProxy,
    http_proxy: deadProxy,
    https_proxy: deadProxy,
    NO_PROXY: '',
    no_proxy: '',
    NO_COLOR: '1',
  };
}

/** The exact command line platctl's executor uses for one unit. */
function unitArgs(unitDir: string, tofu: string, tfArgs: readonly string[]): string[] {
  return ['run', '--working-dir', unitDir, '--non-interactive', '--tf-path', tofu, '--', ...tfArgs];
}

const mainTf = (body: string): string => `${body}\n`;

/** Every file named `name` below `dir`. */
function findFiles(dir: string, name: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((rel) => rel.split('/').pop() === name)
    .map((rel) => join(dir, rel));
}

describe('real terragrunt and OpenTofu', () => {
  let tools: ToolPaths;
  let work: string;
  let env: Record<string, string>;

  beforeAll(() => {
    tools = requireToolPaths();
    work = mkdtempSync(join(tmpdir(), 'platctl-e2e-tools-'));
    mkdirSync(join(work, 'home'));
    env = offlineEnv(join(work, 'home'));
  });

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('reports the pinned versions', async () => {
    const pinned = pinnedVersions();
    const tg = await execa(tools.terragrunt, ['--version'], { env, extendEnv: false });
    expect(tg.stdout.trim()).toBe(`terragrunt version ${pinned.terragrunt}`);
    const tofu = await execa(tools.tofu, ['version', '-json'], { env, extendEnv: false });
    const report = JSON.parse(tofu.stdout) as { terraform_version: string };
    expect(`v${report.terraform_version}`).toBe(pinned.tofu);
  });

  it('applies a unit and a dependent unit reading its output through a dependency block, offline', async () => {
    const repo = join(work, 'repo');
    const vpc = join(repo, 'vpc');
    const app = join(repo, 'app');
    mkdirSync(vpc, { recursive: true });
    mkdirSync(app, { recursive: true });
    // terraform_data is built into tofu: no provider download. vpc keeps its local state in the unit directory via
    // a generated local backend; app has no backend, so its state lands in the copy terragrunt v1 runs tofu in.
    writeFileSync(
      join(vpc, 'terragrunt.hcl'),
      `remote_state {
  backend  = "local"
  generate = { path = "backend.tf", if_exists = "overwrite" }
  config   = { path = "\${get_terragrunt_dir()}/terraform.tfstate" }
}
inputs = { cidr = "10.0.0.0/16" }
`,
    );
    writeFileSync(
      join(vpc, 'main.tf'),
      mainTf(`variable "cidr" { type = string }
resource "terraform_data" "vpc" { input = var.cidr }
output "vpc_id" { value = "vpc-\${terraform_data.vpc.output}" }`),
    );
    writeFileSync(
      join(app, 'terragrunt.hcl'),
      `dependency "vpc" {\n  config_path = "../vpc"\n}\ninputs = { vpc_id = dependency.vpc.outputs.vpc_id }\n`,
    );
    writeFileSync(
      join(app, 'main.tf'),
      mainTf(`variable "vpc_id" { type = string }
resource "terraform_data" "app" { input = var.vpc_id }
output "seen_vpc_id" { value = terraform_data.app.output }`),
    );

    const apply = ['apply', '-auto-approve', '-input=false'];
    const first = await execa(tools.terragrunt, unitArgs(vpc, tools.tofu, apply), {
      env,
      extendEnv: false,
      reject: false,
      timeout: 300_000,
    });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(existsSync(join(vpc, 'terraform.tfstate'))).toBe(true);

    const second = await execa(tools.terragrunt, unitArgs(app, tools.tofu, apply), {
      env,
      extendEnv: false,
      reject: false,
      timeout: 300_000,
    });
    expect(second.exitCode, second.stderr).toBe(0);
    // Terragrunt v1 always copies the unit into .terragrunt-cache/<hash>/<hash> and runs tofu there (changelog
    // v1.0.0 "consistent-terragrunt-cache"), so a unit without a backend keeps its state inside that cache.
    expect(existsSync(join(app, 'terraform.tfstate'))).toBe(false);
    expect(findFiles(join(app, '.terragrunt-cache'), 'terraform.tfstate')).toHaveLength(1);

    // `output -json` is passed through unwrapped by terragrunt, so stdout is tofu's JSON.
    const out = await execa(tools.terragrunt, unitArgs(app, tools.tofu, ['output', '-json']), {
      env,
      extendEnv: false,
      reject: false,
      timeout: 120_000,
    });
    expect(out.exitCode, out.stderr).toBe(0);
    const outputs = JSON.parse(out.stdout) as Record<string, { value: unknown }>;
    expect(outputs.seen_vpc_id?.value).toBe('vpc-10.0.0.0/16');
  });

  it("passes a failed apply on as exit 1 with tofu's error on stderr", async () => {
    const unit = join(work, 'failing');
    mkdirSync(unit, { recursive: true });
    writeFileSync(join(unit, 'terragrunt.hcl'), '# a unit whose apply fails\n');
    writeFileSync(
      join(unit, 'main.tf'),
      mainTf(`resource "terraform_data" "x" {
  provisioner "local-exec" { command = "exit 3" }
}`),
    );
    const result = await execa(
      tools.terragrunt,
      unitArgs(unit, tools.tofu, ['apply', '-auto-approve', '-input=false']),
      {
        env,
        extendEnv: false,
        reject: false,
        timeout: 300_000,
      },
    );
    // tofu exits 1 (the provisioner's 3 is not propagated); terragrunt passes tofu's code through.
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('Failed to execute');
    expect(result.stderr).toContain('local-exec provisioner error');
  });

  it('stops tofu at once and releases the state lock on SIGINT to the process group', async () => {
    const unit = join(work, 'slow');
    const flag = join(work, 'slow.started');
    mkdirSync(unit, { recursive: true });
    writeFileSync(
      join(unit, 'terragrunt.hcl'),
      `remote_state {
  backend  = "local"
  generate = { path = "backend.tf", if_exists = "overwrite" }
  config   = { path = "\${get_terragrunt_dir()}/terraform.tfstate" }
}
`,
    );
    writeFileSync(
      join(unit, 'main.tf'),
      mainTf(`resource "terraform_data" "slow" {
  provisioner "local-exec" { command = "touch ${flag}; sleep 60" }
}`),
    );
    const child = execa(tools.terragrunt, unitArgs(unit, tools.tofu, ['apply', '-auto-approve', '-input=false']), {
      env,
      extendEnv: false,
      reject: false,
      detached: true,
      timeout: 120_000,
    });
    const pid = child.pid!;
    const deadline = Date.now() + 60_000;
    while (!existsSync(flag) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(flag), 'the apply never reached the slow resource').toBe(true);
    // tofu holds the local state lock while it applies.
    expect(existsSync(join(unit, '.terraform.tfstate.lock.info'))).toBe(true);

    const signalledAt = Date.now();
    // The whole group, as a terminal's Ctrl-C does: signalling terragrunt alone makes it wait 15 s
    // (SignalForwardingDelay in terragrunt's internal/shell/run_cmd.go) before forwarding to tofu.
    process.kill(-pid, 'SIGINT');
    const result = await child;
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('Gracefully shutting down');
    expect(existsSync(join(unit, '.terraform.tfstate.lock.info'))).toBe(false);
    // Nothing of the group survives (the provisioner's sleep got the SIGINT too); its members may take a moment
    // longer than terragrunt to be reaped.
    const groupAlive = (): boolean => {
      try {
        process.kill(-pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const reapDeadline = Date.now() + 5_000;
    while (groupAlive() && Date.now() < reapDeadline) await new Promise((r) => setTimeout(r, 50));
    const survived = groupAlive();
    if (survived) process.kill(-pid, 'SIGKILL');
    expect(survived).toBe(false);
  });

  it('fails every run when TF_CLI_CONFIG_FILE names a missing file', async () => {
    const unit = join(work, 'cli-config');
    mkdirSync(unit, { recursive: true });
    writeFileSync(join(unit, 'terragrunt.hcl'), '# any unit\n');
    writeFileSync(join(unit, 'main.tf'), mainTf('output "x" { value = 1 }'));
    // tofu prints a warning before its version line; terragrunt cannot parse `tofu -version` and gives up.
    const result = await execa(tools.terragrunt, unitArgs(unit, tools.tofu, ['plan', '-input=false']), {
      env: { ...env, TF_CLI_CONFIG_FILE: join(work, 'no-such.tfrc') },
      extendEnv: false,
      reject: false,
      timeout: 120_000,
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('Unable to parse Terraform version output');
  });
});
