/**
 * What platctl says when an exception reaches the top. Expected failures are values with their own messages and
 * exit codes; an exception is a bug in platctl, so it gets exit code 70 (EX_SOFTWARE), the whole stack, and a line
 * saying what to put in a bug report.
 */

/** Quotes a word for a shell only when it needs it, so the command line in a report can be pasted back. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

export interface BugContext {
  /** The arguments after `platctl`. */
  readonly argv: readonly string[];
  readonly version: string;
  /** `process.version` and `process.platform`/`arch`, read by the caller (only the CLI touches `process`). */
  readonly node: string;
  readonly platform: string;
}

export function bugReport(error: unknown, context: BugContext): string {
  const detail =
    error instanceof Error
      ? (error.stack ?? `${error.name}: ${error.message}`)
      : `a non-Error value was thrown: ${String(error)}`;
  const command = ['platctl', ...context.argv].map(shellWord).join(' ');
  return (
    `platctl: internal error: this is a bug in platctl, not a problem with your command or configuration.\n` +
    `${detail}\n` +
    `  Please report it to platctl's maintainers (an issue in platctl's repository) with:\n` +
    `  - the command: ${command}\n` +
    `  - platctl ${context.version}, Node.js ${context.node}, ${context.platform}\n` +
    `  - this whole message, and what you expected to happen;\n` +
    `  - if a bootstrap or teardown was running: .platctl-state.json and the unit's log under .platctl-logs/\n` +
    `    (look through them for secrets before you share them).\n`
  );
}
