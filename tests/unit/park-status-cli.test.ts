/**
 * The CLI's wiring of the park rules (cli/park-status.ts): the store it builds for each environment from
 * `.platctl.yaml` (here local: no state bucket), the words it prints and the exit code of a record a teardown could
 * not remove. The rules themselves are tested in tests/unit/park/rules.test.ts.
 */
import { mkdir } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { bootstrapParkRefusal, clearParkRecordsAfterTeardown } from '../../cli/park-status.js';
import type { CliIo } from '../../cli/verb.js';
import { EXIT } from '../../cli/verb.js';
import { parseConfig } from '../../config/load.js';
import type { PlatctlConfig } from '../../config/schema.js';
import { Graph } from '../../engine/graph.js';
import type { UnitState } from '../../engine/state.js';
import type { ParkRecord } from '../../park/record.js';
import { PARK_RECORD_VERSION, parkFilePath, saveParkFile } from '../../park/record.js';
import { tempDir } from '../helpers/temp.js';

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

const CONFIG = `version: 1
environments:
  platform:
    dir: live/platform
    cluster: { name: platform-eks }
  staging:
    dir: live/staging
park:
  platform: {}
`;

function config(): PlatctlConfig {
  const parsed = parseConfig(CONFIG, '/repo/.platctl.yaml');
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.value.config;
}

function parked(): ParkRecord {
  return {
    version: 1,
    env: 'platform',
    cluster: 'platform-eks',
    status: 'parked',
    parked_at: '2026-11-30T22:00:00.000Z',
    parked_by: { host: 'cron-host', user: 'cron' },
    node_groups: { system: { min: 2, max: 4, desired: 3 } },
    karpenter: { nodepools: [], ec2nodeclasses: [] },
    bastions: [],
    argocd: { namespace: 'argocd', apps: [] },
  };
}

function io(root: string): CliIo & { stderr: Collect } {
  return {
    stdout: new Collect(),
    stderr: new Collect(),
    env: {},
    cwd: root,
    color: false,
    signal: new AbortController().signal,
  };
}

/** `text` matched literally in a regular expression. */
const quote = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const done: UnitState = { status: 'completed', attempts: 1, wave: 0, dependencies: [] };

function platformTornDown(): { graph: Graph; state: { units: Record<string, UnitState> } } {
  const graph = new Graph();
  graph.addNode('platform/vpc', 'platform', 'live/platform/vpc');
  return { graph, state: { units: { 'platform/vpc': done } } };
}

describe('the park rules as the CLI wires them', () => {
  it('bootstrap --env staging runs beside a parked platform; a bootstrap of everything is refused', async () => {
    const root = await tempDir('platctl-park-cli-');
    await saveParkFile(root, { version: PARK_RECORD_VERSION, env: 'platform', record: parked(), durations_ms: {} });
    expect(await bootstrapParkRefusal(root, config(), { env: ['staging'] })).toBeUndefined();
    expect(await bootstrapParkRefusal(root, config(), {})).toBe(
      'platform is parked since 2026-11-30T22:00:00.000Z (by cron@cron-host); ' +
        'run `platctl up --env platform` first, or pass --force to bootstrap it parked',
    );
  });

  it('a teardown of the whole environment says which record it removed', async () => {
    const root = await tempDir('platctl-park-cli-');
    await saveParkFile(root, { version: PARK_RECORD_VERSION, env: 'platform', record: parked(), durations_ms: {} });
    const { graph, state } = platformTornDown();
    const out = new Collect();
    const cli = io(root);
    expect(await clearParkRecordsAfterTeardown(root, config(), graph, state, cli, out)).toBeUndefined();
    expect(out.text).toBe(`Park record of platform removed: ${parkFilePath(root, 'platform')}\n`);
    expect(cli.stderr.text).toBe('');
  });

  it('a record that cannot be removed: the teardown exits 1, saying what to delete by hand', async () => {
    const root = await tempDir('platctl-park-cli-');
    // A directory where the park file should be: platctl cannot remove it (even as root).
    const path = parkFilePath(root, 'platform');
    await mkdir(path, { recursive: true });
    const { graph, state } = platformTornDown();
    const out = new Collect();
    const cli = io(root);
    expect(await clearParkRecordsAfterTeardown(root, config(), graph, state, cli, out)).toBe(EXIT.failed);
    expect(out.text).toBe('');
    expect(cli.stderr.text).toMatch(
      new RegExp(
        // Not even readable as a record: it is refused unread, never removed.
        `^platctl: teardown of platform completed, but its park record could not be removed: cannot read ` +
          `${quote(path)}: .+; it was not removed\n`,
      ),
    );
    expect(cli.stderr.text).toMatch(
      new RegExp(
        `\n  hint: .+; then delete ${quote(path)} and ` +
          '\\.platctl-park/platform\\.json by hand, or platctl status and bootstrap will still see platform as parked\n$',
      ),
    );
  });
});
