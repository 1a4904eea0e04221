/**
 * The per-test setup the park CLI tests share: a fresh working directory (`live/platform`, `home`, and
 * `.platctl.yaml` when a config is given), moto seeded with the park fixture, the real Kubernetes API server seeded
 * with it (one server per file, emptied before each test) with the test controllers running, and platctl run there
 * with moto's credentials, HOME and a kubeconfig of the least-privilege user. Registers vitest hooks; after each test
 * the controllers stop and the directory is removed, after the file the server stops.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { AwsProxy } from './aws-proxy.js';
import type { KubeServer } from './kube-server.js';
import { startKubeServer } from './kube-server.js';
import type { MotoServer } from './moto.js';
import type { ParkKube } from './park-fixture.js';
import { prepareParkKube, resetParkKube, seedParkAws, seedParkKube } from './park-fixture.js';
import type { CliRun } from './run-cli.js';
import { runCli } from './run-cli.js';

export interface ParkEnvOptions {
  /** Start of the temp directory's name: `platctl-park-ready-`. */
  readonly prefix: string;
  /** `.platctl.yaml`, written before each test; none when the test writes its own. */
  readonly config?: string;
  /** AWS goes through this proxy (AWS_ENDPOINT_URL); its recorded calls and injected answer are reset before each test. */
  readonly proxy?: AwsProxy;
  /** Karpenter never clears these NodeClaims' finalizers (change `kube.controllers.stuck` inside a test). */
  readonly stuck?: readonly string[];
}

/** This test's parkable environment; read its fields inside a test or hook (each test gets new ones). */
export interface ParkEnv {
  readonly root: string;
  readonly kube: ParkKube;
  /** The bastion instance moto holds. */
  readonly bastionId: string;
  /** platctl with `--config <root>/.platctl.yaml`, in `root`; `extraEnv` is added to its environment. */
  readonly cli: (args: string[], extraEnv?: Record<string, string | undefined>) => Promise<CliRun>;
}

const need = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`the park environment has no ${what} outside a test`);
  return value;
};

/**
 * Only the Kubernetes half of {@link useParkEnv}: one real API server for the file (audit log on, CRDs, namespaces,
 * the documented ClusterRole bound), emptied and seeded before each test with the controllers running, which stop
 * after it. Read `current()` inside a test or hook.
 */
export function useParkKube(options: { stuck?: readonly string[] } = {}): { current(): ParkKube } {
  let server: KubeServer | undefined;
  let kube: ParkKube | undefined;
  beforeAll(async () => {
    server = await startKubeServer({ audit: true });
    await prepareParkKube(server);
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  }, 30_000);
  beforeEach(async () => {
    const live = need(server, 'Kubernetes API server');
    await resetParkKube(live);
    kube = await seedParkKube(live, { stuck: options.stuck ?? [] });
  }, 90_000);
  afterEach(async () => {
    const running = kube;
    kube = undefined;
    await running?.stop();
  });
  return { current: () => need(kube, 'Kubernetes API') };
}

export function useParkEnv(moto: MotoServer, options: ParkEnvOptions): ParkEnv {
  let root: string | undefined;
  const kube = useParkKube(options);
  let bastionId: string | undefined;
  const env: ParkEnv = {
    get root() {
      return need(root, 'root');
    },
    get kube() {
      return kube.current();
    },
    get bastionId() {
      return need(bastionId, 'bastion');
    },
    cli: (args, extraEnv = {}) =>
      runCli([...args, '--config', join(env.root, '.platctl.yaml')], {
        cwd: env.root,
        env: {
          ...moto.env,
          ...(options.proxy ? { AWS_ENDPOINT_URL: options.proxy.endpoint } : {}),
          HOME: join(env.root, 'home'),
          KUBECONFIG: env.kube.kubeconfig(env.root),
          ...extraEnv,
        },
      }),
  };

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), options.prefix));
    mkdirSync(join(root, 'live', 'platform'), { recursive: true });
    mkdirSync(join(root, 'home'), { recursive: true });
    if (options.config !== undefined) writeFileSync(join(root, '.platctl.yaml'), options.config);
    if (options.proxy) {
      options.proxy.calls.length = 0;
      options.proxy.inject = undefined;
    }
    ({ bastionId } = await seedParkAws(moto.endpoint));
  }, 90_000);

  afterEach(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  return env;
}
