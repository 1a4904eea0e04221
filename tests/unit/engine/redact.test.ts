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

// Fake tokens in the real shapes (random characters; none of them was ever issued).
describe('Redactor: vendor token shapes', () => {
  it.each([
    ['GitLab personal access token', 'remote: glpat-Xk3v9QmZpL7rT2wYb8Nc used', 'remote: *** used'],
    ['GitLab routable token', 'token glpat-1a2B3c4D5e6F7g8H9i0JkLmNoPq.01.0z1y2x3w4 ok', 'token *** ok'],
    [
      'GitLab deploy token',
      'git clone https://gldt-Hq8r2Kx9LmP4vT7wZc3N@gitlab.example.com/x.git',
      'git clone https://***@gitlab.example.com/x.git',
    ],
    ['GitLab runner token', 'runner glrt-t1_Aq9Xk3v9QmZpL7rT2wYb8 registered', 'runner *** registered'],
    ['Slack bot token', 'slack xoxb-2710456981-5530127465813-Q2kVn8RtYp4LmZc7Wx3BdHfJ posted', 'slack *** posted'],
    [
      'Slack user token',
      'SLACK=xoxp-2710456981-2718834571-5530127465813-9f8e7d6c5b4a39281706f5e4d3c2b1a0',
      'SLACK=***',
    ],
    ['Slack refreshable token', 'got xoxe.xoxp-1-Mi0yLTI3MTA0NTY5ODEtNTUzMDEyNzQ2NTgxMw here', 'got *** here'],
    ['Slack app token', 'app xapp-1-A05QWERTY12-5530127465813-4f3e2d1c0b9a8f7e6d5c4b3a29180716 ok', 'app *** ok'],
    [
      'Slack webhook',
      'POST https://hooks.slack.com/services/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',
      'POST https://hooks.slack.com/services/***',
    ],
    ['AWS access key id after an underscore', 'AWS_KEY_AKIAZ7Q2XK4MN8PV3RTL set', 'AWS_KEY_*** set'],
    [
      'AWS temporary key id in JSON',
      '{"AccessKeyId":"ASIAZ7Q2XK4MN8PV3RTL","Expiration":"soon"}',
      '{"AccessKeyId":"***","Expiration":"soon"}',
    ],
    [
      'GitHub app installation token',
      'x-access-token:ghs_8Kq2Vn5Rt9Yp3Lm7Zc1Wx4Bd6Hf0Jg2Ns8Qe in url',
      'x-access-token:*** in url',
    ],
    [
      'Vault service token',
      'VAULT_TOKEN is hvs.CAESIJk3v9QmZpL7rT2wYb8NcXq4Ld6Hf0Jg2Ns8QeGh4KHAoaaHZzLmFCQ now',
      'VAULT_TOKEN is *** now',
    ],
    [
      'Terraform Cloud token',
      'credentials Zk3v9QmZpL7rTw.atlasv1.Xk3v9QmZpL7rT2wYb8NcXq4Ld6Hf0Jg2Ns8QeGh4KHAoaaHZzLmFCQ1234 end',
      'credentials *** end',
    ],
    ['npm token', '//registry/:_authToken npm_Xk3v9QmZpL7rT2wYb8NcXq4Ld6Hf0Jg2Ns8Q', '//registry/:_authToken ***'],
    ['Stripe live key', 'stripe sk_live_51Hq8r2Kx9LmP4vT7wZc3NXk3v9QmZpL7rT2wYb8 ok', 'stripe *** ok'],
    ['Google API key', 'maps AIzaSyDk3v9QmZpL7rT2wYb8NcXq4Ld6Hf0Jg2N key', 'maps *** key'],
  ])('masks a %s', (_what, input, expected) => {
    expect(new Redactor().line(input)).toBe(expected);
  });
});

describe('Redactor: multi-line secret values', () => {
  const pem = [
    '-----BEGIN CERTIFICATE-----',
    'MIIBszCCAVmgAwIBAgIUQ2k3v9QmZpL7rT2wYb8NcXq4Ld6wCgYIKoZIzj0EAwIw',
    'FjEUMBIGA1UEAwwLZXhhbXBsZS5jb20wHhcNMjYwMTAxMDAwMDAwWhcNMjcwMTAx',
    '-----END CERTIFICATE-----',
  ].join('\n');

  it('masks every line of a multi-line secret value (a PEM in an environment variable), in any order', () => {
    const redactor = new Redactor(secretValues({ TLS_CLIENT_SECRET: pem }));
    const lines = pem.split('\n');
    expect(redactor.line(`cert ${lines[1]}`)).toBe('cert ***');
    expect(redactor.line(`  ${lines[2]}  `)).toBe('  ***  ');
  });

  it('masks a multi-line secret value printed JSON-escaped on one line', () => {
    const redactor = new Redactor(secretValues({ GOOGLE_CREDENTIALS_SECRET: 'line one of it\nline two of it' }));
    expect(redactor.line('{"v": "line one of it\\nline two of it"}')).toBe('{"v": "***"}');
  });

  it('keeps short lines of a multi-line value (a lone brace) from masking ordinary output', () => {
    const redactor = new Redactor(['{\n  "private_key_id": "3f2a9c8b7d6e5f4a"\n}']);
    expect(redactor.line('{')).toBe('{');
    expect(redactor.line('"private_key_id": "3f2a9c8b7d6e5f4a"')).toBe('***');
  });

  it('masks the body of a heredoc whose key looks secret, up to its terminator', () => {
    const redactor = new Redactor();
    const out = [
      '  + resource "aws_secretsmanager_secret_version" "db" {',
      '      + secret_string = <<-EOT',
      '            first line of the secret',
      '            second line',
      '        EOT',
      '      + version_stages = ["AWSCURRENT"]',
    ].map((l) => redactor.line(l));
    expect(out).toEqual([
      '  + resource "aws_secretsmanager_secret_version" "db" {',
      '      + secret_string = <<-EOT',
      '***',
      '***',
      '        EOT',
      '      + version_stages = ["AWSCURRENT"]',
    ]);
  });

  it('leaves a heredoc whose key does not look secret alone', () => {
    const redactor = new Redactor();
    const lines = ['      + user_data = <<-EOT', '            #!/bin/bash', '            echo hello', '        EOT'];
    expect(lines.map((l) => redactor.line(l))).toEqual(lines);
  });

  it('masks a YAML block scalar under a secret-looking key, while it stays indented', () => {
    const redactor = new Redactor();
    const out = ['data:', '  client-secret: |', '    first-line-of-it', '    second-line-of-it', '  name: app'].map(
      (l) => redactor.line(l),
    );
    expect(out).toEqual(['data:', '  client-secret: |', '***', '***', '  name: app']);
  });

  it('masks PGP and OpenSSH private key blocks too', () => {
    const redactor = new Redactor();
    const out = [
      '-----BEGIN PGP PRIVATE KEY BLOCK-----',
      'lQOYBGX3v9QBCADk3v9QmZpL7rT2wYb8NcXq4Ld6',
      '-----END PGP PRIVATE KEY BLOCK-----',
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ',
      '-----END OPENSSH PRIVATE KEY-----',
      'after',
    ].map((l) => redactor.line(l));
    expect(out).toEqual(['***', '***', '***', '***', '***', '***', 'after']);
  });
});
