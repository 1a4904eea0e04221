/**
 * The Secrets Manager client against moto 5.2.1 over real HTTP. What moto does here, checked by these tests: ListSecrets
 * hides secrets scheduled for deletion unless IncludePlannedDeletion is set, and then shows their DeletedDate;
 * DeleteSecret with ForceDeleteWithoutRecovery works on a secret already scheduled for deletion; and moto frees the
 * name at once (AWS does so asynchronously: the hook's wait for that is tested with a fake in
 * tests/unit/hooks/secret-cleanup.test.ts). Where moto differs from AWS: creating a secret whose name is scheduled
 * for deletion fails with ResourceExistsException in moto, InvalidRequestException ("already scheduled for
 * deletion") in AWS; moto lets PutSecretValue write to a secret scheduled for deletion, AWS refuses.
 */
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { createSecretsManager, matchesSecretName } from '../../../cloud/secrets-manager.js';
import { useMoto } from '../../helpers/moto.js';

describe('Secrets Manager client against moto', () => {
  const moto = useMoto();
  const access = () => ({
    envName: 'platform',
    region: moto.region,
    env: moto.env,
    credentials: () => Promise.resolve({ accessKeyId: 'testing', secretAccessKey: 'testing' }),
  });
  const raw = () =>
    new SecretsManagerClient({
      region: moto.region,
      endpoint: moto.endpoint,
      credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    });
  async function seed(active: string[], pending: string[]): Promise<void> {
    const sm = raw();
    for (const name of [...active, ...pending])
      await sm.send(new CreateSecretCommand({ Name: name, SecretString: 'v' }));
    for (const name of pending) await sm.send(new DeleteSecretCommand({ SecretId: name, RecoveryWindowInDays: 7 }));
  }

  it('lists only secrets scheduled for deletion whose names match exactly or by prefix', async () => {
    await seed(['app/active'], ['app/db', 'app/db-replica', 'App/db', 'other/app/db', 'platform/es/key']);
    const sm = createSecretsManager(access());
    const found = await sm.listPendingDeletion({ names: ['app/db', 'app/active'], prefixes: ['platform/es/'] });
    expect(found.ok && found.value.map((s) => s.name)).toEqual(['app/db', 'platform/es/key']);
    expect(found.ok && found.value[0]?.deletionDate).toBeInstanceOf(Date);
  });

  it('force-deletes a secret scheduled for deletion, and the name can be created again', async () => {
    await seed([], ['app/db']);
    const sm = createSecretsManager(access());
    expect(await sm.state('app/db')).toEqual({ ok: true, value: 'pending-deletion' });
    const listed = await sm.listPendingDeletion({ names: ['app/db'], prefixes: [] });
    const arn = listed.ok ? listed.value[0]?.arn : undefined;
    expect(arn).toMatch(/^arn:aws:secretsmanager:eu-west-1:\d{12}:secret:app\/db-/);
    expect(await sm.forceDelete(arn ?? '')).toEqual({ ok: true, value: undefined });
    expect(await sm.state('app/db')).toEqual({ ok: true, value: 'absent' });
    await expect(raw().send(new CreateSecretCommand({ Name: 'app/db', SecretString: 'new' }))).resolves.toBeDefined();
    expect(await sm.state('app/db')).toEqual({ ok: true, value: 'active' });
  });

  it('puts a value, and names a missing secret with what to do', async () => {
    await seed(['platform/backstage/argocd-token'], []);
    const sm = createSecretsManager(access());
    const put = await sm.putValue('platform/backstage/argocd-token', 'the-value');
    expect(put.ok).toBe(true);
    const read = await raw().send(new GetSecretValueCommand({ SecretId: 'platform/backstage/argocd-token' }));
    expect(read.SecretString).toBe('the-value');

    const missing = await sm.putValue('platform/nope', 'the-value');
    expect(missing).toMatchObject({ ok: false, reason: 'not-found' });
    expect(!missing.ok && missing.message).toContain('secret platform/nope does not exist in eu-west-1');
    expect(!missing.ok && missing.hint).toContain('aws_secretsmanager_secret');
    expect(JSON.stringify(missing)).not.toContain('the-value');
  });

  it('fails as a value when Secrets Manager cannot be reached', async () => {
    const sm = createSecretsManager({
      ...access(),
      env: { ...moto.env, AWS_ENDPOINT_URL: 'http://127.0.0.1:9' },
      maxAttempts: 1,
    });
    const listed = await sm.listPendingDeletion({ names: ['a'], prefixes: [] });
    expect(listed).toMatchObject({ ok: false, reason: 'unreachable' });
  });

  it('matches names exactly and prefixes case-sensitively', () => {
    const match = { names: ['app/db'], prefixes: ['es/'] };
    expect(matchesSecretName('app/db', match)).toBe(true);
    expect(matchesSecretName('app/db2', match)).toBe(false);
    expect(matchesSecretName('es/key', match)).toBe(true);
    expect(matchesSecretName('ES/key', match)).toBe(false);
  });
});
