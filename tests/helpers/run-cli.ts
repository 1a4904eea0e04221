/** Runs platctl's `main` in-process with captured output, for verb tests that need no real process. */
import { PassThrough } from 'node:stream';
import { main } from '../../cli/main.js';
import type { VerbEntry } from '../../cli/verbs.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(
  argv: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; verbs?: readonly VerbEntry[] } = {},
): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await main(argv, {
    stdout,
    stderr,
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? {},
    ...(options.verbs ? { verbs: options.verbs } : {}),
  });
  return { code, stdout: out, stderr: err };
}
