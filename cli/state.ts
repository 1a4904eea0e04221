/**
 * `platctl state pull|push`: move the run state between this checkout (`.platctl-state.json`) and the shared backend
 * (docs/state.md) by hand. A run on the s3 backend does it on its own (the first run uploads a local state); these are
 * for a person who wants to look at or move a state without running anything.
 */
import { dirname } from 'node:path';
import { formatConfigErrors } from '../config/errors.js';
import { loadConfig } from '../config/load.js';
import { LOCK_FILE, lockHeld, procMachine } from '../engine/lock.js';
import { pullState, pushState } from '../engine/state-pull.js';
import { runAuthor } from '../engine/shared-state.js';
import { stateStore } from './shared-state.js';
import { thisProcess } from './signals.js';
import { EXIT, defineVerb } from './verb.js';
import { STATE_GRAMMAR } from './commands/state.js';

export const stateVerb = defineVerb(STATE_GRAMMAR, async (args, io) => {
  const loaded = await loadConfig({ path: args.config, cwd: io.cwd, checkFilesystem: false });
  if (!loaded.ok) {
    io.stderr.write(formatConfigErrors(loaded.errors, io.cwd));
    return EXIT.usage;
  }
  const root = dirname(loaded.value.path);
  const store = await stateStore(loaded.value.config.state, io);
  if (!store) {
    io.stderr.write(`platctl: state ${args.action} needs state.backend: s3 in ${loaded.value.path} (docs/state.md)\n`);
    return EXIT.usage;
  }
  const machine = await procMachine(thisProcess());
  if (await lockHeld(root, machine)) {
    io.stderr.write(`platctl: refused: a platctl run holds ${LOCK_FILE} in ${root}; wait for it to finish\n`);
    return EXIT.refused;
  }
  const done =
    args.action === 'pull' ? await pullState(store, root, Date.now()) : await pushState(store, root, runAuthor(io.env));
  if (done.ok) {
    io.stdout.write(`${done.value}\n`);
    return EXIT.ok;
  }
  io.stderr.write(`platctl: ${done.message}\n${done.hint ? `  hint: ${done.hint}\n` : ''}`);
  return done.reason === 'nothing' ? EXIT.failed : EXIT.refused;
});
