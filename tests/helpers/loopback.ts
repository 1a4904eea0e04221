/** Starting and stopping the loopback HTTP servers the test helpers stand up (Argo CD, SSM, the AWS proxy, ...). */
import type { Server } from 'node:http';

/** Listens on a free port of 127.0.0.1 and returns it; rejects when the server cannot listen. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** Stops listening and ends every open connection (keep-alive ones too); resolves once the server is closed. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
