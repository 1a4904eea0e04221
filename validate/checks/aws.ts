/**
 * Checks that read AWS: phase 1 (credentials, deployer role, state bucket), the generic per-unit state check and
 * DNS delegation.
 */
import { isAuthError, loginHint } from '../../cloud/auth-errors.js';
import { formatMinutes } from '../../cloud/credentials.js';
import { normalizeDomain } from '../../cloud/route53.js';
import type { Route53Reader } from '../../cloud/route53.js';
import type { StateLocation } from '../plan.js';
import type { CheckOutcome } from '../types.js';
import type { CheckContext } from './context.js';
import { error, fail, fromCloudFailure, pass } from './context.js';

export async function checkCredentials(env: string, ctx: CheckContext): Promise<CheckOutcome> {
  const cloud = ctx.cloud(env);
  const result = await cloud.preflight(ctx.budgetMs, ctx.signal);
  if (!result.ok) {
    const status = result.reason === 'error' ? 'error' : 'fail';
    return { status, message: result.message, ...(result.hint !== undefined ? { hint: result.hint } : {}) };
  }
  const now = ctx.deps.now();
  const lasts = [
    result.ssoExpiresAt ? `SSO session ends in ${formatMinutes(result.ssoExpiresAt.getTime() - now)}` : undefined,
    result.credentialsExpireAt
      ? `credentials expire in ${formatMinutes(result.credentialsExpireAt.getTime() - now)}`
      : undefined,
  ].filter((x): x is string => x !== undefined);
  return pass(
    `${result.identity.arn} (account ${result.identity.account})${lasts.length ? `; ${lasts.join(', ')}` : ''}`,
  );
}

export async function checkDeployerRole(env: string, roleArn: string, ctx: CheckContext): Promise<CheckOutcome> {
  const result = await ctx.cloud(env).assumeRole(roleArn, ctx.signal);
  if (!result.ok) {
    const outcome = fromCloudFailure(result, ['forbidden']);
    return {
      ...outcome,
      message: `cannot assume ${roleArn}: ${result.message}`,
      hint: outcome.hint ?? 'the role trust policy must allow this principal (sts:AssumeRole)',
    };
  }
  return pass(result.value.note ? `${roleArn}: ${result.value.note}` : `assumed as ${result.value.arn}`);
}

export async function checkStateBucket(env: string, bucket: string, ctx: CheckContext): Promise<CheckOutcome> {
  const result = await ctx.cloud(env).checkBucket(bucket, ctx.signal);
  if (!result.ok) return fromCloudFailure(result, ['forbidden']);
  return pass(`s3://${bucket} readable${result.value.region ? ` (${result.value.region})` : ''}`);
}

export async function checkUnitState(env: string, state: StateLocation, ctx: CheckContext): Promise<CheckOutcome> {
  switch (state.type) {
    case 'unchecked':
      return { status: 'skip', message: state.reason };
    case 'unresolved':
      return error(state.reason, { hint: 'make remote_state bucket/key evaluate offline, or set aws.state_bucket' });
    case 's3':
      break;
  }
  const where = `s3://${state.bucket}/${state.key}`;
  const result = await ctx.cloud(env).readState(state.bucket, state.key, state.region, ctx.signal);
  if (!result.ok) {
    if (result.reason === 'not-found') return fail(`${result.message} (never applied, or destroyed)`);
    return fromCloudFailure(result);
  }
  if (result.value.resources === 0) return fail(`${where} holds no resources (destroyed, or never applied)`);
  const serial = result.value.serial === undefined ? '' : `, serial ${result.value.serial}`;
  return pass(`${result.value.resources} resources${serial}`);
}

/**
 * DNS delegation: the NS records the parent zone publishes for `zone` must equal the name servers of the hosted
 * zone. The parent's records come from Route 53 when the parent zone is in the same account (exact: what the
 * parent publishes), otherwise from DNS resolvers (what the world sees; a stale delegation there shows as a
 * different NS set or a resolution failure).
 */
export async function checkDnsDelegation(env: string, zone: string, ctx: CheckContext): Promise<CheckOutcome> {
  const route53 = await ctx.cloud(env).route53();
  if (!route53.ok) return fromCloudFailure(route53);
  const client = route53.value;
  const wanted = normalizeDomain(zone);
  // The zone's own name servers and the parent's records are independent: ask for both at once.
  const [hostedResult, parentResult] = await Promise.allSettled([
    (async () => {
      const zones = (await client.findHostedZones(wanted, ctx.signal)).filter((z) => !z.privateZone);
      const first = zones[0];
      if (!first) return undefined;
      const { nameServers } = await client.getHostedZone(first.id, ctx.signal);
      return { id: first.id, nameServers };
    })(),
    parentNsFromRoute53(client, wanted, ctx.signal),
  ]);
  if (hostedResult.status === 'rejected') return route53Error(hostedResult.reason, ctx, env);
  const hosted = hostedResult.value;
  if (!hosted) return fail(`no public hosted zone named ${wanted} in this account`);
  if (hosted.nameServers.length === 0) return error(`hosted zone ${wanted} (${hosted.id}) has no delegation set`);
  if (parentResult.status === 'rejected') return route53Error(parentResult.reason, ctx, env);

  let parent = parentResult.value;
  if (!parent) {
    try {
      const records = await ctx.deps.resolveNs(wanted, ctx.signal);
      parent = { source: 'DNS', nameServers: records.map(normalizeDomain) };
    } catch (thrown) {
      const code = (thrown as { code?: unknown }).code;
      return fail(
        `DNS has no NS records for ${wanted} (${typeof code === 'string' ? code : String(thrown)}): the zone is not delegated`,
        { details: [`hosted zone name servers: ${sorted(hosted.nameServers).join(', ')}`] },
      );
    }
  }
  if (parent.nameServers.length === 0) {
    return fail(`${parent.source} has no NS record for ${wanted}: the zone is not delegated`, {
      details: [`hosted zone name servers: ${sorted(hosted.nameServers).join(', ')}`],
    });
  }
  const expected = new Set(hosted.nameServers);
  const actual = new Set(parent.nameServers);
  const missing = [...expected].filter((ns) => !actual.has(ns));
  const extra = [...actual].filter((ns) => !expected.has(ns));
  if (missing.length === 0 && extra.length === 0) {
    return pass(`${parent.source} delegates ${wanted} to its ${expected.size} name servers`);
  }
  return fail(`${parent.source} delegates ${wanted} to other name servers than the hosted zone's`, {
    details: [
      `parent: ${sorted(parent.nameServers).join(', ')}`,
      `hosted zone ${hosted.id}: ${sorted(hosted.nameServers).join(', ')}`,
    ],
    hint: `set the NS record of ${wanted} in its parent zone to the hosted zone's name servers`,
  });
}

/** The closest enclosing public zone in the account, and the NS values it publishes for `zone`. */
async function parentNsFromRoute53(
  client: Route53Reader,
  zone: string,
  signal: AbortSignal,
): Promise<{ source: string; nameServers: string[] } | undefined> {
  const labels = zone.split('.');
  // Stop before the top-level domain: nobody hosts `com` in their account.
  for (let i = 1; i < labels.length - 1; i += 1) {
    const parentName = labels.slice(i).join('.');
    const parent = (await client.findHostedZones(parentName, signal)).find((z) => !z.privateZone);
    if (parent) {
      const values = await client.recordValues(parent.id, zone, 'NS', signal);
      return { source: `Route 53 zone ${parentName} (${parent.id})`, nameServers: values.map(normalizeDomain) };
    }
  }
  return undefined;
}

function route53Error(thrown: unknown, ctx: CheckContext, env: string): CheckOutcome {
  if (ctx.signal.aborted) return error('no answer from Route 53');
  if (isAuthError(thrown)) {
    const message = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
    return {
      status: 'error',
      message: `Route 53 rejected the credentials: ${message}`,
      hint: loginHint(ctx.cloud(env).profile),
      authFailure: true,
    };
  }
  const name = thrown instanceof Error ? thrown.name : 'Error';
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return error(`Route 53: ${name}: ${message}`);
}

function sorted(values: Iterable<string>): string[] {
  return [...values].sort();
}
