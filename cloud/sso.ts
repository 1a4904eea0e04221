/**
 * Reading the SSO side of an AWS profile straight from the shared config file and the SSO token cache, so the
 * preflight can tell "your SSO session ends in 3 minutes" before any API call is made. The SDK refreshes role
 * credentials on its own, but nothing refreshes an IAM Identity Center session except a human running
 * `aws sso login`: its expiry is the real deadline of an SSO-based run.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EnvVars } from './env.js';
import { awsFilePaths, homeDir } from './env.js';

/** Sections of an INI file: `[profile x]` stays `profile x`, `[default]` stays `default`. */
export type IniSections = ReadonlyMap<string, Readonly<Record<string, string>>>;

/**
 * Parses the AWS shared-config INI dialect: `[section]`, `key = value`, `#`/`;` comments. Indented lines are
 * sub-properties of the previous key (`s3 =\n  addressing_style = path`) and are skipped: nothing here needs them.
 */
export function parseIni(text: string): IniSections {
  const sections = new Map<string, Record<string, string>>();
  let current: Record<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s+\S/.test(raw) && current) continue;
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      const name = (header[1] ?? '').replace(/\s+/g, ' ');
      current = sections.get(name) ?? {};
      sections.set(name, current);
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0 || !current) continue;
    current[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return sections;
}

/** How a profile logs in through IAM Identity Center, if it does. */
export interface SsoProfile {
  readonly profile: string;
  /** The `sso_session` name (new style), or undefined for a legacy profile with `sso_start_url`. */
  readonly session?: string;
  /** What the token cache file is named after: the session name, or the start URL for legacy profiles. */
  readonly cacheKey: string;
}

/**
 * The SSO settings of `profile` in the shared config file, or undefined when the profile does not use SSO
 * directly. A `role_arn` profile whose `source_profile` is an SSO profile is followed, because its session is
 * what expires.
 */
export async function ssoProfile(profile: string, env: EnvVars): Promise<SsoProfile | undefined> {
  const { configFile } = awsFilePaths(env);
  let text: string;
  try {
    text = await readFile(configFile, 'utf8');
  } catch {
    return undefined;
  }
  const sections = parseIni(text);
  const seen = new Set<string>();
  let name = profile;
  while (!seen.has(name)) {
    seen.add(name);
    const section = sections.get(name === 'default' ? 'default' : `profile ${name}`) ?? sections.get(name);
    if (!section) return undefined;
    if (section.sso_session) return { profile: name, session: section.sso_session, cacheKey: section.sso_session };
    if (section.sso_start_url) return { profile: name, cacheKey: section.sso_start_url };
    if (!section.source_profile) return undefined;
    name = section.source_profile;
  }
  return undefined;
}

export type SsoTokenState =
  | { readonly type: 'valid'; readonly expiresAt: Date; readonly file: string }
  | { readonly type: 'missing'; readonly file: string }
  | { readonly type: 'unreadable'; readonly file: string; readonly message: string };

/** The cache file the AWS CLI and SDK keep an SSO access token in: `~/.aws/sso/cache/<sha1(key)>.json`. */
export function ssoTokenFile(cacheKey: string, env: EnvVars): string {
  const hash = createHash('sha1').update(cacheKey).digest('hex');
  return join(homeDir(env), '.aws', 'sso', 'cache', `${hash}.json`);
}

/** Reads the cached SSO token's expiry. The token itself is never returned: it is a secret. */
export async function readSsoToken(cacheKey: string, env: EnvVars): Promise<SsoTokenState> {
  const file = ssoTokenFile(cacheKey, env);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { type: 'missing', file };
    return { type: 'unreadable', file, message: error instanceof Error ? error.message : String(error) };
  }
  try {
    const parsed = JSON.parse(text) as { expiresAt?: unknown };
    const expiresAt = typeof parsed.expiresAt === 'string' ? new Date(parsed.expiresAt) : undefined;
    if (!expiresAt || Number.isNaN(expiresAt.getTime())) {
      return { type: 'unreadable', file, message: 'no valid expiresAt in the token cache file' };
    }
    return { type: 'valid', expiresAt, file };
  } catch (error) {
    return { type: 'unreadable', file, message: error instanceof Error ? error.message : String(error) };
  }
}
