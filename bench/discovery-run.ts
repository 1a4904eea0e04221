/** One discovery in a fresh process, for bench/discovery: prints time, peak RSS and counts as JSON. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { configSchema } from '../config/schema.js';
import { discover } from '../discover/index.js';

const root = process.argv[2] ?? '.';
const config = configSchema.parse(parse(readFileSync(join(root, '.platctl.yaml'), 'utf8')));
const start = performance.now();
const cpuStart = process.cpuUsage();
const result = await discover({ root, config, env: {}, cacheDir: join(root, '.platctl-cache') }, { version: 'bench' });
const ms = performance.now() - start;
const cpu = process.cpuUsage(cpuStart);
const cpuMs = (cpu.user + cpu.system) / 1000;
const rssMb = process.resourceUsage().maxRSS / 1024;
process.stdout.write(
  `${JSON.stringify({ ms, cpuMs, rssMb, units: result.graph.size, parsed: result.stats.filesParsed, problems: result.problems.length })}\n`,
);
