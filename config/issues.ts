/**
 * Turns zod's validation issues into `ConfigError`s people can act on: the key named in their terms, the position
 * of the key or value they wrote, the value as they wrote it, and a hint (did-you-mean, quote it, the allowed
 * values).
 */
import type { z } from 'zod';
import type { ConfigError, KeyPath } from './errors.js';
import { didYouMean, formatKeyPath } from './errors.js';
import { configSchema } from './schema.js';
import { allowedKeysAt, describeKeyAt } from './schema-walk.js';
import type { ConfigSource } from './source.js';
import { configError, writtenText } from './source.js';

type Issue = z.core.$ZodIssue;

/** Maps every issue to one or more errors (an `unrecognized_keys` issue names several keys). */
export function issuesToErrors(issues: readonly Issue[], source: ConfigSource, data: unknown): ConfigError[] {
  const out: ConfigError[] = [];
  for (const issue of issues) out.push(...issueToErrors(issue, toKeyPath(issue.path), source, data));
  return out;
}

function toKeyPath(path: readonly PropertyKey[]): (string | number)[] {
  return path.map((part) => (typeof part === 'number' ? part : String(part)));
}

function valueAt(data: unknown, keyPath: KeyPath): unknown {
  let current = data;
  for (const part of keyPath) {
    if (Array.isArray(current) && typeof part === 'number') current = current[part] as unknown;
    else if (typeof current === 'object' && current !== null && !Array.isArray(current))
      current = (current as Record<string, unknown>)[String(part)];
    else return undefined;
  }
  return current;
}

function describeValue(value: unknown): string {
  if (value === null) return 'an empty value';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  return typeof value;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a map',
  record: 'a map',
};

function lastKey(keyPath: KeyPath): string {
  const last = keyPath[keyPath.length - 1];
  return last === undefined ? 'the file' : typeof last === 'number' ? `item ${last}` : last;
}

function issueToErrors(issue: Issue, keyPath: KeyPath, source: ConfigSource, data: unknown): ConfigError[] {
  const value = valueAt(data, keyPath);
  switch (issue.code) {
    case 'unrecognized_keys':
      return unknownKeys(issue.keys, keyPath, source, data);
    case 'invalid_type':
      return [wrongType(issue.expected, keyPath, value, source, data)];
    case 'invalid_value':
      return [notOneOf(issue.values, keyPath, value, source, data)];
    case 'invalid_format': {
      const what = issue.format === 'url' ? 'a URL such as https://argocd.example.com' : issue.message;
      const message = what.startsWith('Invalid')
        ? `${JSON.stringify(value)} is not valid: ${what}`
        : `${JSON.stringify(value)} is not ${what}`;
      return [configError(source, 'invalid-value', keyPath, message)];
    }
    case 'too_small':
    case 'too_big': {
      return [configError(source, 'invalid-value', keyPath, sizeMessage(issue, keyPath))];
    }
    case 'invalid_key': {
      const key = String(keyPath[keyPath.length - 1]);
      const inner = issue.issues[0];
      const what = inner?.message ?? 'a valid key';
      return [
        configError(source, 'invalid-key', keyPath, `${JSON.stringify(key)} is not ${what}`, {
          target: 'key',
        }),
      ];
    }
    case 'invalid_union':
      return unionErrors(issue, keyPath, value, source, data);
    case 'custom':
    case 'not_multiple_of':
    case 'invalid_element':
      return [configError(source, 'invalid-value', keyPath, issue.message)];
  }
}

/** Keys the schema does not know at `keyPath`, each with a did-you-mean or the keys allowed there. */
function unknownKeys(keys: readonly string[], keyPath: KeyPath, source: ConfigSource, data: unknown): ConfigError[] {
  const allowed = allowedKeysAt(configSchema, keyPath, data) ?? [];
  return keys.map((key) => {
    const suggestion = didYouMean(key, allowed);
    const hint =
      suggestion !== undefined
        ? `did you mean "${suggestion}"?`
        : allowed.length > 0
          ? `the keys allowed here are: ${[...allowed].sort().join(', ')}`
          : undefined;
    return configError(source, 'unknown-key', [...keyPath, key], `unknown key "${key}"`, { target: 'key', hint });
  });
}

/** A value of the wrong type, an absent required key, or a file that is not a map of settings. */
function wrongType(
  expectedType: string,
  keyPath: KeyPath,
  value: unknown,
  source: ConfigSource,
  data: unknown,
): ConfigError {
  const expected = EXPECTED[expectedType] ?? expectedType;
  if (value === undefined) return missingKey(source, keyPath, expected, data);
  if (keyPath.length === 0) {
    const message =
      value === null ? 'the file has no settings' : `the file must be a map of settings, not ${describeValue(value)}`;
    return configError(source, 'invalid-type', keyPath, message, {
      hint: 'start from .platctl.example.yaml (see docs/configuration.md)',
    });
  }
  return configError(
    source,
    'invalid-type',
    keyPath,
    `${lastKey(keyPath)} must be ${expected}, not ${describeValue(value)}`,
    { hint: typeHint(expectedType, value, writtenText(source, keyPath)) },
  );
}

/** A value outside its allowed set (a version platctl does not read among them), or an absent required one. */
function notOneOf(
  values: readonly unknown[],
  keyPath: KeyPath,
  value: unknown,
  source: ConfigSource,
  data: unknown,
): ConfigError {
  if (value === undefined) return missingKey(source, keyPath, values.map((v) => JSON.stringify(v)).join(' or '), data);
  if (keyPath.length === 1 && keyPath[0] === 'version') {
    return configError(source, 'invalid-value', keyPath, `unsupported version ${JSON.stringify(value)}`, {
      hint: 'this platctl reads version: 1',
    });
  }
  const allowed = values.map((v) => JSON.stringify(v));
  const suggestion =
    typeof value === 'string'
      ? didYouMean(
          value,
          values.filter((v): v is string => typeof v === 'string'),
        )
      : undefined;
  return configError(source, 'invalid-value', keyPath, `${JSON.stringify(value)} is not one of ${allowed.join(', ')}`, {
    hint: suggestion === undefined ? undefined : `did you mean "${suggestion}"?`,
  });
}

/** A required key that is absent: pointed at its parent's key, where it has to be added. */
function missingKey(source: ConfigSource, keyPath: KeyPath, expected: string, data: unknown): ConfigError {
  const parent = keyPath.slice(0, -1);
  const description = describeKeyAt(configSchema, keyPath, data);
  const key = lastKey(keyPath);
  const where = parent.length === 0 ? 'at the top level' : `in ${formatKeyPath(parent)}`;
  return configError(source, 'missing-key', keyPath, `missing required key "${key}" ${where}`, {
    locateAt: parent,
    target: 'key',
    hint: `add ${key}: ${expected}${description === undefined ? '' : ` (${description})`}`,
  });
}

function typeHint(expected: string, value: unknown, written: string | undefined): string | undefined {
  if (expected === 'string' && typeof value === 'number') {
    // YAML reads 012345678901 as the number 12345678901: the leading zero of an account id is gone.
    return `quote it so YAML keeps it a string: "${written ?? String(value)}"`;
  }
  if (expected === 'boolean' && typeof value === 'string') return 'write true or false (YAML 1.2: yes/no are strings)';
  if (expected === 'array' && typeof value === 'string') return `write a list: [${JSON.stringify(value)}]`;
  if (value === null) return 'give it a value, or remove the key';
  return undefined;
}

function sizeMessage(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig, keyPath: KeyPath): string {
  // zod's own messages start with "Too small"/"Too big"; a message the schema wrote itself is kept as is.
  if (!/^Too (small|big)/.test(issue.message)) return issue.message;
  const key = lastKey(keyPath);
  const small = issue.code === 'too_small';
  const limit = Number(small ? issue.minimum : issue.maximum);
  const inclusive = issue.inclusive !== false;
  if (issue.origin === 'array') {
    return small ? `${key} needs at least ${limit} item${limit === 1 ? '' : 's'}` : `${key} allows at most ${limit}`;
  }
  if (issue.origin === 'string') {
    return small && limit <= 1
      ? `${key} must not be empty`
      : `${key} must be ${small ? 'at least' : 'at most'} ${limit} characters long`;
  }
  const bound = small ? (inclusive ? 'at least' : 'greater than') : inclusive ? 'at most' : 'less than';
  return `${key} must be ${bound} ${limit}`;
}

function unionErrors(
  issue: z.core.$ZodIssueInvalidUnion,
  keyPath: KeyPath,
  value: unknown,
  source: ConfigSource,
  data: unknown,
): ConfigError[] {
  const discriminator = (issue as { discriminator?: unknown }).discriminator;
  const options = (issue as { options?: unknown }).options;
  if (typeof discriminator === 'string' && Array.isArray(options)) {
    const names = options.map(String);
    if (value === undefined) {
      return [
        configError(source, 'missing-key', keyPath, `missing required key "${discriminator}"`, {
          locateAt: keyPath.slice(0, -1),
          target: 'value',
          hint: `${discriminator} is one of ${names.join(', ')}`,
        }),
      ];
    }
    const suggestion = typeof value === 'string' ? didYouMean(value, names) : undefined;
    return [
      configError(source, 'invalid-value', keyPath, `unknown ${discriminator} ${JSON.stringify(value)}`, {
        hint:
          suggestion === undefined
            ? `${discriminator} is one of ${names.join(', ')}`
            : `did you mean "${suggestion}"? (one of ${names.join(', ')})`,
      }),
    ];
  }

  // When exactly one alternative got past the value's own type (its issues are all deeper, or keys it does not
  // know), the user meant that one: report its issues, e.g. `node_groups: [1]` is a list with a wrong item, not
  // "neither all nor a list"; `check: {ssm_paramter: x}` is a misspelt key of the map form.
  const deeper = issue.errors.filter((alternative) =>
    alternative.every((inner) => inner.path.length > 0 || inner.code === 'unrecognized_keys'),
  );
  if (deeper.length === 1 && deeper[0]) {
    return deeper[0].flatMap((inner) => issueToErrors(inner, [...keyPath, ...toKeyPath(inner.path)], source, data));
  }

  const expected = issue.errors.map((alternative) => {
    const first = alternative[0];
    if (first?.code === 'invalid_value') return first.values.map((v) => JSON.stringify(v)).join(' or ');
    if (first?.code === 'invalid_type') return EXPECTED[first.expected] ?? first.expected;
    return 'something else';
  });
  // The only string-or-number union in the schema is a duration.
  if (expected.length === 2 && expected.includes('a string') && expected.includes('a number')) {
    return [
      configError(
        source,
        'invalid-type',
        keyPath,
        `${lastKey(keyPath)} must be a duration, not ${describeValue(value)}`,
        {
          hint: 'write it like 90s, 45m or 1h30m (a bare number is seconds)',
        },
      ),
    ];
  }
  return [
    configError(
      source,
      'invalid-type',
      keyPath,
      `${lastKey(keyPath)} must be ${expected.join(' or ')}, not ${describeValue(value)}`,
    ),
  ];
}
