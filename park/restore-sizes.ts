/**
 * What `down` checks before its first step: the record it would keep or write. A record platctl does not understand
 * refuses the environment (never acted on, never overwritten). Without a parked record, the sizes `down` records are
 * the live ones; when every parked node group is already at zero those are not the sizes to restore (a record lost,
 * moved away, or a group scaled down by hand), so `down` refuses unless they are given with
 * `--restore-size GROUP=MIN/MAX/DESIRED`. It never records zeros as pre-park sizes.
 */
import type { NodeGroupSize } from '../cloud/park-aws.js';
import type { ParkContext, StepFailure } from './context.js';
import { failed, fromCloud } from './context.js';
import { parkedGroups } from './down.js';

/** `GROUP=MIN/MAX/DESIRED`, as `--restore-size` takes it. */
export function parseRestoreSize(text: string): { group: string; size: NodeGroupSize } | { error: string } {
  const match = /^([^=\s]+)=(\d+)\/(\d+)\/(\d+)$/.exec(text.trim());
  if (!match) {
    return { error: `--restore-size ${JSON.stringify(text)}: give GROUP=MIN/MAX/DESIRED, e.g. system=2/4/3` };
  }
  const [min, max, desired] = [match[2], match[3], match[4]].map(Number) as [number, number, number];
  if (max < 1 || min > desired || desired > max) {
    return {
      error: `--restore-size ${text}: need 1 <= MAX and MIN <= DESIRED <= MAX (the order is MIN/MAX/DESIRED)`,
    };
  }
  return { group: match[1] ?? '', size: { min, max, desired } };
}

function text(size: NodeGroupSize): string {
  return `${size.min}/${size.max}/${size.desired}`;
}

/**
 * Why `down` must not start on this environment, or undefined. Sets nothing: the record step reads the record again
 * and builds it with {@link ParkContext.restoreSizes}.
 */
export async function downRefusal(ctx: ParkContext): Promise<StepFailure | undefined> {
  const existing = await ctx.records.read();
  if (!existing.ok) return fromCloud(existing);
  const given = ctx.restoreSizes ?? {};
  const named = Object.keys(given);
  if (existing.value?.status === 'parked') {
    if (named.length === 0) return undefined;
    return failed(
      'error',
      `--restore-size: ${ctx.records.location} already records the sizes up restores ` +
        `(${Object.entries(existing.value.node_groups)
          .map(([name, size]) => `${name} ${text(size)}`)
          .join(', ')}, min/max/desired)`,
      'drop --restore-size; to change a recorded size, repair the record by hand (docs/park.md, "The record")',
    );
  }
  const groups = await parkedGroups(ctx);
  if (!groups.ok) return fromCloud(groups);
  const unknown = named.filter((name) => !groups.value.some((g) => g.name === name));
  if (unknown.length > 0) {
    return failed(
      'error',
      `--restore-size names ${unknown.join(', ')}, not a node group park.${ctx.env} parks ` +
        `(${groups.value.map((g) => g.name).join(', ') || 'none'})`,
      'give the sizes of the parked node groups only',
    );
  }
  const running = groups.value.filter((g) => named.includes(g.name) && (g.min !== 0 || g.desired !== 0));
  if (running.length > 0) {
    return failed(
      'error',
      `--restore-size ${running.map((g) => g.name).join(', ')}: not at zero (${running
        .map((g) => `${g.name} is ${text(g)}`)
        .join('; ')}); down records the live sizes of a group that runs`,
      'give --restore-size only for node groups already at 0',
    );
  }
  const zero = groups.value.filter((g) => g.min === 0 && g.desired === 0);
  const missing = zero.filter((g) => given[g.name] === undefined);
  if (groups.value.length === 0 || zero.length < groups.value.length || missing.length === 0) return undefined;
  const last = existing.value;
  const example = missing
    .map(
      (g) =>
        `--restore-size ${g.name}=${last?.node_groups[g.name] ? text(last.node_groups[g.name]!) : 'MIN/MAX/DESIRED'}`,
    )
    .join(' ');
  return failed(
    'error',
    `every node group of ${ctx.env} is already at 0 (${groups.value.map((g) => `${g.name} ${text(g)}`).join(', ')}, ` +
      `min/max/desired) and there is no parked record at ${ctx.records.location}: down cannot know the sizes up ` +
      `must restore, and never records zeros`,
    `give them: platctl down --env ${ctx.env} ${example}` +
      (last ? ` (the values shown are the last record's, unparked ${last.unparked_at ?? '?'})` : '') +
      `; or put the park record back (a local .platctl-park/${ctx.env}.json moved aside: repair it and move it back)`,
  );
}
