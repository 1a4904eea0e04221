/**
 * scripts/install-tools.sh shows that a long build is alive: while `go build` runs, a line every
 * TOOLS_PROGRESS_SECONDS says which build and how long it has run. A stand-in `go` (on PATH, no network) builds
 * only when the test opens a gate, so the test waits for the line, not for a clock; the script runs from a copy, so
 * the repository's own .tools/ is never touched.
 */
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect, it, onTestFinished } from 'vitest';
import { REPO_ROOT, until } from './engine-helpers.js';

/** A `go` that answers `mod download -json` with a source dir and, for `build`, waits for $FAKE_GO_GATE. */
const FAKE_GO = `#!/bin/sh
case "$1" in
  mod)
    mkdir -p "$FAKE_GO_SRC"
    printf '{\\n\\t"Dir": "%s",\\n}\\n' "$FAKE_GO_SRC"
    ;;
  build)
    out=
    while [ $# -gt 0 ]; do
      if [ "$1" = -o ]; then out="$2"; fi
      shift
    done
    # Waits for the gate; gives up once the test removed its directory (a failed test leaves nothing running).
    while [ ! -e "$FAKE_GO_GATE" ]; do [ -d "$FAKE_GO_SRC" ] || exit 3; sleep 0.05; done
    case "$out" in
      */terragrunt.tmp) line="terragrunt version $FAKE_TG_VERSION" ;;
      *) line="OpenTofu $FAKE_TOFU_VERSION" ;;
    esac
    printf '#!/bin/sh\\necho "%s"\\n' "$line" > "$out"
    chmod +x "$out"
    ;;
  *) echo "fake go: unexpected $*" >&2; exit 2 ;;
esac
`;

it('prints the elapsed time while a build runs, and how long each build took', { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'platctl-tools-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const script = await readFile(join(REPO_ROOT, 'scripts', 'install-tools.sh'), 'utf8');
  const pinned = (name: string): string => {
    const found = new RegExp(`^${name}=(\\S+)$`, 'm').exec(script)?.[1];
    if (found === undefined) throw new Error(`no ${name} in install-tools.sh`);
    return found;
  };
  await mkdir(join(dir, 'repo', 'scripts', 'lib'), { recursive: true });
  await mkdir(join(dir, 'bin'));
  for (const file of ['install-tools.sh', join('lib', 'go-build.sh')]) {
    await copyFile(join(REPO_ROOT, 'scripts', file), join(dir, 'repo', 'scripts', file));
  }
  await writeFile(join(dir, 'bin', 'go'), FAKE_GO);
  await chmod(join(dir, 'bin', 'go'), 0o755);
  const gate = join(dir, 'gate');
  const run = execa('bash', [join(dir, 'repo', 'scripts', 'install-tools.sh')], {
    env: {
      PATH: `${join(dir, 'bin')}:/usr/bin:/bin`,
      TMPDIR: dir,
      TOOLS_PROGRESS_SECONDS: '1',
      FAKE_GO_SRC: join(dir, 'src'),
      FAKE_GO_GATE: gate,
      FAKE_TG_VERSION: pinned('TERRAGRUNT_VERSION'),
      FAKE_TOFU_VERSION: pinned('OPENTOFU_VERSION'),
    },
    extendEnv: false,
    reject: false,
    all: true,
  });
  onTestFinished(() => {
    run.kill();
  });
  let output = '';
  run.all?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await until(() => output.includes('still running'), 30_000, 'a progress line');
  await writeFile(gate, '');
  const result = await run;
  expect(result.exitCode).toBe(0);
  expect(result.all).toMatch(/^install-tools: building terragrunt v\S+: still running, \d+m\d\ds elapsed$/m);
  expect(result.all).toMatch(/^install-tools: built \S+\/terragrunt in \d+m\d\ds$/m);
  expect(result.all).toMatch(/^install-tools: built \S+\/tofu in \d+m\d\ds$/m);
});
