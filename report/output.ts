/**
 * Where `platctl report` writes its page, and how: the file's path and default name, the links from the page to the
 * unit logs, and the write itself (atomic, through config/atomic-write.ts, the one atomic write).
 */
import { dirname, join, relative, resolve, sep } from 'node:path';
import { writeFileAtomic } from '../config/atomic-write.js';
import type { ReportModel } from './model.js';

/** The report file's absolute path; undefined for stdout. Before the model exists, `name` stands in for its name. */
export function outputPath(cwd: string, output: string | undefined, name: string): string | undefined {
  if (output === '-') return undefined;
  return resolve(cwd, output ?? name);
}

/** `platctl-report-<run id>.html`, or for a down/up `platctl-report-<verb>-<envs>.html`; odd characters as `_`. */
export function defaultName(model: ReportModel): string {
  const id = model.kind === 'walk' ? model.run.id : `${model.run.command}-${model.run.envs.join('-')}`;
  return `platctl-report-${id.replace(/[^A-Za-z0-9._+-]+/g, '_')}.html`;
}

/**
 * A unit's log (relative to the repository root) as a link from the report: relative to the directory the report is
 * written to (the working directory for stdout), so the page opens its logs from disk; each segment percent-encoded.
 */
export function logHref(reportDir: string, root: string, log: string): string {
  const path = relative(reportDir, join(root, log)).split(sep).map(encodeURIComponent).join('/');
  return path === '' ? '.' : path;
}

/**
 * Writes `text` to `path` through a temp file in the same directory, so a reader never sees half a report. Undefined
 * when written, else why not, in a few words.
 */
export async function writeReport(path: string, text: string): Promise<string | undefined> {
  try {
    // A page is cheap to write again: not fsynced.
    await writeFileAtomic(path, text, { fsync: false });
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT'
      ? `its directory ${dirname(path)} does not exist`
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'it is a directory'
          : (error as Error).message;
  }
}

/** Why the report could not be written to `path` (`why`: what {@link writeReport} said), and what to do. */
export function unwritableReport(path: string, why: string): { readonly message: string; readonly hint: string } {
  return {
    message: `cannot write the report to ${path}: ${why}`,
    hint: 'pass --output FILE in a directory you can write',
  };
}

/** The report's text in `format`: the model as JSON, or the HTML page (its renderer loaded only for a page). */
export async function renderReport(model: ReportModel, format: string): Promise<string> {
  return format === 'json'
    ? `${JSON.stringify(model, null, 2)}\n`
    : (await import('./html.js')).renderReportHtml(model);
}

/**
 * How and where `platctl report` writes: the format (`--json` is JSON), the output (`-`, stdout, is JSON's default),
 * and the directory the log links are relative to (a default name is always in the working directory `cwd`, so the
 * links can be made before the model has a name).
 */
export function reportPlan<F extends string>(
  cwd: string,
  args: { readonly json?: boolean | undefined; readonly format: F; readonly output?: string | undefined },
): { readonly format: F | 'json'; readonly output: string | undefined; readonly reportDir: string } {
  const format = args.json ? 'json' : args.format;
  const output = args.output ?? (format === 'json' ? '-' : undefined);
  const reportDir = output === undefined || output === '-' ? cwd : dirname(resolve(cwd, output));
  return { format, output, reportDir };
}
