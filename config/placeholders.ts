/**
 * Placeholder detection. A placeholder (`REPLACE_ME`, `<account-id>`) is indistinguishable from a real value until
 * something tries to use it, usually against a cloud account and much later, so loading refuses it up front.
 *
 * The rules aim at what templates and copy-pasted examples leave behind, and avoid legitimate values:
 * - `123456789012` is NOT a placeholder: it is the account id AWS documentation uses and moto's default account,
 *   which tests configure on purpose. Twelve zeros is one: no AWS account has that id.
 * - `TODO`/`FIXME`/`TBD` count only in capitals, as a whole token: `todo-api` is a fine deployment name.
 * - Prose (`description`) may say `<profile>` or `your-token` in a sentence; there only the unambiguous markers
 *   (`REPLACE_ME`, `CHANGEME`) count.
 */

/** A placeholder found in a value: which rule matched and the matching text. */
export interface PlaceholderMatch {
  /** The text that looks like a placeholder, e.g. `YOUR_ACCOUNT_ID` or `<account-id>`. */
  readonly text: string;
  /** Why it counts, for the error message. */
  readonly rule: string;
}

interface Rule {
  readonly re: RegExp;
  readonly rule: string;
  /** Applies inside prose too. */
  readonly inProse: boolean;
}

// Token boundaries: a placeholder is delimited by anything that is not a letter or a digit (`:`, `/`, `-`, `.`,
// the string's ends), so `arn:aws:iam::YOUR_ACCOUNT_ID:role/x` and `s3://<bucket>/key` are caught too.
const RULES: readonly Rule[] = [
  { re: /replace[_-]?me|change[_-]?me/i, rule: 'a REPLACE_ME / CHANGEME marker', inProse: true },
  { re: /(?:^|[^A-Za-z0-9])(your[_-][A-Za-z0-9_-]*)/i, rule: 'a YOUR_... / your-... template value', inProse: false },
  { re: /<[A-Za-z][\w .-]*>/, rule: 'an <angle-bracketed> template value', inProse: false },
  { re: /(?:^|[^A-Za-z0-9])(TODO|FIXME|TBD)(?![A-Za-z0-9])/, rule: 'a TODO / FIXME / TBD marker', inProse: false },
  { re: /(?:^|[^A-Za-z0-9])([xX]{3,})(?![A-Za-z0-9])/, rule: 'an XXX filler', inProse: false },
  { re: /(?:^|\D)(0{12})(?!\d)/, rule: 'an all-zero account id', inProse: false },
];

/**
 * The first placeholder in `value`, or undefined. `prose` relaxes the rules for free text (descriptions), where
 * angle brackets and "your-" are ordinary words.
 */
export function findPlaceholder(value: string, options: { prose?: boolean } = {}): PlaceholderMatch | undefined {
  for (const { re, rule, inProse } of RULES) {
    if (options.prose === true && !inProse) continue;
    const match = re.exec(value);
    if (match) return { text: match[1] ?? match[0], rule };
  }
  return undefined;
}

/** Keys whose values are free text for people. */
export const PROSE_KEYS: ReadonlySet<string> = new Set(['description']);
