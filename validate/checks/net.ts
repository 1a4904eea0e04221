/**
 * Checks over the network from where platctl runs: HTTP endpoints, and Tailscale (the local daemon's view of the
 * tailnet, plus an optional URL reached through it).
 */
import { isAbortError, networkErrorCode } from '../../cloud/result.js';
import type { CheckOutcome } from '../types.js';
import { formatTimeout } from '../types.js';
import type { CheckContext } from './context.js';
import { error, fail, listNames, pass } from './context.js';

/**
 * A GET of `url` without following redirects, read no further than its status line and headers (the body is
 * cancelled to free the socket); a network failure is the check's outcome.
 */
async function getHead(
  url: string,
  ctx: CheckContext,
): Promise<{ ok: true; response: Response } | { ok: false; outcome: CheckOutcome }> {
  let response: Response;
  try {
    response = await ctx.deps.fetch(url, { method: 'GET', redirect: 'manual', signal: ctx.signal });
  } catch (thrown) {
    return { ok: false, outcome: networkFailure(url, thrown, ctx) };
  }
  await response.body?.cancel().catch(() => undefined);
  return { ok: true, response };
}

/**
 * GET `url` without following redirects (a 302 to a login page is the healthy answer of many UIs, and following it
 * would test the identity provider instead), and require a status in `expect`.
 */
export async function checkHttpEndpoint(
  url: string,
  expect: readonly number[],
  ctx: CheckContext,
): Promise<CheckOutcome> {
  const got = await getHead(url, ctx);
  if (!got.ok) return got.outcome;
  const response = got.response;
  const location = response.headers.get('location');
  const shown = `HTTP ${response.status}${location ? ` -> ${location}` : ''}`;
  if (expect.includes(response.status)) return pass(shown);
  return fail(`${shown}, expected ${expect.join(' or ')}`);
}

function networkFailure(url: string, thrown: unknown, ctx: CheckContext): CheckOutcome {
  if (ctx.signal.aborted || isAbortError(thrown)) return fail(`no answer within ${formatTimeout(ctx.timeoutMs)}`);
  const code = networkErrorCode(thrown);
  if (code) return fail(`cannot connect to ${new URL(url).host} (${code})`);
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  // fetch wraps the real reason ("bad port", a TLS error) in `cause`.
  const cause = (thrown as { cause?: unknown }).cause;
  const why = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
  return fail(`request failed: ${message}${why}`);
}

interface TailscalePeer {
  readonly HostName?: string;
  readonly DNSName?: string;
  readonly TailscaleIPs?: readonly string[];
  readonly Online?: boolean;
}

interface TailscaleStatus {
  readonly BackendState?: string;
  readonly Self?: TailscalePeer;
  readonly Peer?: Readonly<Record<string, TailscalePeer>>;
  readonly Health?: readonly string[];
}

function peerMatches(peer: TailscalePeer, wanted: string): boolean {
  const w = wanted.toLowerCase().replace(/\.$/, '');
  const dns = (peer.DNSName ?? '').toLowerCase().replace(/\.$/, '');
  return (
    (peer.HostName ?? '').toLowerCase() === w ||
    dns === w ||
    dns.split('.')[0] === w ||
    (peer.TailscaleIPs ?? []).includes(wanted)
  );
}

/** `tailscale status --json`: the backend is Running, this node online, and each configured peer online. */
export async function checkTailscale(
  binary: string,
  peers: readonly string[],
  ctx: CheckContext,
): Promise<CheckOutcome> {
  const result = await ctx.deps.runCommand(binary, ['status', '--json'], ctx.signal);
  if (result.type === 'spawn-error') {
    if (result.code === 'ENOENT') {
      return error(`the tailscale binary "${binary}" was not found`, {
        hint: 'install Tailscale, or set validate.tailscale.binary',
      });
    }
    if (result.code === 'ABORT_ERR')
      return fail(`tailscale status gave no answer within ${formatTimeout(ctx.timeoutMs)}`);
    return error(`cannot run ${binary}: ${result.message}`);
  }
  let status: TailscaleStatus;
  try {
    status = JSON.parse(result.stdout) as TailscaleStatus;
  } catch {
    const why = (result.stderr.trim() || result.stdout.trim()).split('\n', 1)[0] ?? '';
    return fail(`tailscale status failed (exit ${result.exitCode})${why ? `: ${why}` : ''}`);
  }
  if (status.BackendState !== 'Running') {
    return fail(`tailscale is ${status.BackendState ?? 'in an unknown state'}, not Running`, {
      hint: status.BackendState === 'NeedsLogin' ? 'run `tailscale up`' : undefined,
      details: status.Health ?? [],
    });
  }
  if (status.Self && status.Self.Online === false) return fail('tailscale is Running but this node is offline');
  const all = Object.values(status.Peer ?? {});
  const missing = peers.filter((wanted) => !all.some((peer) => peerMatches(peer, wanted)));
  // Online when any matching node is: a re-registered machine keeps its host name, its old node lingers offline.
  const offline = peers.filter(
    (wanted) => !missing.includes(wanted) && !all.some((peer) => peerMatches(peer, wanted) && peer.Online === true),
  );
  if (missing.length > 0 || offline.length > 0) {
    const parts = [
      offline.length > 0 ? `offline: ${listNames(offline)}` : undefined,
      missing.length > 0 ? `not in the tailnet: ${listNames(missing)}` : undefined,
    ].filter((x): x is string => x !== undefined);
    return fail(`tailscale peers ${parts.join('; ')}`);
  }
  return pass(`Running${peers.length > 0 ? `, ${peers.length} peers online` : ''}`);
}

/** A URL reached through the tailnet answers (any status below 400). */
export async function checkTailscaleUrl(url: string, ctx: CheckContext): Promise<CheckOutcome> {
  const got = await getHead(url, ctx);
  if (!got.ok) return got.outcome;
  const response = got.response;
  if (response.status < 400) return pass(`HTTP ${response.status}`);
  return fail(`HTTP ${response.status}`);
}
