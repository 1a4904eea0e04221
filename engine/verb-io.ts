/**
 * What a read verb's flow (status, history, report, state pull/push, graph) is given by cli/, which alone touches
 * `process`: the streams it writes, the working directory, the environment as a plain record, and the shared state
 * bucket cli/ builds (cloud/). cli/'s `CliIo` fits `VerbIo` as it is.
 */
import type { StateConfig } from '../config/schema.js';
import type { ObjectStore } from './object-store.js';

/** Where a verb writes and runs (cli/'s `CliIo` fits). */
export interface VerbIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly cwd: string;
  /** The environment cli/ read, as a plain record. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The shared state bucket of a configuration's `state:` section, or undefined with the local backend. */
export type StateStoreOf = (state: StateConfig) => Promise<ObjectStore | undefined>;

/** This process as a lock sees it: its pid, host, and how to tell a pid is alive (cli/signals.ts's `thisProcess`). */
export interface ThisProcess {
  readonly pid: number;
  readonly host: string;
  readonly isAlive: (pid: number) => boolean;
}
