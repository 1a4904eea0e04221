import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childPath } from '../../../discover/scan.js';

describe('childPath', () => {
  it('is join for every directory and name discovery builds paths from', () => {
    const dirs = ['/', '/repo', '/repo/live/dev', '/repo/live/dev/'];
    const names = ['terragrunt.hcl', 'root.hcl', '.git', '_envcommon/app.hcl', 'a/b/c.hcl', '...', '.hidden/x'];
    for (const dir of dirs)
      for (const name of names) expect(childPath(dir, name), `${dir} + ${name}`).toBe(join(dir, name));
  });

  it('normalises like join when the name is not plain', () => {
    for (const name of ['../root.hcl', './env.hcl', 'a//b.hcl', 'a/./b.hcl', 'a/../b.hcl', '', '/abs.hcl', 'dir/']) {
      expect(childPath('/repo/live', name), name).toBe(join('/repo/live', name));
    }
  });
});
