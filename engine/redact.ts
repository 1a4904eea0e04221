/**
 * Secret redaction for everything platctl writes about a unit run (log files, state errors, summaries): secrets never
 * reach logs or state. Two nets: exact values the run knows are secret (environment variables with secret-looking
 * names), and patterns for values that look like credentials wherever they come from (Terraform output, argv).
 */

const MASK = '***';

/** Names of environment variables whose values are treated as secrets. */
const SECRET_NAME =
  /(SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|PRIVATE_KEY|ACCESS_KEY|API_KEY|APIKEY|CREDENTIAL|AUTH_KEY|SESSION)/i;

/** Shorter values are too likely to match ordinary text ("true", "admin"). */
const MIN_SECRET_LENGTH = 6;

interface Rule {
  readonly pattern: RegExp;
  readonly replace: string;
}

/** A key that looks secret, with what may separate it from its value (`aws_secret_access_key = `, `"token": `). */
const SECRET_KEY = String.raw`\b([\w.-]*(?:secret|token|password|passwd|passphrase|api[_-]?key|access[_-]?key|private[_-]?key|credential)[\w.-]*["']?\s*[:=]\s*)`;

// Order matters: specific token shapes first, then generic key=value pairs.
const RULES: readonly Rule[] = [
  // AWS access key ids (long-term and temporary).
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: MASK },
  // GitHub, Slack, Tailscale, Cloudflare-style prefixed tokens.
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g, replace: MASK },
  // GitHub fine-grained personal access tokens.
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g, replace: MASK },
  { pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g, replace: MASK },
  { pattern: /\btskey-[A-Za-z0-9-]{10,}\b/g, replace: MASK },
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

/** Redacts one line at a time; remembers whether it is inside a PEM private key block. */
export class Redactor {
  readonly #values: readonly string[];
  #inPrivateKey = false;

  /** `secrets`: exact values to mask wherever they appear (shorter than 6 characters are ignored). */
  constructor(secrets: Iterable<string> = []) {
    // Longest first, so a secret containing another is masked whole.
    this.#values = [...new Set(secrets)]
      .filter((v) => v.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
  }

  /** A fresh redactor with the same secrets (private-key state is per stream). */
  fork(): Redactor {
    return new Redactor(this.#values);
  }

  line(text: string): string {
    if (this.#inPrivateKey) {
      if (/-----END [A-Z ]*PRIVATE KEY-----/.test(text)) this.#inPrivateKey = false;
      return MASK;
    }
    if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
      this.#inPrivateKey = !/-----END [A-Z ]*PRIVATE KEY-----/.test(text);
      return text.replace(/-----BEGIN [A-Z ]*PRIVATE KEY-----.*$/, MASK);
    }
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
