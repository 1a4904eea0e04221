/** `platctl validate`: its grammar (options, rules, examples); its code is cli/validate.ts, loaded only to run it. */
import { defineGrammar } from '../../config/command-line/grammar.js';
import type { OptionSpecs } from '../../config/command-line/grammar.js';
import { METRICS_OPTION, TRACE_OPTION } from './shared.js';

export const VALIDATE_OPTIONS = {
  check: {
    type: 'string',
    value: 'PREFIX',
    describe: 'Only checks whose id starts with this (plus what they depend on), e.g. tailscale, unit/eks, iam',
  },
  concurrency: { type: 'integer', value: 'N', min: 1, describe: 'Checks at once (default: parallelism.validate, 8)' },
  'allow-unresolved': {
    type: 'boolean',
    default: false,
    describe: 'Warn, not fail, on expressions discovery cannot evaluate offline',
  },
  'dry-run': {
    type: 'boolean',
    default: false,
    describe: 'List the checks that would run (which check each unit gets) and call nothing',
  },
  ...METRICS_OPTION,
  ...TRACE_OPTION,
} as const satisfies OptionSpecs;

export const VALIDATE_GRAMMAR = defineGrammar({
  name: 'validate',
  describe: 'Health probe: credentials, deployer role and state bucket first, then every unit and endpoint',
  globals: ['env', 'json'],
  options: VALIDATE_OPTIONS,
  check: (args) =>
    args.check !== undefined && args.check.trim() === '' ? '--check needs a prefix, e.g. --check tailscale' : undefined,
  examples: [
    ['platctl validate', 'every check of every environment; exit 0 when healthy'],
    ['platctl validate --env platform --json', 'one environment, machine-readable'],
    ['platctl validate --check tailscale', 'only the Tailscale check (no AWS, no discovery)'],
    ['platctl validate --dry-run', 'the planned checks, without calling anything'],
  ],
});
