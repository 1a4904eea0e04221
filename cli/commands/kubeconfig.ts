/** `platctl kubeconfig`: its grammar (options, rules, examples); its code is cli/kubeconfig.ts, loaded only to run it. */
import { defineGrammar } from '../../config/command-line/grammar.js';
import type { OptionSpecs } from '../../config/command-line/grammar.js';

export const KUBECONFIG_OPTIONS = {
  output: {
    type: 'string',
    value: 'FILE',
    describe: 'The kubeconfig to merge into (default: first KUBECONFIG entry, else ~/.kube/config)',
  },
  'exec-command': {
    type: 'string',
    value: 'CMD',
    describe: 'The platctl kubectl should run for tokens, best an absolute path (default: platctl on PATH)',
  },
} as const satisfies OptionSpecs;

export const KUBECONFIG_GRAMMAR = defineGrammar({
  name: 'kubeconfig',
  describe: 'Write kubeconfig contexts for the clusters (kubectl gets EKS tokens from platctl, no aws CLI)',
  globals: ['env'],
  options: KUBECONFIG_OPTIONS,
  actions: {
    write: { describe: 'Merge a context per cluster into the kubeconfig', accepts: ['output', 'exec-command'] },
    token: { describe: 'Print an ExecCredential with a fresh EKS token for one --env (what kubectl runs)' },
  },
  defaultAction: 'write',
  check: (args) =>
    args.action === 'token' && args.env?.length !== 1 ? 'kubeconfig token needs exactly one --env' : undefined,
  examples: [
    ['platctl kubeconfig', 'a context per cluster in ~/.kube/config (platctl-<env>)'],
    ['platctl kubeconfig --env platform --output ./kubeconfig', 'one cluster, into ./kubeconfig'],
    ['platctl kubeconfig token --env platform', 'what kubectl runs: prints an ExecCredential'],
  ],
});
