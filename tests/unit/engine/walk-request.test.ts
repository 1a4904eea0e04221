import { describe, expect, it } from 'vitest';
import { missingTool } from '../../../engine/tools.js';
import {
  breakLockMisuse,
  invocation,
  recoveryResume,
  recoverySwitches,
  resumeCommand,
  rollbackMode,
  unattendedTeardown,
} from '../../../engine/walk-request.js';

describe('walk request', () => {
  it('rollback: on by flag or configuration, refused only over the configuration, never for teardown', () => {
    expect(rollbackMode('bootstrap', {}, { rollback: 'never' })).toEqual({});
    expect(rollbackMode('bootstrap', { 'rollback-on-failure': true }, { rollback: 'never' })).toEqual({
      rollback: 'on_failure',
    });
    expect(rollbackMode('bootstrap', {}, { rollback: 'on_failure' })).toEqual({ rollback: 'on_failure' });
    expect(rollbackMode('bootstrap', { 'no-rollback': true }, { rollback: 'on_failure' })).toEqual({
      rollback: 'refused',
    });
    expect(rollbackMode('bootstrap', { 'no-rollback': true }, { rollback: 'never' })).toEqual({});
    expect(rollbackMode('teardown', { 'rollback-on-failure': true }, { rollback: 'on_failure' })).toEqual({});
  });

  it('recoveries: the configuration and --recover together', () => {
    expect([...recoverySwitches({ recover: [] }, {})]).toEqual([]);
    expect([...recoverySwitches({ recover: ['helm-pending'] }, { recover: 'helm-pending' })]).toEqual(['helm-pending']);
  });

  it('command lines: as typed, the one that resumes, the one a recovery names', () => {
    const flags = { env: ['prod'], unit: ['prod/vpc'], 'with-deps': true, parallelism: 2, yes: true, resume: false };
    expect(invocation('bootstrap', flags)).toBe(
      'platctl bootstrap --env prod --unit prod/vpc --with-deps --parallelism 2 --yes',
    );
    expect(resumeCommand('teardown', flags)).toBe('platctl teardown --resume --env prod --parallelism 2 --yes');
    expect(recoveryResume(flags)).toBe('platctl bootstrap --resume --env prod');
  });

  it('refusals before a run: --break-lock without a shared lock, an unattended teardown without --yes', () => {
    expect(breakLockMisuse({ 'break-lock': true }, true, '.platctl.yaml')).toBeUndefined();
    expect(breakLockMisuse({ 'break-lock': true }, false, '/r/.platctl.yaml')?.message).toContain(
      '/r/.platctl.yaml uses the local backend',
    );
    expect(unattendedTeardown({ yes: true }, false)).toBeUndefined();
    expect(unattendedTeardown({}, true)).toBeUndefined();
    expect(unattendedTeardown({}, false)).toContain('pass --yes');
  });

  it('a missing tool names where its name came from and how to fix it', () => {
    const fromConfig = missingTool(
      'terragrunt',
      'terragrunt',
      'terragrunt.binary',
      { type: 'missing', reason: 'not-found', searched: 'PATH' },
      '/r/.platctl.yaml',
    );
    expect(fromConfig.message).toBe(
      'terragrunt "terragrunt" (from terragrunt.binary) was not found on PATH; nothing was run.',
    );
    expect(fromConfig.hint).toContain('point terragrunt.binary in /r/.platctl.yaml (or set PLATCTL_TERRAGRUNT) at it');
    const fromEnv = missingTool(
      'tf_path',
      './tofu',
      'PLATCTL_TF_PATH',
      { type: 'missing', reason: 'not-executable', searched: '/r/tofu' },
      '/r/.platctl.yaml',
    );
    expect(fromEnv.message).toBe('tf_path "./tofu" (from PLATCTL_TF_PATH) is not executable; nothing was run.');
    expect(fromEnv.hint).toContain('or point PLATCTL_TF_PATH at it.');
  });
});
