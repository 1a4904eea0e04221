/**
 * The worktree guard. `bootstrap`/`teardown` refuse to run from a linked git worktree: Terraform records absolute
 * paths (module sources, `path.module`, local-exec working directories) in state, and a `when = destroy` provisioner
 * re-runs with the paths of the checkout it runs from. The same unit applied from another directory can look changed
 * and replace resources, or run destroy-time commands against the wrong tree.
 */
import { resolve } from 'node:path';
import { execa } from 'execa';

export type WorktreeCheck =
  | { readonly type: 'main-checkout' }
  | { readonly type: 'not-a-repository' }
  | { readonly type: 'linked-worktree'; readonly gitDir: string; readonly commonDir: string };

/**
 * Compares `git rev-parse --git-dir` with `--git-common-dir` in `dir`: they differ only in a linked worktree.
 * No git, or not a repository: nothing to guard.
 */
export async function checkWorktree(
  dir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<WorktreeCheck> {
  const result = await execa('git', ['rev-parse', '--git-dir', '--git-common-dir'], {
    cwd: dir,
    env: { ...env },
    extendEnv: false,
    reject: false,
    timeout: 10_000,
  });
  if (result.exitCode !== 0 || typeof result.stdout !== 'string') return { type: 'not-a-repository' };
  const [gitDirLine, commonDirLine] = result.stdout.split('\n');
  if (gitDirLine === undefined || commonDirLine === undefined) return { type: 'not-a-repository' };
  const gitDir = resolve(dir, gitDirLine.trim());
  const commonDir = resolve(dir, commonDirLine.trim());
  return gitDir === commonDir ? { type: 'main-checkout' } : { type: 'linked-worktree', gitDir, commonDir };
}
