#!/usr/bin/env node
// The published entry point: the compiled CLI lives in dist/ (built by `npm run build`, run on `npm ci`).
// Keep this file's imports small: every verb, --help and --version pay for them at start-up. `--version` alone loads
// only the module that reads the version, a cached `kubeconfig token` only cli/token-fast.ts (README: development
// notes, start-up); the rest is cli/main.ts.
const argv = process.argv.slice(2);

/**
 * kubectl runs `kubeconfig token` before every command: a token it was given minutes ago is answered from the token
 * cache (docs/kubeconfig.md) with one small module; undefined on a miss, which goes the whole way and keeps the token.
 */
async function tokenFromCache() {
  if (argv[0] !== 'kubeconfig' || argv[1] !== 'token') return undefined;
  const { cachedToken } = await import('../dist/cli/token-fast.js');
  try {
    return await cachedToken(argv, process.env, process.cwd());
  } catch (error) {
    // A bug, not a miss: reported as every other bug is.
    (await import('../dist/cli/main.js')).exitOnUncaughtBug(argv);
    throw error;
  }
}
const cachedToken = await tokenFromCache();

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { platctlVersion } = await import('../dist/cli/version.js');
  process.stdout.write(`${platctlVersion()}\n`);
} else if (cachedToken !== undefined) {
  process.stdout.write(cachedToken);
} else {
  const { exitOnUncaughtBug, main } = await import('../dist/cli/main.js');
  const { installSignalHandlers } = await import('../dist/cli/signals.js');

  // The AWS SDK warns once per process that it will need a newer Node in 2027; from cron that is mail every night
  // about nothing the operator can act on today. Users can still opt in by setting the variable to false.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

  exitOnUncaughtBug(argv);
  // Signals are handled here, once: the first SIGINT/SIGTERM aborts `signal` for verbs that stop gracefully.
  const { signal } = installSignalHandlers();
  process.exitCode = await main(argv, { signal });
}
