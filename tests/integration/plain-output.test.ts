/**
 * What a non-terminal (cron, CI, `| tee`) shows of a bootstrap, through the built CLI and the fake terragrunt:
 * no colour codes from terragrunt in the lockdown lines, and still-running lines while a unit runs long.
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockdownBlock } from '../helpers/phases-config.js';
import { sandbox, until } from './engine-helpers.js';

describe('plain output of a walk (built CLI, fake terragrunt)', () => {
  it('strips the colour codes terragrunt printed from the lines of a retried lockdown step', async () => {
    const box = await sandbox();
    await appendFile(join(box.root, '.platctl.yaml'), lockdownBlock('  retry: { attempts: 2, interval: 100ms }\n'));
    const coloured =
      '\u001b[31m╷\u001b[0m \u001b[31m│\u001b[0m \u001b[1m\u001b[31mError: \u001b[0m\u001b[0m\u001b[1mupdating EKS Cluster (p) ' +
      'config: ResourceInUseException: update in progress\u001b[0m';
    await box.control({
      'platform/eks': { when_args: { '-var=public=false': { fail_times: 1, fail_say: [coloured] } } },
    });
    const result = await box.run(['bootstrap']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(
      /retry +lockdown step private-endpoint: .*ResourceInUseException: update in progress/,
    );
    expect(result.stdout).not.toContain('\u001b');
  });

  it('prints a still-running line while a unit runs, naming it and how long it has run', async () => {
    const box = await sandbox();
    const gate = join(box.root, '..', 'gate');
    // The unit runs until the test opens the gate: the test waits for the line, not for a clock.
    const waitForGate = `const f=${JSON.stringify(gate)};const t=setInterval(()=>{if(require('fs').existsSync(f))clearInterval(t)},20)`;
    await box.control({ 'platform/vpc': { exec: ['node', '-e', waitForGate] } });
    const run = box.start(['bootstrap', '--unit', 'platform/vpc'], { PLATCTL_PROGRESS_INTERVAL: '0.05' });
    let stdout = '';
    run.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await until(() => /still running: platform\/vpc \d/.test(stdout), 30_000, 'a still-running line');
    await writeFile(gate, '');
    const result = await run;
    expect(result.exitCode).toBe(0);
    const line = stdout.split('\n').find((l) => l.includes('still running'));
    expect(line).toMatch(/^\d\d:\d\d:\d\d still running: platform\/vpc \d+(ms|\.\ds)$/);
  });
});
