/**
 * node:crypto, loaded on first use: loading it costs 3 to 9 ms of start-up, which `status` and a warm `graph` would
 * pay only because a module they import can also hash or name a temp file. A module load, not I/O: the pure graph
 * (engine/graph.ts) may use it. In config/, the bottom layer, so every layer may.
 */
import type * as NodeCrypto from 'node:crypto';

export const crypto = (): typeof NodeCrypto => process.getBuiltinModule('node:crypto');
