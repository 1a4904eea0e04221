#!/usr/bin/env node
// The published entry point: the compiled CLI lives in dist/ (built by `npm run build`, run on `npm ci`).
// Keep this file's imports small: every verb, --help and --version pay for them at start-up. `--version` alone loads
// only the module that reads the version (README: development notes, start-up); the rest is cli/main.ts.
const argv = process.argv.slice(2);

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { platctlVersion } = await import('../dist/cli/version.js');
  process.stdout.write(`${platctlVersion()}\n`);
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
