#!/usr/bin/env node
// The published entry point: the compiled CLI lives in dist/ (built by `npm run build`, run on `npm ci`).
import { main } from '../dist/cli/main.js';
import { installSignalHandlers } from '../dist/cli/signals.js';

// Signals are handled here, once: the first SIGINT/SIGTERM aborts `signal` for verbs that stop gracefully.
const { signal } = installSignalHandlers();
process.exitCode = await main(process.argv.slice(2), { signal });
