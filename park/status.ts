/**
 * The park state as `platctl status` reads it: from the local `.platctl-park/<env>.json` files (the mirror of the
 * record, and the last down/up step by step). Offline and cheap: no AWS call.
 */
import type { ParkFile } from './record.js';
import { loadParkFile, parkFileEnvs } from './record.js';

/** Every park file under `root`, for status. */
export async function parkFiles(root: string): Promise<ParkFile[]> {
  const out: ParkFile[] = [];
  for (const env of await parkFileEnvs(root)) {
    const loaded = await loadParkFile(root, env);
    if (loaded.type === 'ok') out.push(loaded.file);
  }
  return out;
}

/** Lines for `platctl status`: per environment, parked or not, since when, by whom, the sizes, the last down/up. */
export function renderParkStatus(files: readonly ParkFile[]): string {
  if (files.length === 0) return '';
  const lines: string[] = ['Park state:'];
  for (const file of files) {
    const record = file.record;
    if (!record) lines.push(`  ${file.env}: no record`);
    else if (record.status === 'parked') {
      lines.push(
        `  ${file.env}: PARKED since ${record.parked_at} by ${record.parked_by.user}@${record.parked_by.host}`,
      );
    } else {
      lines.push(`  ${file.env}: not parked (last parked ${record.parked_at}, unparked ${record.unparked_at ?? '?'})`);
    }
    if (record) {
      const sizes = Object.entries(record.node_groups).map(([n, s]) => `${n} ${s.min}/${s.max}/${s.desired}`);
      if (sizes.length > 0) lines.push(`    recorded sizes (min/max/desired): ${sizes.join(', ')}`);
      if (file.record_location) lines.push(`    record: ${file.record_location}`);
    }
    const last = file.last;
    if (last) {
      lines.push(
        `    last ${last.op}: ${last.status}, started ${last.started_at} by ${last.by.user}@${last.by.host}` +
          `${last.resumes > 0 ? `, resumed ${last.resumes}x` : ''}`,
      );
      for (const [name, step] of Object.entries(last.steps)) {
        const took = step.duration_ms === undefined ? '' : ` (${Math.round(step.duration_ms / 100) / 10}s)`;
        lines.push(`      ${step.status.padEnd(9)} ${name}${took}${step.detail ? `: ${step.detail}` : ''}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
