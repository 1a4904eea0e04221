/**
 * A per-user disk cache of EKS tokens, so kubectl's exec plugin (`platctl kubeconfig token`, run before every
 * kubectl command) answers from one small file instead of loading the configuration and the AWS SDK's credential
 * chain and signing again. gke-gcloud-auth-plugin and aws-iam-authenticator keep the same kind of cache; kubectl
 * itself keeps a plugin's credential only for the life of one process.
 *
 * Where: `$XDG_CACHE_HOME/platctl/eks-tokens/` (else `$HOME/.cache/...`), the directory 0700 and each file 0600, one
 * file per key. No HOME, `PLATCTL_TOKEN_CACHE=off`, or a directory another user owns or others can read: no cache.
 *
 * Never wrong about who the token is for: the key is a hash of everything that decides it: the configuration file's
 * path and exact text, the environment, platctl's version, every `AWS_*` variable (profile, keys, endpoints, the
 * files' locations) and the size, time and inode of the shared credentials and config files. Change any of them and
 * the next call signs afresh. The secrets among them are only hashed; the file name is the hash.
 *
 * Never served stale: an entry is used only while at least {@link MIN_LEFT_MS} of it is left, ending at the token's
 * own end or a minute before the credentials that signed it expire, whichever is first; an entry signed "in the
 * future" (the clock went back) is a miss. Only this host's clock is involved, on both sides.
 *
 * Checked by structure, not by the schema library: loading zod would cost the very start-up the cache exists to save,
 * and anything that does not match exactly (another format, a torn or foreign file) is a miss that signs afresh. A
 * file of another format never has this format's name (the format is part of the key), so none is overwritten.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, readFile, readdir, rm, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { EksToken } from './eks-token.js';
import { EKS_TOKEN_LIFETIME_MS, execCredential } from './eks-token.js';

/** Bumped whenever what an entry holds changes (it is part of the key, so of the file name). */
const FORMAT = 1;
/** An entry with less than this left is not served: kubectl keeps the credential until its expiry. */
export const MIN_LEFT_MS = 2 * 60_000;
/** The credentials must outlive the cached token by this much. */
const CREDENTIALS_MARGIN_MS = 60_000;
/** Entries older than this are expired whatever they say, and are removed when another is written. */
const PRUNE_AFTER_MS = 60 * 60_000;
const ENTRY_NAME = /^[A-Za-z0-9_-]{43}\.json$/;

type Env = Readonly<Record<string, string | undefined>>;

interface Entry {
  readonly format: number;
  readonly key: string;
  readonly signedAt: number;
  readonly expiresAt: number;
  readonly token: string;
}

export interface TokenCacheRequest {
  /** The configuration file, resolved, and its exact text. */
  readonly configPath: string;
  readonly configText: string;
  readonly envName: string;
  /** platctl's version. */
  readonly version: string;
  readonly env: Env;
}

/** Where the configuration a request keys on is found (config/find.ts, passed in by the CLI), and platctl's version. */
export interface TokenConfig {
  find(): Promise<{ readonly ok: true; readonly path: string } | { readonly ok: false }>;
  readonly version: string;
  readonly env: Env;
}

/** What the cache is asked for `envName` with the configuration `config` finds, or undefined without one. */
export async function tokenCacheRequest(envName: string, config: TokenConfig): Promise<TokenCacheRequest | undefined> {
  const found = await config.find();
  if (!found.ok) return undefined;
  try {
    const configText = await readFile(found.path, 'utf8');
    return { configPath: found.path, configText, envName, version: config.version, env: config.env };
  } catch {
    // Unreadable: the whole way says why.
    return undefined;
  }
}

/** The cache directory, or undefined when there is to be no cache. */
export function tokenCacheDir(env: Env): string | undefined {
  const setting = env.PLATCTL_TOKEN_CACHE?.toLowerCase();
  if (setting === 'off' || setting === '0' || setting === 'false') return undefined;
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : env.HOME ? join(env.HOME, '.cache') : undefined;
  return base === undefined ? undefined : join(base, 'platctl', 'eks-tokens');
}

/** Size, time and inode of a file the SDK reads credentials from, or `-` when there is none. */
async function fileStamp(file: string): Promise<string> {
  try {
    const s = await stat(file);
    return `${s.size}:${s.mtimeMs}:${s.ino}`;
  } catch {
    return '-';
  }
}

async function cacheKey(request: TokenCacheRequest): Promise<string> {
  const { env } = request;
  // The SDK's start-up warning switch is set by platctl itself on one path and not the other; it decides nothing.
  const aws = Object.entries(env)
    .filter(([name]) => name.startsWith('AWS_') && name !== 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const home = env.HOME ?? '';
  const files = await Promise.all([
    fileStamp(env.AWS_SHARED_CREDENTIALS_FILE ?? join(home, '.aws', 'credentials')),
    fileStamp(env.AWS_CONFIG_FILE ?? join(home, '.aws', 'config')),
  ]);
  return createHash('sha256')
    .update(JSON.stringify([FORMAT, request.version, request.configPath, request.envName, aws, files]))
    .update('\0')
    .update(request.configText)
    .digest('base64url');
}

/** The directory is this user's alone (0700 or tighter), or undefined when it is not (or is not there). */
async function privateDir(dir: string): Promise<boolean> {
  try {
    const s = await lstat(dir);
    return s.isDirectory() && s.uid === process.getuid?.() && (s.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

function isEntry(value: unknown, key: string): value is Entry {
  if (value === null || typeof value !== 'object') return false;
  const e = value as Partial<Entry>;
  return (
    e.format === FORMAT &&
    e.key === key &&
    typeof e.signedAt === 'number' &&
    typeof e.expiresAt === 'number' &&
    typeof e.token === 'string' &&
    e.token.startsWith('k8s-aws-v1.')
  );
}

/** A file system error or a torn file: a miss. Anything else is a bug and is thrown. */
function missOn(error: unknown): undefined {
  if (error instanceof SyntaxError || (error instanceof Error && 'code' in error)) return undefined;
  throw error;
}

/** The `ExecCredential` line to print for `request` from the cache, or undefined (sign afresh). */
export async function cachedExecCredential(request: TokenCacheRequest, now: number): Promise<string | undefined> {
  const dir = tokenCacheDir(request.env);
  if (dir === undefined || !(await privateDir(dir))) return undefined;
  const key = await cacheKey(request);
  const file = join(dir, `${key}.json`);
  try {
    const s = await lstat(file);
    if (!s.isFile() || s.uid !== process.getuid?.() || (s.mode & 0o077) !== 0) return undefined;
    const entry: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (!isEntry(entry, key)) return undefined;
    const fresh =
      entry.signedAt <= now &&
      entry.expiresAt <= entry.signedAt + EKS_TOKEN_LIFETIME_MS &&
      entry.expiresAt - now >= MIN_LEFT_MS;
    if (!fresh) return undefined;
    return `${JSON.stringify(execCredential({ token: entry.token, expiresAt: new Date(entry.expiresAt) }))}\n`;
  } catch (error) {
    return missOn(error);
  }
}

/** Removes entries old enough to have expired, whatever they hold. */
async function prune(dir: string, now: number): Promise<void> {
  for (const name of await readdir(dir)) {
    if (!ENTRY_NAME.test(name)) continue;
    const file = join(dir, name);
    const s = await lstat(file).catch(missOn);
    if (s !== undefined && now - s.mtimeMs > PRUNE_AFTER_MS) await rm(file, { force: true });
  }
}

/** Replaces a file whole or not at all, with the given mode (the caller's atomic writer: cloud/ imports no layer). */
export type WriteFileAtomic = (file: string, data: string, options: { fsync: boolean; mode: number }) => Promise<void>;

/**
 * Keeps `token` for `request`, best effort: a cache that cannot be written only costs the next call its speed.
 * `credentialsExpireAt` (ms) shortens the entry to a minute before the credentials that signed the token expire.
 */
export async function keepToken(
  request: TokenCacheRequest,
  token: EksToken,
  credentialsExpireAt: number | undefined,
  now: number,
  writeFileAtomic: WriteFileAtomic,
): Promise<void> {
  const dir = tokenCacheDir(request.env);
  if (dir === undefined) return;
  const signedAt = token.expiresAt.getTime() - EKS_TOKEN_LIFETIME_MS;
  const expiresAt = Math.min(token.expiresAt.getTime(), (credentialsExpireAt ?? Infinity) - CREDENTIALS_MARGIN_MS);
  if (expiresAt - now < MIN_LEFT_MS) return;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (!(await privateDir(dir))) return;
    const key = await cacheKey(request);
    const entry: Entry = { format: FORMAT, key, signedAt, expiresAt, token: token.token };
    await writeFileAtomic(join(dir, `${key}.json`), JSON.stringify(entry), { fsync: false, mode: 0o600 });
    await prune(dir, now);
  } catch (error) {
    missOn(error);
  }
}

/**
 * `request`, when the configuration's text is still the one read before it was loaded (`reread`: the same request,
 * read again now), so a token is kept only under the text it was signed for; undefined otherwise or without one.
 */
export async function unchangedRequest(
  request: TokenCacheRequest | undefined,
  reread: () => Promise<TokenCacheRequest | undefined>,
): Promise<TokenCacheRequest | undefined> {
  if (request === undefined) return undefined;
  return (await reread())?.configText === request.configText ? request : undefined;
}
