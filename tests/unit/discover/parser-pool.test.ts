import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HclParserPool, findParser } from '../../../discover/hcl2json.js';
import { DISCOVER_FIXTURES } from '../../helpers/discover-fixtures.js';
import type { ParseRequest } from '../../../discover/hcl2json.js';

const pools: HclParserPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

function pool(size: number): HclParserPool {
  const created = new HclParserPool(size);
  pools.push(created);
  return created;
}

function units(count: number): ParseRequest[] {
  return Array.from({ length: count }, (_, i) => ({
    file: `/repo/u${i}/terragrunt.hcl`,
    content: `dependency "vpc" {\n  config_path = "../vpc-${i}"\n}\ninputs = { n = ${i} }\n`,
  }));
}

describe('HclParserPool', () => {
  it('starts workers ahead of use with warm(), never more than its size', async () => {
    const parser = pool(2);
    expect(parser.running).toBe(0);
    parser.warm(1);
    expect(parser.running).toBe(1);
    parser.warm();
    parser.warm(5);
    expect(parser.running).toBe(2);
    const out = await parser.parseAll(units(40));
    expect(out.size).toBe(40);
    expect(parser.running).toBe(2);
  });

  it('keeps to one worker while that one has room for the batches', async () => {
    const parser = pool(2);
    parser.warm(1);
    const out = await parser.parseAll(units(64));
    expect(parser.running).toBe(1);
    expect(out.get('/repo/u63/terragrunt.hcl')).toEqual({
      ok: true,
      json: { dependency: { vpc: [{ config_path: '../vpc-63' }] }, inputs: { n: 63 } },
    });
  });

  it('starts another worker when those running are full', async () => {
    const parser = pool(2);
    const out = await parser.parseAll(units(640));
    expect(out.size).toBe(640);
    expect(parser.running).toBe(2);
  });

  it('gives a file in a batch the answer it gets alone, also when it ends without a newline', async () => {
    // The wrapper puts a newline after each file: a heredoc closed at the very end of a file would be accepted in a
    // batch, while the parser alone (and Terragrunt) rejects it.
    const endings = {
      '/repo/heredoc/terragrunt.hcl': 'x = <<EOT\nhi\nEOT',
      '/repo/comment/terragrunt.hcl': 'x = 1 # no newline',
      '/repo/plain/terragrunt.hcl': 'x = 1',
    };
    const requests = [...units(10), ...Object.entries(endings).map(([file, content]) => ({ file, content }))];
    const batched = await pool(1).parseAll(requests);
    for (const [file, content] of Object.entries(endings)) {
      const alone = await pool(1).parseAll([{ file, content }]);
      expect(batched.get(file)).toEqual(alone.get(file));
    }
    expect(batched.get('/repo/heredoc/terragrunt.hcl')?.ok).toBe(false);
    expect(batched.get('/repo/plain/terragrunt.hcl')).toEqual({ ok: true, json: { x: 1 } });
  });

  it('gives each file of a batch its own result, and a malformed one its own error and line', async () => {
    const parser = pool(1);
    const requests = units(20);
    requests[5] = { file: '/repo/broken/terragrunt.hcl', content: 'locals {\n  a = \n}\n' };
    const out = await parser.parseAll(requests);
    expect(out.size).toBe(20);
    const broken = out.get('/repo/broken/terragrunt.hcl');
    expect(broken?.ok).toBe(false);
    if (broken && !broken.ok) {
      expect(broken.location).toMatchObject({ file: '/repo/broken/terragrunt.hcl', line: 2 });
      expect(broken.message).not.toBe('');
    }
    for (const [file, outcome] of out) if (file !== '/repo/broken/terragrunt.hcl') expect(outcome.ok).toBe(true);
  });
});

describe('the parser as the pool runs it', () => {
  it('loads the pinned package WASM directly, with its own Go glue', () => {
    const files = findParser();
    expect(files.wasmPath).toMatch(/@cdktf\/hcl2json\/main\.wasm\.gz$/);
    expect(files.goGlue).toMatch(/@cdktf\/hcl2json\/wasm\/bridge_wasm_exec\.js$/);
  });

  it('gives exactly what the package API gives, for every fixture file', async () => {
    const { parse } = createRequire(import.meta.url)('@cdktf/hcl2json') as {
      parse: (name: string, content: string) => Promise<Record<string, unknown>>;
    };
    const requests: ParseRequest[] = [];
    for (const entry of readdirSync(DISCOVER_FIXTURES, { recursive: true, encoding: 'utf8' })) {
      if (!entry.endsWith('.hcl')) continue;
      const file = join(DISCOVER_FIXTURES, entry);
      requests.push({ file, content: readFileSync(file, 'utf8') });
    }
    expect(requests.length).toBeGreaterThan(50);
    const out = await pool(2).parseAll(requests);
    let errors = 0;
    for (const request of requests) {
      const got = out.get(request.file);
      try {
        expect(got, request.file).toEqual({ ok: true, json: await parse(request.file, request.content) });
      } catch (error) {
        if (got?.ok !== false) throw error;
        errors += 1;
        await expect(parse(request.file, request.content)).rejects.toThrow();
      }
    }
    // The malformed-HCL fixtures: the same files fail both ways.
    expect(errors).toBeGreaterThan(0);
  });
});

describe('HclParserPool scheduling', () => {
  it('parses an urgent request ahead of the batches already queued', async () => {
    const parser = pool(1);
    let parsedBeforeUrgent = -1;
    let parsed = 0;
    const queued = parser.parseEach(units(640)).map((p) => p.then(() => (parsed += 1)));
    await parser.parseAll([{ file: '/repo/root.hcl', content: 'locals { env = "dev" }\n' }], { urgent: true });
    parsedBeforeUrgent = parsed;
    await Promise.all(queued);
    expect(parsed).toBe(640);
    // Only the few batches already handed to the worker come first, not the 600-odd files queued behind them.
    expect(parsedBeforeUrgent).toBeLessThan(200);
  });

  it('fails what is still queued when closed', async () => {
    const parser = new HclParserPool(1);
    const failed = expect(parser.parseAll(units(200))).rejects.toThrow(/closed/);
    await parser.close();
    await failed;
  });
});

/**
 * A stand-in for the parser worker, speaking the pool's protocol through the package's public parse: it exits on a
 * file holding PANIC and blocks forever (as the WASM parser did in an allocator deadlock) on one holding HANG.
 */
const FAULTY_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const parser = require(workerData.parserPath);
async function answer(job) {
  const results = [];
  for (const task of job.tasks) {
    if (task.content.includes('PANIC')) process.exit(7);
    if (task.content.includes('HANG')) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    try {
      results.push({ ok: true, json: JSON.stringify(await parser.parse(task.name, task.content)) });
    } catch (error) {
      results.push({ ok: false, message: String(error.message) });
    }
  }
  parentPort.postMessage({ id: job.id, results });
}
// Loaded (the package loads its WASM on the first parse), then ready; jobs wait in the port until then.
parser.parse('warm.hcl', '').then(() => {
  parentPort.on('message', answer);
  parentPort.postMessage({ ready: true });
});
`;

function faultyPool(
  size: number,
  seams: { timeLimitMs?: number; startLimitMs?: number; workerSource?: string } = {},
): HclParserPool {
  const created = new HclParserPool(size, { workerSource: FAULTY_WORKER, ...seams });
  pools.push(created);
  return created;
}

describe('HclParserPool when a parser worker dies or hangs', () => {
  it('fails only the file the worker exited on, naming it, and parses the rest', async () => {
    const requests = units(30);
    requests[7] = { file: '/repo/panic/terragrunt.hcl', content: 'locals { a = "PANIC" }\n' };
    const out = await faultyPool(1).parseAll(requests);
    expect(out.get('/repo/panic/terragrunt.hcl')).toEqual({
      ok: false,
      message: 'the HCL parser worker exited with code 7 on this file',
      location: { file: '/repo/panic/terragrunt.hcl', line: 1 },
      workerFailure: true,
    });
    for (const [file, outcome] of out) if (file !== '/repo/panic/terragrunt.hcl') expect(outcome.ok).toBe(true);
  });

  it('gives up on a worker that stops answering, within the time limit, and fails only that file', async () => {
    const requests = units(10);
    requests[3] = { file: '/repo/hang/terragrunt.hcl', content: 'locals { a = "HANG" }\n' };
    const start = performance.now();
    const out = await faultyPool(2, { timeLimitMs: 2000 }).parseAll(requests);
    expect(out.get('/repo/hang/terragrunt.hcl')).toMatchObject({
      ok: false,
      message: 'the HCL parser worker did not answer within 2 s on this file',
      workerFailure: true,
    });
    expect([...out.values()].filter((o) => o.ok)).toHaveLength(9);
    // The batch's time limit, then the file's own: seconds, not forever.
    expect(performance.now() - start).toBeLessThan(20_000);
  });

  it('gives up on a parser that cannot run at all with one clear error, not a new worker per file', async () => {
    const parser = faultyPool(2, { workerSource: 'process.exit(3);' });
    const start = performance.now();
    await expect(parser.parseAll(units(500))).rejects.toThrow(
      /^the HCL parser failed 4 times in this run, giving up \(last: the HCL parser worker exited with code 3 while parsing .*\)\. This is a bug/,
    );
    expect(performance.now() - start).toBeLessThan(20_000);
    // And keeps failing at once afterwards.
    await expect(parser.parseAll(units(1))).rejects.toThrow(/giving up/);
  });

  it('gives up on a parser that never answers, within a bounded time', async () => {
    const silent = `const { parentPort } = require('node:worker_threads');
parentPort.postMessage({ ready: true });
parentPort.on('message', () => undefined);`;
    const start = performance.now();
    await expect(faultyPool(1, { workerSource: silent, timeLimitMs: 300 }).parseAll(units(100))).rejects.toThrow(
      /giving up \(last: the HCL parser worker did not answer within 0.3 s while parsing/,
    );
    expect(performance.now() - start).toBeLessThan(20_000);
  });

  it('gives up on a parser that never finishes loading, within a bounded time', async () => {
    const stuck = `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);`;
    await expect(faultyPool(1, { workerSource: stuck, startLimitMs: 300 }).parseAll(units(3))).rejects.toThrow(
      /giving up \(last: the HCL parser worker did not start within 0.3 s while parsing/,
    );
  });
});
