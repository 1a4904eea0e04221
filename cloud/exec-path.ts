/**
 * Finding a program as an exec plugin's runner would (kubectl's `exec.command`): a name is searched in each PATH
 * directory, a path with a separator is taken as it is (relative paths from `baseDir`, the kubeconfig's directory).
 * No shell is involved: this only looks at files.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';

/** True when `path` is a regular file this user may execute. */
async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where `command` would be found: the executable file it names, or undefined. Empty and relative PATH entries are
 * skipped (kubectl refuses a program found through them).
 */
export async function findExecutable(
  command: string,
  options: { readonly path: string | undefined; readonly baseDir: string },
): Promise<string | undefined> {
  if (command === '') return undefined;
  if (command.includes('/') || command.includes(sep)) {
    const path = resolve(options.baseDir, command);
    return (await isExecutableFile(path)) ? path : undefined;
  }
  for (const dir of (options.path ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, command);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Why kubectl could not start the exec plugin's program `given` (default `platctl`) that the kubeconfig `target`
 * names, or undefined when it can: `platctl` not on `path` (e.g. installed in a repository and run through npx), or a
 * command that is not an executable file. The file is written all the same; the warning says how to write it with a
 * program kubectl finds (`bin`: this platctl's own path, when known).
 */
export async function unrunnableExecWarning(
  given: string | undefined,
  target: string,
  path: string | undefined,
  bin: string | undefined,
): Promise<string | undefined> {
  const command = given ?? 'platctl';
  if ((await findExecutable(command, { path, baseDir: dirname(target) })) !== undefined) return undefined;
  const example = `platctl kubeconfig --exec-command ${bin ?? '/absolute/path/to/bin/platctl.js'}`;
  const why =
    given === undefined
      ? "no platctl is on PATH (with npx platctl, it is only in the repository's node_modules/.bin)"
      : `${given} is not an executable file${given.includes('/') ? '' : ' on PATH'}`;
  return (
    `platctl: warning: ${target} tells kubectl to run ${command} for tokens, but ${why}; kubectl would fail with ` +
    `"executable ${command} not found".\n` +
    `  hint: write it again with the program's absolute path${bin ? ' (this platctl)' : ''}: ${example}\n`
  );
}
