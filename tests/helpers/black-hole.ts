/**
 * A black-holed endpoint: a loopback TCP server that accepts every connection, reads what it is sent and never
 * answers, as an AWS or Kubernetes endpoint behind a dropped route or a hung proxy does. It records the first line
 * of each request (`POST / HTTP/1.1`), so a test can wait until platctl is stuck on it.
 */
import { createServer } from 'node:net';
import type { Socket } from 'node:net';

export interface BlackHole {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** The first line of every request received, in order. */
  readonly requests: string[];
  /** Connections still open (platctl must close what it gave up on). */
  readonly open: ReadonlySet<Socket>;
  close(): Promise<void>;
}

export async function startBlackHole(): Promise<BlackHole> {
  const open = new Set<Socket>();
  const requests: string[] = [];
  const server = createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    socket.once('data', (chunk: Buffer) => requests.push(chunk.toString('latin1').split('\r\n', 1)[0] ?? ''));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    open,
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
