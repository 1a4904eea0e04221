import { describe, expect, it } from 'vitest';
import { Redactor, secretValues, stripAnsi } from '../../../engine/redact.js';

describe('Redactor', () => {
  const r = (): Redactor => new Redactor(['hunter2-long-secret']);

  it('masks known secret values wherever they appear', () => {
    expect(r().line('connecting with hunter2-long-secret now')).toBe('connecting with *** now');
  });

  it.each([
    ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_access_key = ***'],
    ['export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE', 'export AWS_ACCESS_KEY_ID=***'],
    ['id AKIAIOSFODNN7EXAMPLE used', 'id *** used'],
    ['-var=db_password=s3cr3tP4ss', '-var=db_password=***'],
    ['"client_secret": "abc123def456"', '"client_secret": "***"'],
    ['  password = "correct horse battery staple"', '  password = "***"'],
    ["db_passphrase: 'two words' # set by hand", "db_passphrase: '***' # set by hand"],
    [
      'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N',
      'Authorization: Bearer ***',
    ],
    ['postgres://admin:pa55word@db.internal:5432/app', 'postgres://admin:***@db.internal:5432/app'],
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'token ***'],
    ['pat github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZab done', 'pat *** done'],
  ])('masks %s', (input, expected) => {
    expect(r().line(input)).toBe(expected);
  });

  it('leaves ordinary Terraform output and already-sensitive markers alone', () => {
    for (const line of [
      'aws_vpc.this: Creation complete after 2s [id=vpc-0a1b2c3d]',
      'Apply complete! Resources: 3 added, 0 changed, 0 destroyed.',
      '  + password = (sensitive value)',
    ]) {
      expect(r().line(line)).toBe(line);
    }
  });

  it('errs on the side of masking when a key merely looks secret', () => {
    expect(r().line('token_ttl = 3600s')).toBe('token_ttl = ***');
  });

  it('masks a whole PEM private key block', () => {
    const redactor = r();
    const out = [
      'key:',
      '-----BEGIN RSA PRIVATE KEY-----',
      'MIIEowIBAAKCAQEA',
      '-----END RSA PRIVATE KEY-----',
      'after',
    ].map((l) => redactor.line(l));
    expect(out).toEqual(['key:', '***', '***', '***', 'after']);
  });

  it('takes secret values from variables with secret-looking names only', () => {
    expect(
      secretValues({
        GITHUB_TOKEN: 'abcdefgh',
        DB_PASSWORD: 'longenough',
        HOME: '/home/me',
        SHORT_TOKEN: 'abc',
      }).sort(),
    ).toEqual(['abcdefgh', 'longenough']);
  });

  it('strips terminal colours', () => {
    expect(stripAnsi('\u001b[1m\u001b[32mApply complete!\u001b[0m')).toBe('Apply complete!');
  });
});
