/**
 * `platctl kubeconfig [token]`: kubeconfig contexts whose user runs `platctl kubeconfig token` for a fresh EKS token
 * (cloud/kubeconfig-command.ts). This file passes the configuration's loading, this process's streams, environment,
 * directory and signal, the atomic writer and where the token cache finds the configuration.
 */
import { kubeconfigCommand } from '../cloud/kubeconfig-command.js';
import { writeFileAtomic } from '../config/atomic-write.js';
import { loadConfigOnly } from './project.js';
import { platctlBin } from './version.js';
import { defineVerb } from './verb.js';
import { KUBECONFIG_GRAMMAR } from './commands/kubeconfig.js';
import { tokenConfig } from './token-fast.js';

export const kubeconfigVerb = defineVerb(KUBECONFIG_GRAMMAR, (args, io) =>
  kubeconfigCommand(args, {
    load: () => loadConfigOnly(args, io),
    stdout: io.stdout,
    stderr: io.stderr,
    env: io.env,
    cwd: io.cwd,
    signal: io.signal,
    writeFileAtomic,
    tokenConfig: tokenConfig(args.config, io.env, io.cwd),
    platctlBin,
  }),
);
