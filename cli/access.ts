/**
 * `platctl access`: reconcile each environment's EKS access entries with `access.<env>.principals`, or list them
 * (cloud/access-command.ts). This file loads the configuration and passes this process's streams, environment and
 * signal in.
 */
import { accessCommand } from '../cloud/access-command.js';
import { loadCheckedConfig } from './project.js';
import { defineVerb } from './verb.js';
import { ACCESS_GRAMMAR } from './commands/access.js';

export const accessVerb = defineVerb(ACCESS_GRAMMAR, async (args, io) => {
  const checked = await loadCheckedConfig(args, io);
  if (!checked.ok) return checked.exitCode;
  return accessCommand(args, checked.loaded.config, io);
});
