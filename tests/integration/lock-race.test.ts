import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../engine/lock.js';
import { tempDir } from '../unit/engine/helpers.js';
import { REPO_ROOT } from './engine-helpers.js';

/**
 * Separate processes (the built engine/lock.js) racing for one stale lock. Each reads a directory per line on stdin,
 * tries to take the lock there, and answers with the result; the test hands the same directory to all at once.
 */
const CONTENDER = `
import { hostname } from 'node:os';
import { createInterface } from 'node:readline';
const { acquireLock, procMachine } = await import(process.argv[1]);
const isAlive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const machine = await procMachine({ pid: process.pid, host: hostname(), isAlive });
console.log('ready');
createInterface({ input: process.stdin }).on('line', async (root) => {
  const result = await acquireLock(root, { command: 'platctl bootstrap', startedAt: 'now' }, machine);
  console.log(JSON.stringify({ root, pid: process.pid, type: result.type }));
});
`;

const CONTENDERS = 6;
const ROUNDS = 60;

interface Answer {
  root: string;
  pid: number;
  type: string;
}

const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

function contender(): Promise<{
  child: ChildProcessWithoutNullStreams;
  answers: Answer[];
  next: () => Promise<Answer>;
}> {
  const child = spawn('node', ['--input-type=module', '-e', CONTENDER, join(REPO_ROOT, 'dist', 'engine', 'lock.js')], {
    stdio: 'pipe',
  });
  children.push(child);
  const answers: Answer[] = [];
  const waiting: ((answer: Answer) => void)[] = [];
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stderr.on('data', (chunk: Buffer) => reject(new Error(chunk.toString())));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'ready') {
        resolve({ child, answers, next: () => new Promise((r) => waiting.push(r)) });
        return;
      }
      const answer = JSON.parse(line) as Answer;
      answers.push(answer);
      waiting.shift()?.(answer);
    });
  });
}

describe('taking over a stale lock', () => {
  it(`lets exactly one of ${CONTENDERS} racing processes win, ${ROUNDS} times over`, async () => {
    const racers = await Promise.all(Array.from({ length: CONTENDERS }, () => contender()));
    // A live process that is not platctl: half of the rounds name it in the lock (a reused pid).
    const bystander = spawn('sleep', ['600'], { stdio: 'ignore' });
    try {
      for (let round = 0; round < ROUNDS; round += 1) {
        const root = await tempDir('platctl-race-');
        const stale =
          round % 2 === 0
            ? { pid: bystander.pid, host: hostname(), command: 'platctl bootstrap', started_at: 'then', pid_start: '1' }
            : { pid: 2 ** 22 + round, host: hostname(), command: 'platctl bootstrap', started_at: 'then' };
        await writeFile(join(root, LOCK_FILE), JSON.stringify(stale));
        const answers = racers.map((racer) => racer.next());
        for (const racer of racers) racer.child.stdin.write(`${root}\n`);
        const results = await Promise.all(answers);
        const winners = results.filter((r) => r.type === 'acquired');
        expect(winners, `round ${round}: ${JSON.stringify(results)}`).toHaveLength(1);
        expect(results.filter((r) => r.type !== 'acquired').every((r) => r.type === 'held')).toBe(true);
        const lock = JSON.parse(await readFile(join(root, LOCK_FILE), 'utf8')) as { pid: number };
        expect(lock.pid).toBe(winners[0]?.pid);
        // No temp file, no takeover marker left behind.
        expect(await readdir(root)).toEqual([LOCK_FILE]);
      }
    } finally {
      bystander.kill('SIGKILL');
    }
  }, 120_000);
});
