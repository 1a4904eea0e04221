/**
 * The one printer of an expected failure for people (a `Failure` of result.ts, or any value with a message): below
 * every layer, so each verb's flow says its endings the same way.
 */

/** A run's end that is not a success, for people: `platctl: <prefix><message>`, its details indented, its hint. */
export function explainOutcome(
  prefix: string,
  result: { readonly message: string; readonly details?: readonly string[]; readonly hint?: string | undefined },
): string {
  const details = (result.details ?? []).map((d) => `  ${d}\n`).join('');
  return `platctl: ${prefix}${result.message}\n${details}${result.hint ? `  hint: ${result.hint}\n` : ''}`;
}
