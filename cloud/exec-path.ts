/**
 * Finding a program as an exec plugin's runner would (kubectl's `exec.command`): a name is searched in each PATH
 * directory, a path with a separator is taken as it is (relative paths from `baseDir`, the kubeconfig's directory).
 * No shell is involved: this only looks at files.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path';

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
