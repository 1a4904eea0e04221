/** `platctl report`: its grammar (options, rules, examples); its code is cli/report.ts, loaded only to run it. */
import { defineGrammar } from '../../config/command-line/grammar.js';

/** What `platctl report --format` writes. */
export const REPORT_FORMATS = ['html', 'json'] as const;

export const REPORT_GRAMMAR = defineGrammar({
  name: 'report',
  describe:
    'Draw a run as one self-contained HTML page (timeline, critical path, parallelism, history); --park for down/up',
  globals: ['env', 'json'],
  options: {
    run: {
      type: 'string',
      value: 'RUN_ID',
      describe:
        'An earlier bootstrap/teardown run (platctl history lists them); needs state.backend s3 unless it is the last run',
    },
    park: {
      type: 'boolean',
      describe: 'The last down/up of each environment (--env picks them; default: every one with a park file)',
    },
    output: {
      type: 'string',
      value: 'FILE',
      describe: 'Where to write (default: platctl-report-<run>.html here for html, stdout for json; - is stdout)',
    },
    format: {
      type: 'choice',
      choices: REPORT_FORMATS,
      default: 'html',
      describe: 'html (the page) or json (its data)',
    },
  },
  conflicts: [['run', 'park', '--run and --park cannot be used together']],
  examples: [
    ['platctl report', 'the last bootstrap/teardown as platctl-report-<run>.html'],
    ['platctl report --run 20260129T101500Z-3fa2c1 --output run.html', 'an earlier run, from the shared state'],
    ['platctl report --park --env preprod', "preprod's last down or up, step by step"],
    ['platctl report --format json --output -', 'the same data as JSON on stdout'],
  ],
});
