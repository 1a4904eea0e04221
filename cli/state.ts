/**
 * `platctl state pull|push`: move the run state between this checkout (`.platctl-state.json`) and the shared backend
 * (docs/state.md) by hand. A run on the s3 backend does it on its own (the first run uploads a local state); these are
 * for a person who wants to look at or move a state without running anything.
 */
import { dirname, join } from 'node:path';
import { hostname } from 'node:os';
import { formatConfigErrors } from '../config/errors.js';
import { loadConfig } from '../config/load.js';
import { LOCK_FILE, lockHeld, procMachine } from '../engine/lock.js';
import { loadRemoteLatest, uploadState } from '../engine/shared-state.js';
import { STATE_FILE, loadState } from '../engine/state.js';
import { replaceLocalState } from '../engine/state-pull.js';
import { runAuthor, stateStore } from './shared-state.js';
import { processAlive } from './signals.js';
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
  const machine = await procMachine({ pid: process.pid, host: hostname(), isAlive: processAlive });
  if (await lockHeld(root, machine)) {
    io.stderr.write(`platctl: refused: a platctl run holds ${LOCK_FILE} in ${root}; wait for it to finish\n`);
    return EXIT.refused;
  }
  if (args.action === 'pull') {
    const remote = await loadRemoteLatest(store);
    if (!remote.ok) {
      io.stderr.write(`platctl: cannot read the shared run state: ${remote.message}\n`);
      return EXIT.refused;
    }
    if (remote.value.type === 'missing') {
      io.stderr.write(`platctl: no run in ${store.location('latest/')}; nothing to pull\n`);
      return EXIT.failed;
    }
    if (remote.value.type === 'invalid') {
      io.stderr.write(`platctl: ${remote.value.message}\n`);
      return EXIT.failed;
    }
    const replaced = await replaceLocalState(root, remote.value.state, Date.now());
    if (!replaced.ok) {
      io.stderr.write(`platctl: refused: ${replaced.message}; ${STATE_FILE} is unchanged, nothing pulled\n`);
      return EXIT.refused;
    }
    const { kept } = replaced;
    io.stdout.write(
      `pulled run ${remote.value.state.run_id} (${remote.value.state.command}, ${remote.value.state.status}) into ` +
        `${join(root, STATE_FILE)}${kept ? `; the previous file is kept as ${kept}` : ''}\n`,
    );
    return EXIT.ok;
  }
  const local = await loadState(root);
  if (local.type !== 'ok') {
    io.stderr.write(
      local.type === 'missing'
        ? `platctl: no ${STATE_FILE} in ${root}; nothing to push\n`
        : `platctl: ${local.message}\n`,
    );
    return EXIT.failed;
  }
  const pushed = await uploadState(store, local.state, runAuthor(io.env));
  if (!pushed.ok) {
    io.stderr.write(`platctl: cannot upload the state: ${pushed.message}\n`);
    if (pushed.hint) io.stderr.write(`  hint: ${pushed.hint}\n`);
    return EXIT.refused;
  }
  io.stdout.write(
    pushed.value === 'uploaded'
      ? `pushed run ${local.state.run_id} to ${store.location(`runs/${local.state.run_id}/`)}; it is the latest ${local.state.command}\n`
      : `pushed run ${local.state.run_id} to ${store.location(`runs/${local.state.run_id}/`)}; a newer ${local.state.command} stays the latest\n`,
  );
  return EXIT.ok;
});
