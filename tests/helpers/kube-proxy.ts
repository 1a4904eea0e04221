/**
 * A TCP proxy in front of the real API server, for the faults a real server cannot be made to produce and for
 * counting what reached it. TLS passes through untouched (the client still verifies the server's certificate for
 * 127.0.0.1), so `mode = 'forward'` is indistinguishable from the server itself; `mode = 'hang'` accepts connections
 * and never answers (a hung API server or a black-holed load balancer).
 */
import type { Server, Socket } from 'node:net';
import { connect, createServer } from 'node:net';

export interface KubeProxy {
  /** `https://127.0.0.1:<port>`: put this in a kubeconfig instead of the server's URL. */
  readonly url: string;
  mode: 'forward' | 'hang';
  /** Connections accepted so far (each is at least one request). */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startKubeProxy(target: string): Promise<KubeProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const state = { mode: 'forward' as KubeProxy['mode'], connections: 0 };
  const server: Server = createServer((client) => {
    state.connections += 1;
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (state.mode === 'hang') return;
    const upstream = connect(Number(port), hostname);
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const listening = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `https://127.0.0.1:${listening}`,
    get mode() {
      return state.mode;
    },
    set mode(value) {
      state.mode = value;
    },
    get connections() {
      return state.connections;
    },
    close() {
      return new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
    },
  };
}
