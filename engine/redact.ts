/**
 * Secret redaction for everything platctl writes about a unit run (log files, state errors, summaries): secrets never
 * reach logs or state. Three nets: exact values the run knows are secret (environment variables with secret-looking
 * names, multi-line ones line by line), patterns for values that look like credentials wherever they come from
 * (vendor token shapes in Terraform output and argv), and multi-line values under a secret-looking key (a PEM
 * private key, a heredoc, a YAML block).
 */

const MASK = '***';

/** Names of environment variables whose values are treated as secrets. */
const SECRET_NAME =
  /(SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|PRIVATE_KEY|ACCESS_KEY|API_KEY|APIKEY|CREDENTIAL|AUTH_KEY|SESSION)/i;

/** Shorter values are too likely to match ordinary text ("true", "admin"). */
const MIN_SECRET_LENGTH = 6;

/** Lines of a multi-line secret shorter than this are not masked on their own (a lone `{`, `-----END X-----` is). */
const MIN_LINE_LENGTH = 8;

interface Rule {
  readonly pattern: RegExp;
  readonly replace: string;
}

/** A key name that looks secret: `aws_secret_access_key`, `db-password`, `client.token`. */
const SECRET_NAME_IN_KEY = String.raw`[\w.-]*(?:secret|token|password|passwd|passphrase|api[_-]?key|access[_-]?key|private[_-]?key|credential)[\w.-]*`;

/** A key that looks secret, with what may separate it from its value (`aws_secret_access_key = `, `"token": `). */
const SECRET_KEY = String.raw`\b(${SECRET_NAME_IN_KEY}["']?\s*[:=]\s*)`;

/** Not preceded by a letter or digit: token prefixes often follow `_`, `=`, `"` or `/`, where `\b` fails or misleads. */
const START = String.raw`(?<![A-Za-z0-9])`;
/** Not followed by more of the token's characters. */
const END = String.raw`(?![A-Za-z0-9_-])`;

/** Vendor token shapes, one alternative each; matched in one pass (a rule per shape would scan each line 14 times). */
const TOKENS: readonly string[] = [
  // AWS access key ids (long-term and temporary).
  '(?:AKIA|ASIA)[0-9A-Z]{16}',
  // GitHub tokens: personal, OAuth, user-to-server, server-to-server (apps), refresh; fine-grained PATs.
  'gh[pousr]_[A-Za-z0-9]{30,}',
  'github_pat_[A-Za-z0-9_]{20,}',
  // GitLab tokens: personal/project/group (glpat), deploy (gldt), runner (glrt), pipeline trigger (glptt), feed,
  // CI job, incoming mail, OAuth, SCIM, agent, workspace. Routable ones carry dots.
  'gl(?:pat|dt|rt|ptt|ft|cbt|imt|oas|soat|agent|wt)-[A-Za-z0-9_.-]{20,}',
  // Slack tokens (bot, user, app-level, configuration, refreshable).
  '(?:xoxe\\.)?xox[abpesor]-[A-Za-z0-9-]{10,}',
  'xapp-[A-Za-z0-9-]{10,}',
  // Tailscale auth keys, HashiCorp Vault tokens, HCP Terraform / Terraform Enterprise API tokens.
  'tskey-[A-Za-z0-9-]{10,}',
  'hv[sbr]\\.[A-Za-z0-9_-]{24,}',
  '[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{40,}',
  // npm access tokens, Stripe secret and restricted keys, Google API keys.
  'npm_[A-Za-z0-9]{30,}',
  '(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}',
  'AIza[A-Za-z0-9_-]{35}',
];

// Order matters: specific token shapes first, then generic key=value pairs.
const RULES: readonly Rule[] = [
  { pattern: new RegExp(`${START}(?:${TOKENS.join('|')})${END}`, 'g'), replace: MASK },
  // Slack incoming webhooks: the path is the secret.
  {
    pattern: /(https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9/_-]+/g,
    replace: `$1${MASK}`,
  },
  // JSON web tokens (Kubernetes service account tokens, OIDC).
  { pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, replace: MASK },
  // Authorization headers.
  { pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/-]{8,}=*/g, replace: `$1 ${MASK}` },
  // Credentials in URLs: scheme://user:password@host.
  { pattern: /([a-z][a-z0-9+.-]*:\/\/[^:/\s@]+:)[^@\s]+@/gi, replace: `$1${MASK}@` },
  // A quoted value with spaces (a passphrase) after a secret-looking key: the rule below would stop at the space.
  { pattern: new RegExp(`${SECRET_KEY}(["'])([^"'\n]*\\s[^"'\n]*)\\2`, 'gi'), replace: `$1$2${MASK}$2` },
  // key = value / key: value / key="value" where the key looks secret (aws_secret_access_key, -var=db_password=...).
  {
    pattern: new RegExp(`${SECRET_KEY}(["']?)(?!\\*\\*\\*)(?!\\(sensitive)[^\\s"',;}]{4,}\\2`, 'gi'),
    replace: `$1$2${MASK}$2`,
  },
];

/** PEM private keys of every kind (PKCS#1/#8, EC, OpenSSH, encrypted, PGP). */
const PRIVATE_KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
const PRIVATE_KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;

/** `secret_string = <<-EOT` (Terraform, shell): the lines up to the terminator are the value. */
const SECRET_HEREDOC = new RegExp(`${SECRET_KEY}<<[-~]?\\s*["']?([A-Za-z_][A-Za-z0-9_]*)["']?\\s*$`, 'i');

/** `client-secret: |` (YAML block scalar): the more-indented lines below are the value. */
const SECRET_BLOCK = new RegExp(
  `^(\\s*)(?:- )?["']?${SECRET_NAME_IN_KEY}["']?\\s*:\\s*[|>][-+]?\\d*\\s*(?:#.*)?$`,
  'i',
);

/** What a redactor is inside of, across lines. */
type Block =
  | { readonly type: 'private-key' }
  | { readonly type: 'heredoc'; readonly terminator: string }
  | { readonly type: 'yaml'; readonly indent: number };

/** The strings that stand for one secret value: itself, or for a multi-line value its lines and escaped forms. */
function valueForms(value: string): string[] {
  if (!/[\r\n]/.test(value)) return [value];
  const lines = value
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= MIN_LINE_LENGTH);
  // Printed JSON-encoded (a credentials file in an error, an API response), the value is one line again.
  return [value.replace(/\r?\n/g, '\\n'), value.replace(/\r?\n/g, '\\r\\n'), ...lines];
}

/**
 * Redacts one line at a time; remembers whether it is inside a multi-line secret (a PEM private key, a heredoc or a
 * YAML block under a secret-looking key).
 */
export class Redactor {
  readonly #values: readonly string[];
  #block: Block | undefined;

  /**
   * `secrets`: exact values to mask wherever they appear (shorter than 6 characters are ignored). A multi-line value
   * is masked line by line (lines of 8 characters or more) and in its JSON-escaped form.
   */
  constructor(secrets: Iterable<string> = []) {
    // Longest first, so a secret containing another is masked whole.
    this.#values = [...new Set([...secrets].flatMap(valueForms))]
      .filter((v) => v.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
  }

  /** A fresh redactor with the same secrets (what it is inside of is per stream). */
  fork(): Redactor {
    return new Redactor(this.#values);
  }

  line(text: string): string {
    const inside = this.#inside(text);
    if (inside !== undefined) return inside;
    if (PRIVATE_KEY_BEGIN.test(text)) {
      if (!PRIVATE_KEY_END.test(text)) this.#block = { type: 'private-key' };
      return text.replace(new RegExp(`${PRIVATE_KEY_BEGIN.source}.*$`), MASK);
    }
    const heredoc = SECRET_HEREDOC.exec(text);
    if (heredoc?.[2] !== undefined) {
      this.#block = { type: 'heredoc', terminator: heredoc[2] };
      return this.#mask(text.slice(0, heredoc.index)) + text.slice(heredoc.index);
    }
    const block = SECRET_BLOCK.exec(text);
    if (block) {
      this.#block = { type: 'yaml', indent: (block[1] ?? '').length };
      return text;
    }
    return this.#mask(text);
  }

  /** The line's replacement while inside a multi-line secret; undefined when not inside one (any more). */
  #inside(text: string): string | undefined {
    const block = this.#block;
    if (block === undefined) return undefined;
    switch (block.type) {
      case 'private-key':
        if (PRIVATE_KEY_END.test(text)) this.#block = undefined;
        return MASK;
      case 'heredoc':
        if (text.trim() !== block.terminator) return MASK;
        this.#block = undefined;
        return text;
      case 'yaml': {
        if (text.trim() === '') return text;
        if ((/^\s*/.exec(text)?.[0].length ?? 0) > block.indent) return MASK;
        this.#block = undefined;
        return undefined;
      }
    }
  }

  #mask(text: string): string {
    let out = text;
    for (const value of this.#values) if (out.includes(value)) out = out.split(value).join(MASK);
    for (const rule of RULES) out = out.replace(rule.pattern, rule.replace);
    return out;
  }
}

/** Values of environment variables whose names look secret: the exact strings a redactor masks. */
export function secretValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && SECRET_NAME.test(name) && value.length >= MIN_SECRET_LENGTH) out.push(value);
  }
  return out;
}

/** Removes terminal colour and cursor escape sequences (Terraform colours its output unless -no-color). */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching escape sequences is the point
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g, '');
}
