/**
 * (Being moved to the real API server: park-env.ts. Only the files not moved yet use this copy.)
 * The per-test setup the park CLI tests share: a fresh working directory (`live/platform`, `home`, and
 * `.platctl.yaml` when a config is given), moto seeded with the park fixture, the loopback Kubernetes API started,
 * and platctl run there with moto's credentials, HOME and the fixture's kubeconfig. Registers vitest hooks; both go
 * after each test (the API server stopped, the directory removed).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { AwsProxy } from './aws-proxy.js';
import type { KubeApiServer } from './kube-api.js';
import type { MotoServer } from './moto.js';
import { seedParkAws } from './park-fixture.js';
import { startParkKube } from './park-fixture-imitation.js';
import type { CliRun } from './run-cli.js';
import { runCli } from './run-cli.js';

export interface ParkEnvOptions {
  /** Start of the temp directory's name: `platctl-park-ready-`. */
  readonly prefix: string;
  /** `.platctl.yaml`, written before each test; none when the test writes its own. */
  readonly config?: string;
  /** AWS goes through this proxy (AWS_ENDPOINT_URL); its recorded calls and injected answer are reset before each test. */
  readonly proxy?: AwsProxy;
}

/** This test's parkable environment; read its fields inside a test or hook (each test gets new ones). */
export interface ParkEnv {
  readonly root: string;
  readonly kube: KubeApiServer;
  /** The bastion instance moto holds. */
  readonly bastionId: string;
  /** platctl with `--config <root>/.platctl.yaml`, in `root`; `extraEnv` is added to its environment. */
  readonly cli: (args: string[], extraEnv?: Record<string, string | undefined>) => Promise<CliRun>;
}

export function useParkEnv(moto: MotoServer, options: ParkEnvOptions): ParkEnv {
  let root: string | undefined;
  let kube: KubeApiServer | undefined;
  let bastionId: string | undefined;
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the park environment has no ${what} outside a test`);
    return value;
  };
  const env: ParkEnv = {
    get root() {
      return need(root, 'root');
    },
    get kube() {
      return need(kube, 'Kubernetes API');
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
          KUBECONFIG: env.kube.writeKubeconfig(env.root, 'fixture'),
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
    kube = await startParkKube();
  }, 90_000);

  afterEach(async () => {
    await kube?.close();
    kube = undefined;
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  return env;
}
