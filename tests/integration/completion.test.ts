/**
 * Shell completion in a real bash: `platctl completion` prints yargs' script, sourced as a user would, and its
 * completion function is driven as bash drives it on a Tab (COMP_WORDS, COMP_CWORD). Environment names and unit ids
 * come from the cache an earlier run left, never from a new discovery.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..', '..');
const BIN = join(REPO, 'bin', 'platctl.js');

let work: string;
let platform: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'platctl-completion-'));
  // The script runs `platctl` from PATH, as an installed platctl is.
  const binDir = join(work, 'bin');
  mkdirSync(binDir);
  const wrapper = join(binDir, 'platctl');
  writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(wrapper, 0o755);
  env = { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ''}`, SHELL: '/bin/bash', NO_COLOR: '1' };
  platform = join(work, 'platform');
  cpSync(join(REPO, 'examples', 'platform'), platform, {
    recursive: true,
    filter: (src) => !src.includes('.platctl-cache') && !src.includes('.platctl-state'),
  });
}, 60_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** What bash offers for the words typed so far (`words`, the last one being completed). */
function complete(words: readonly string[], cwd = platform): string[] {
  const script = execFileSync('platctl', ['completion'], { env, encoding: 'utf8' });
  const line = ['platctl', ...words].map((w) => `'${w.replace(/'/g, "'\\''")}'`).join(' ');
  const program =
    `${script}\n` +
    `COMP_WORDS=(${line}); COMP_CWORD=${words.length}; COMP_LINE=${JSON.stringify(['platctl', ...words].join(' '))}\n` +
    `_platctl_yargs_completions\nprintf '%s\\n' "\${COMPREPLY[@]}"\n`;
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { cwd, env, encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout.split('\n').filter((w) => w !== '');
}

describe('platctl completion in bash', () => {
  it('prints a script that defines the completion function for platctl', () => {
    const script = execFileSync('platctl', ['completion'], { env, encoding: 'utf8' });
    expect(script).toContain('_platctl_yargs_completions');
    expect(script).toContain('complete -o bashdefault -o default -F _platctl_yargs_completions platctl');
  });

  it('offers verbs, actions, options and choices', () => {
    expect(complete(['boot'])).toEqual(['bootstrap']);
    expect(complete([''])).toEqual(expect.arrayContaining(['graph', 'bootstrap', 'teardown', 'report', 'completion']));
    expect(complete(['kubeconfig', ''])).toEqual(['write', 'token']);
    expect(complete(['bootstrap', '--dry'])).toEqual(['--dry-run']);
    expect(complete(['bootstrap', '--no-'])).toEqual(['--no-rollback', '--no-clean-on-failure']);
    expect(complete(['graph', '--format', ''])).toEqual(['text', 'json', 'dot', 'mermaid']);
    expect(complete(['report', '--format', ''])).toEqual(['html', 'json']);
    // status takes neither --env nor --unit: they are not offered.
    expect(complete(['status', '--'])).not.toContain('--env');
  });

  it('offers environment names and unit ids from the cache, without discovering anything', () => {
    // No cache yet: nothing is offered, and nothing is discovered to find out.
    expect(complete(['bootstrap', '--unit', 'platform/e'])).toEqual([]);
    expect(existsSync(join(platform, '.platctl-cache'))).toBe(false);

    const graph = spawnSync(process.execPath, [BIN, 'graph'], { cwd: platform, env, encoding: 'utf8' });
    expect(graph.status).toBe(0);
    const cache = join(platform, '.platctl-cache');
    const before = readdirSync(cache).map((name) => [name, statSync(join(cache, name)).mtimeMs]);

    expect(complete(['graph', '--env', ''])).toEqual(['platform', 'preprod']);
    expect(complete(['bootstrap', '--unit', 'platform/e'])).toEqual([
      'platform/ecr',
      'platform/eks',
      'platform/eks-addons',
      'platform/external-secrets',
    ]);
    expect(complete(['teardown', '--env', 'preprod', '--unit', 'preprod/n'])).toEqual([
      'preprod/networking',
      'preprod/node-groups',
    ]);
    // From a subdirectory too (the configuration is found upward), and with --config from elsewhere.
    expect(complete(['graph', '--env', 'pre'], join(platform, 'live'))).toEqual(['preprod']);
    expect(complete(['--config', join(platform, '.platctl.yaml'), 'graph', '--env', 'pl'], work)).toEqual(['platform']);
    // Completion only read the cache.
    expect(readdirSync(cache).map((name) => [name, statSync(join(cache, name)).mtimeMs])).toEqual(before);
  });
});
