/**
 * `platctl lockdown [--undo] [--dry-run]`: the lockdown phase on its own (bootstrap runs it after a complete walk;
 * teardown runs the unlock first). `--undo` unlocks: the steps in reverse order with their `unlock_args`. Under the
 * repository lock like every mutating run; `.platctl-state.json` is left alone. The flow is engine/lockdown-command.ts.
 */
import { runLockdownCommand } from '../engine/lockdown-command.js';
import { loadProject } from './project.js';
import { defineVerb } from './verb.js';
import { LOCKDOWN_GRAMMAR } from './commands/lockdown.js';
import { runIo } from './walk-tools.js';

export const lockdownVerb = defineVerb(LOCKDOWN_GRAMMAR, (args, io) =>
  runLockdownCommand(args, { ...runIo(io), loadProject: () => loadProject(args, io) }),
);
