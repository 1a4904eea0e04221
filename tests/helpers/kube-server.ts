/**
 * A real Kubernetes API server for tests (scripts/lib/kube-server.ts starts it; the demo shares that start-up), with
 * vitest hooks:
 *
 *   const kube = useKubeServer();          // one server per test file, a fresh namespace per test
 *   it('...', async () => {
 *     await kube.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: kube.namespace } });
 *     const file = kube.writeKubeconfig(dir, { context: 'fixture' });   // the admin, or { user: 'limited' }
 *   });
 *
 * When the binaries are not built the tests skip with the reason, unless CI (or PLATCTL_REQUIRE_KUBE=1) is set:
 * then a missing binary fails the file, so CI never skips silently.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { KubeServer, KubeServerOptions } from '../../scripts/lib/kube-server.js';
import { startKubeServer } from '../../scripts/lib/kube-server.js';

export * from '../../scripts/lib/kube-server.js';

export interface KubeServerHandle extends KubeServer {
  /** This test's namespace, created before it: `t<n>`. */
  readonly namespace: string;
}

/**
 * Registers vitest hooks: start one server before the file's tests, a fresh namespace before each test, stop after.
 * The handle is valid inside tests and hooks only. Call inside a `describe.skipIf(kubeServerUnavailable())`.
 */
export function useKubeServer(options: KubeServerOptions = {}): KubeServerHandle {
  let server: KubeServer | undefined;
  let namespace = '';
  let count = 0;
  const get = (): KubeServer => {
    if (!server) throw new Error('the Kubernetes API server is not running: use the handle inside a test or hook');
    return server;
  };
  beforeAll(
    async () => {
      server = await startKubeServer(options);
    },
    (options.startTimeoutMs ?? 120_000) + 30_000,
  );
  beforeEach(async () => {
    count += 1;
    namespace = `t${count}`;
    await get().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  });
  afterAll(async () => {
    await server?.stop();
  }, 30_000);
  return new Proxy({} as KubeServerHandle, {
    get(_target, key) {
      if (key === 'namespace') return namespace;
      const live = get();
      // KubeServer's functions close over the server: none depends on `this`.
      return Reflect.get(live, key) as unknown;
    },
  });
}
