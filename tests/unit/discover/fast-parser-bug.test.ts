import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../../config/load.js';
import { discover } from '../../../discover/index.js';
import type * as FileExpression from '../../../discover/hcl/file-expression.js';

// A bug planted in the fast file parser: an exception (not a decline) on one attribute name.
vi.mock('../../../discover/hcl/file-expression.js', async (importOriginal) => {
  const actual = await importOriginal<typeof FileExpression>();
  return {
    ...actual,
    checkKey: (...args: Parameters<typeof actual.checkKey>) => {
      if (args[1] === 'trigger_planted_bug') throw new TypeError('planted bug');
      return actual.checkKey(...args);
    },
  };
});

const root = mkdtempSync(join(tmpdir(), 'platctl-fast-parser-bug-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe('an exception inside the fast file parser', () => {
  write('.platctl.yaml', 'version: 1\nenvironments:\n  dev:\n    dir: live\n');
  write('live/db/terragrunt.hcl', '');
  write(
    'live/app/terragrunt.hcl',
    'locals {\n  trigger_planted_bug = 1\n}\n\ndependency "db" {\n  config_path = "../db"\n}\n',
  );
  const run = async () => {
    const loaded = parseConfig('version: 1\nenvironments:\n  dev:\n    dir: live\n', join(root, '.platctl.yaml'));
    if (!loaded.ok) throw new Error('bad test config');
    return discover({ root, config: loaded.value.config, env: {} }, { version: 'test' });
  };

  it('leaves the graph right (hcl2json parses the file) and says it is a platctl bug, with the stack', async () => {
    const result = await run();
    expect(result.graph.get('dev/app')?.dependencies).toEqual(new Set(['dev/db']));
    expect(result.problems).toHaveLength(1);
    const [problem] = result.problems;
    expect(problem).toMatchObject({
      severity: 'warning',
      kind: 'internal-error',
      location: { file: join(root, 'live/app/terragrunt.hcl'), line: 1 },
    });
    expect(problem?.message).toContain('platctl bug');
    expect(problem?.message).toContain('live/app/terragrunt.hcl (planted bug)');
    expect(problem?.details?.[0]).toBe('TypeError: planted bug');
    expect(problem?.details?.some((line) => line.includes('fast-parser-bug.test.ts'))).toBe(true);
    expect(problem?.hint).toContain('report');
  });

  it('is reported again by the next run: no cache keeps the file or its unit past the bug', async () => {
    const again = await run();
    expect(again.stats.fromSnapshot).toBe(false);
    expect(again.problems.map((p) => p.kind)).toEqual(['internal-error']);
    expect(again.graph.get('dev/app')?.dependencies).toEqual(new Set(['dev/db']));
    // The unit that reads no such file is reused as usual.
    expect(again.stats.unitsReused).toBe(1);
  });
});
