/**
 * secret_cleanup. The clean-up runs against moto over HTTP. moto frees a force-deleted name at once, while AWS does
 * it asynchronously: the wait for that is tested with a fake SecretsManager that keeps names scheduled for deletion
 * for a few polls, on a fake clock.
 */
import { CreateSecretCommand, DeleteSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { createHookClients } from '../../../cloud/hook-clients.js';
import type { CloudResult } from '../../../cloud/result.js';
import { failure, ok } from '../../../cloud/result.js';
import type { SecretState, SecretsManager } from '../../../cloud/secrets-manager.js';
import { cleanupSecrets, secretCleanupHook } from '../../../hooks/secret-cleanup.js';
import { useMoto } from '../../helpers/moto.js';
import { hookContext } from './context.js';

describe('secret_cleanup against moto', () => {
  const moto = useMoto();
  const raw = () =>
    new SecretsManagerClient({
      region: moto.region,
      endpoint: moto.endpoint,
      credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    });
  const run = (settings: Record<string, unknown>) => {
    const clients = createHookClients({
      environments: { platform: { dir: 'live/platform', aws: { region: moto.region } } },
      env: moto.env,
    });
    const ctx = hookContext('secret_cleanup', settings, 'platform/external-secrets');
    return { ctx, result: secretCleanupHook(clients)(ctx.settings).beforeUnit?.(ctx) };
  };

  it('force-deletes the secrets scheduled for deletion that the unit creates, so the apply can create them', async () => {
    const sm = raw();
    for (const name of ['es/webhook', 'es/keys/a', 'other/keep', 'es/active']) {
      await sm.send(new CreateSecretCommand({ Name: name, SecretString: 'old' }));
    }
    for (const name of ['es/webhook', 'es/keys/a', 'other/keep']) {
      await sm.send(new DeleteSecretCommand({ SecretId: name, RecoveryWindowInDays: 30 }));
    }
    // What the apply would hit without the hook (moto's wording; AWS says "already scheduled for deletion").
    await expect(sm.send(new CreateSecretCommand({ Name: 'es/webhook', SecretString: 'new' }))).rejects.toThrow(
      /already exists/,
    );

    const { ctx, result } = run({ names: ['es/webhook'], prefixes: ['es/keys/'] });
    expect(await result).toEqual({
      ok: true,
      value: 'force-deleted 2 secrets scheduled for deletion: es/keys/a, es/webhook',
    });
    expect(ctx.lines).toContain('secret_cleanup: es/webhook is free');
    await sm.send(new CreateSecretCommand({ Name: 'es/webhook', SecretString: 'new' }));
    await sm.send(new CreateSecretCommand({ Name: 'es/keys/a', SecretString: 'new' }));
    // Not matched: still scheduled, so still in the way of its own name.
    await expect(sm.send(new CreateSecretCommand({ Name: 'other/keep', SecretString: 'new' }))).rejects.toThrow();
  });

  it('does nothing when no secret is scheduled for deletion', async () => {
    await raw().send(new CreateSecretCommand({ Name: 'es/active', SecretString: 'v' }));
    const { result } = run({ prefixes: ['es/'] });
    expect(await result).toEqual({ ok: true, value: 'no secret of this unit is scheduled for deletion' });
  });
});

/** A Secrets Manager whose force deletes finish after `lag` DescribeSecret calls per name, like AWS's. */
function laggingSecrets(pending: string[], lag: number) {
  const calls = new Map<string, number>();
  const deleted = new Set<string>();
  const sm: SecretsManager = {
    listPendingDeletion: () =>
      Promise.resolve(ok(pending.map((name) => ({ name, arn: `arn:aws:secretsmanager:eu-west-1:1:secret:${name}` })))),
    forceDelete: (arn) => {
      deleted.add(arn.split(':secret:')[1] ?? '');
      return Promise.resolve(ok(undefined));
    },
    state: (name): Promise<CloudResult<SecretState>> => {
      const seen = (calls.get(name) ?? 0) + 1;
      calls.set(name, seen);
      return Promise.resolve(ok(deleted.has(name) && seen > lag ? 'absent' : 'pending-deletion'));
    },
    putValue: () => Promise.resolve(failure('error', 'not used')),
  };
  return { sm, calls };
}

describe('secret_cleanup waiting for AWS', () => {
  function clock() {
    let now = 0;
    const sleeps: number[] = [];
    return {
      now: () => now,
      sleep: (ms: number) => {
        sleeps.push(ms);
        now += ms;
        return Promise.resolve();
      },
      sleeps,
    };
  }

  it('waits until every name is free', async () => {
    const { sm, calls } = laggingSecrets(['a', 'b'], 3);
    const time = clock();
    const ctx = hookContext('secret_cleanup', { names: ['a', 'b'] });
    const result = await cleanupSecrets(ctx, sm, { ...time, pollMs: 1000 });
    expect(result).toMatchObject({ ok: true });
    expect(calls.get('a')).toBe(4);
    expect(time.sleeps).toEqual([1000, 1000, 1000]);
  });

  it('fails after the timeout, naming the names AWS still holds', async () => {
    const { sm } = laggingSecrets(['a'], 1000);
    const time = clock();
    const ctx = hookContext('secret_cleanup', { names: ['a'], timeout: '10s' });
    const result = await cleanupSecrets(ctx, sm, { ...time, pollMs: 2000 });
    expect(result).toEqual({
      ok: false,
      reason: 'timeout',
      message:
        "secret_cleanup hook of platform/unit: a still scheduled for deletion 10s after the force delete: AWS has not finished it. Run bootstrap --resume in a minute, or raise the hook's timeout.",
    });
    expect(time.now()).toBe(10_000);
  });

  it('stops waiting when the run is interrupted', async () => {
    const { sm } = laggingSecrets(['a'], 1000);
    const ctx = hookContext('secret_cleanup', { names: ['a'] });
    const result = await cleanupSecrets(ctx, sm, {
      now: () => 0,
      sleep: () => {
        ctx.controller.abort();
        return Promise.resolve();
      },
    });
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('interrupted') as unknown });
  });

  it('reports a failed force delete', async () => {
    const { sm } = laggingSecrets(['a'], 0);
    sm.forceDelete = () => Promise.resolve(failure('forbidden', 'AccessDeniedException', 'the principal lacks it'));
    const result = await cleanupSecrets(hookContext('secret_cleanup', { names: ['a'] }), sm);
    expect(result).toEqual({
      ok: false,
      reason: 'forbidden',
      message:
        'secret_cleanup hook of platform/unit: force-deleting secret a: AccessDeniedException; the principal lacks it',
    });
  });
});
