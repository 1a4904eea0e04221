#!/usr/bin/env node
// The published entry point: the compiled CLI lives in dist/ (built by `npm run build`, run on `npm ci`).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
