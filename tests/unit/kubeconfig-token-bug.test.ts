/**
 * A bug after the token is signed (here: in keeping it) is reported as a bug of platctl's (exit 70), never dressed up
 * as a login problem ("cannot sign an EKS token ... aws sso login").
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp.js';
import type * as TokenCache from '../../cloud/eks-token-cache.js';

vi.mock('../../cloud/eks-token-cache.js', async (original) => ({
  ...(await original<typeof TokenCache>()),
  keepToken: () => Promise.reject(new TypeError("Cannot read properties of undefined (reading 'getTime')")),
}));

describe('kubeconfig token', () => {
  it('reports a bug after signing as a bug (exit 70), not as a credentials problem', async () => {
    const dir = await tempDir('platctl-token-bug-');
    await mkdir(join(dir, 'live'));
    await writeFile(
      join(dir, '.platctl.yaml'),
      'version: 1\nenvironments:\n  platform:\n    dir: live\n    aws: { region: eu-west-1 }\n    cluster: { name: platform }\n',
    );
    const run = await runCli(['kubeconfig', 'token', '--env', 'platform'], {
      cwd: dir,
      env: { HOME: join(dir, 'home'), AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' },
    });
    expect(run.code).toBe(70);
    expect(run.stderr).not.toContain('cannot sign an EKS token');
    expect(run.stderr).toContain("Cannot read properties of undefined (reading 'getTime')");
  });
});
