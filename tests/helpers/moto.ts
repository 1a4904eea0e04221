/**
 * A moto server (`python3 -m moto.server`) for tests: real AWS wire protocols over loopback HTTP.
 *
 * One server per test file: `const moto = useMoto()` at the top of a `describe` starts it before the file's tests,
 * resets its state before each test, and stops it afterwards. Or drive it by hand with `startMoto()`.
 *
 * `moto.env` is what a client or a child process needs to talk to it and nothing else: the endpoint, fake keys, a
 * region, and a temporary AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE, so the user's real ~/.aws is never read.
 * `moto.childEnv(base)` strips every AWS_* variable from `base` (e.g. process.env) and adds those.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { BucketLocationConstraint } from '@aws-sdk/client-s3';
import type { RRType } from '@aws-sdk/client-route-53';
import { ChangeResourceRecordSetsCommand, CreateHostedZoneCommand, Route53Client } from '@aws-sdk/client-route-53';
import { normalizeDomain, stripZonePrefix } from '../../cloud/route53.js';

/** moto's fixed account for default credentials. */
export const MOTO_ACCOUNT_ID = '123456789012';

export interface MotoOptions {
  /** Region in the env (default eu-west-1). */
  readonly region?: string;
  /** How long to wait for the server to answer (default 20 s: a cold Python import on a busy 2-core box). */
  readonly startTimeoutMs?: number;
  /**
   * Answer one request at a time. moto 5.2.1 checks S3's If-None-Match/If-Match and then writes in two steps with no
   * lock between them, so under its default threaded server two concurrent conditional writes can both pass the check;
   * real S3 decides them atomically. Tests of racing conditional writes use this, so they test platctl, not moto.
   */
  readonly serialized?: boolean;
}

export interface MotoServer {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  readonly port: number;
  readonly region: string;
  /** Holds `config` and `credentials` (AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE); removed on stop. */
  readonly dir: string;
  readonly configFile: string;
  readonly credentialsFile: string;
  /** Environment for clients and child processes (see the module comment). */
  readonly env: Readonly<Record<string, string>>;
  /** `base` without its AWS_* variables, plus {@link MotoServer.env}. */
  childEnv(base?: Readonly<Record<string, string | undefined>>): Record<string, string>;
  /** Rewrites the temporary AWS config file (e.g. to add profiles); the credentials file keeps `[default]`. */
  writeConfig(text: string): void;
  /** Drops every resource moto holds (`POST /moto-api/reset`). */
  reset(): Promise<void>;
  /** Stops the server and removes the temporary directory; safe to call twice. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Kills servers a crashed test file left behind, so no python process outlives the test run. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `moto.server` under a guard thread that exits python once its stdin reaches EOF. The pipe's write end is held
 * by this process only, so it closes however the test process ends: the `exit` hook above does not run on SIGTERM or
 * SIGKILL (a vitest worker that is terminated or times out), and without this guard the server lived on, orphaned.
 */
const GUARDED_MOTO = [
  'import os, runpy, sys, threading',
  'def watch():',
  '    while sys.stdin.buffer.read(65536):',
  '        pass',
  '    os._exit(0)',
  'threading.Thread(target=watch, daemon=True).start()',
  "if os.environ.get('PLATCTL_MOTO_SERIALIZED') == '1':",
  '    import werkzeug.serving',
  '    _run_simple = werkzeug.serving.run_simple',
  "    werkzeug.serving.run_simple = lambda *a, **kw: _run_simple(*a, **{**kw, 'threaded': False})",
  "sys.argv = ['moto.server'] + sys.argv[1:]",
  "runpy.run_module('moto.server', run_name='__main__', alter_sys=True)",
].join('\n');

/** Starts a moto server process on `port` that ends with this process (see {@link GUARDED_MOTO}). */
export function spawnMotoProcess(port: number, serialized = false): ChildProcess {
  const child = spawn('python3', ['-c', GUARDED_MOTO, '-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['pipe', 'ignore', 'pipe'],
    env: { ...process.env, PLATCTL_MOTO_SERIALIZED: serialized ? '1' : '0' },
  });
  // Python gone first: writing nothing, but a closed pipe must not become an unhandled error.
  child.stdin?.on('error', () => undefined);
  return child;
}

/** True when the moto server at `endpoint` answers its API. */
export async function answers(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** Starts a moto server on a free loopback port and waits until it answers. */
export async function startMoto(options: MotoOptions = {}): Promise<MotoServer> {
  installExitHook();
  const region = options.region ?? 'eu-west-1';
  const deadline = Date.now() + (options.startTimeoutMs ?? 20_000);
  const dir = mkdtempSync(join(tmpdir(), 'platctl-moto-'));
  const configFile = join(dir, 'config');
  const credentialsFile = join(dir, 'credentials');
  writeFileSync(configFile, `[default]\nregion = ${region}\n`);
  writeFileSync(credentialsFile, '[default]\naws_access_key_id = testing\naws_secret_access_key = testing\n');

  let lastError = '';
  // A port picked free can be taken before python binds it; try a few.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    const endpoint = `http://127.0.0.1:${port}`;
    const child = spawnMotoProcess(port, options.serialized === true);
    running.add(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let alive = true;
    void exited.then(() => {
      alive = false;
      running.delete(child);
    });
    while (alive && Date.now() < deadline) {
      if (await answers(endpoint)) {
        return makeServer({ child, exited, port, endpoint, region, dir, configFile, credentialsFile });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGKILL');
    await exited;
    lastError = stderr.trim().split('\n').slice(-5).join('\n');
    if (Date.now() >= deadline) break;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`moto server did not start: ${lastError || 'no answer before the deadline'}`);
}

interface Started {
  child: ChildProcess;
  exited: Promise<void>;
  port: number;
  endpoint: string;
  region: string;
  dir: string;
  configFile: string;
  credentialsFile: string;
}

function makeServer(s: Started): MotoServer {
  const env: Record<string, string> = {
    AWS_ENDPOINT_URL: s.endpoint,
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_REGION: s.region,
    AWS_DEFAULT_REGION: s.region,
    AWS_CONFIG_FILE: s.configFile,
    AWS_SHARED_CREDENTIALS_FILE: s.credentialsFile,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  let stopped: Promise<void> | undefined;
  return {
    endpoint: s.endpoint,
    port: s.port,
    region: s.region,
    dir: s.dir,
    configFile: s.configFile,
    credentialsFile: s.credentialsFile,
    env,
    childEnv(base = process.env) {
      const out: Record<string, string> = {};
      for (const [key, value] of Object.entries(base)) {
        if (value !== undefined && !key.startsWith('AWS_')) out[key] = value;
      }
      return { ...out, ...env };
    },
    writeConfig(text) {
      writeFileSync(s.configFile, text);
    },
    async reset() {
      const response = await fetch(`${s.endpoint}/moto-api/reset`, { method: 'POST' });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`moto reset answered ${response.status}`);
    },
    stop() {
      stopped ??= (async () => {
        if (s.child.exitCode === null && s.child.signalCode === null) {
          s.child.kill('SIGTERM');
          const timer = setTimeout(() => s.child.kill('SIGKILL'), 3000);
          await s.exited;
          clearTimeout(timer);
        }
        rmSync(s.dir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

/**
 * Registers vitest hooks: start before the file's tests, reset before each test, stop after. Returns a handle whose
 * properties are valid inside tests (not at collection time).
 */
export function useMoto(options: MotoOptions = {}): MotoServer {
  let server: MotoServer | undefined;
  const get = (): MotoServer => {
    if (!server) throw new Error('moto is not running: use the handle inside a test or hook');
    return server;
  };
  beforeAll(
    async () => {
      server = await startMoto(options);
    },
    (options.startTimeoutMs ?? 20_000) + 30_000,
  );
  beforeEach(async () => {
    await get().reset();
    get().writeConfig(`[default]\nregion = ${get().region}\n`);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get endpoint() {
      return get().endpoint;
    },
    get port() {
      return get().port;
    },
    get region() {
      return get().region;
    },
    get dir() {
      return get().dir;
    },
    get configFile() {
      return get().configFile;
    },
    get credentialsFile() {
      return get().credentialsFile;
    },
    get env() {
      return get().env;
    },
    childEnv: (base) => get().childEnv(base),
    writeConfig: (text) => get().writeConfig(text),
    reset: () => get().reset(),
    stop: () => get().stop(),
  };
}

/** Creates EKS clusters named `names` in moto (in `region`; a role of moto's account, no subnets), as a test's setup. */
export async function createEksClusters(
  moto: Pick<MotoServer, 'endpoint'>,
  names: readonly string[],
  region = 'eu-west-1',
): Promise<void> {
  // Loaded here, not at the top: most users of this file create no cluster (see seedPlatform).
  const { CreateClusterCommand, EKSClient } = await import('@aws-sdk/client-eks');
  const eks = new EKSClient({
    region,
    endpoint: moto.endpoint,
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
  });
  for (const name of names) {
    await eks.send(
      new CreateClusterCommand({
        name,
        roleArn: `arn:aws:iam::${MOTO_ACCOUNT_ID}:role/eks`,
        resourcesVpcConfig: { subnetIds: [] },
      }),
    );
  }
}

// Route 53 seeding through the SDK's own client, as a test's setup.

/** An SDK Route 53 client talking to `moto`. */
export function route53Client(moto: Pick<MotoServer, 'endpoint'>): Route53Client {
  return new Route53Client({
    region: 'us-east-1',
    endpoint: moto.endpoint,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
}

/** CreateHostedZone; returns the zone id (no prefix) and its name servers (normalized). */
export async function createHostedZone(
  client: Route53Client,
  name: string,
): Promise<{ id: string; nameServers: string[] }> {
  const answer = await client.send(
    new CreateHostedZoneCommand({ Name: name, CallerReference: `${name}-${Date.now()}-${Math.random()}` }),
  );
  return {
    id: stripZonePrefix(answer.HostedZone?.Id ?? ''),
    nameServers: (answer.DelegationSet?.NameServers ?? []).map(normalizeDomain),
  };
}

/** ChangeResourceRecordSets with one UPSERT. */
export async function upsertRecord(
  client: Route53Client,
  zoneId: string,
  name: string,
  type: RRType,
  values: readonly string[],
): Promise<void> {
  await client.send(
    new ChangeResourceRecordSetsCommand({
      HostedZoneId: zoneId,
      ChangeBatch: {
        Changes: [
          {
            Action: 'UPSERT',
            ResourceRecordSet: {
              Name: name,
              Type: type,
              TTL: 300,
              ResourceRecords: values.map((Value) => ({ Value })),
            },
          },
        ],
      },
    }),
  );
}

/** What {@link seedPlatform} creates; the defaults match the `platform` environment the validate tests configure. */
export interface SeedPlatformOptions {
  /** The Terraform state bucket (default `tf-state-platform`). */
  readonly bucket?: string;
  /** False leaves the bucket (and so every state object) out: a platform whose state bucket is gone. */
  readonly createBucket?: boolean;
  /** Units of `live/platform` given a state object at `live/platform/<unit>/terraform.tfstate` (default none). */
  readonly stateUnits?: readonly string[];
  /** The `serial` of every state object (default 1). */
  readonly serial?: number;
  /**
   * Values of the NS record delegating `platform.example.com` in `example.com` (default: the child zone's own name
   * servers, fully qualified, i.e. a correct delegation). Anything else makes a stale one.
   */
  readonly parentNs?: readonly string[];
}

/** The Route 53 zones {@link seedPlatform} made. */
export interface SeededZones {
  readonly parent: { readonly id: string; readonly nameServers: string[] };
  readonly child: { readonly id: string; readonly nameServers: string[] };
}

/**
 * Seeds moto with the AWS side of a healthy `platform` environment, as `platctl validate` checks it: the S3 state
 * bucket with one state object per state unit, the EKS cluster `platform`, and the Route 53 zones `example.com` and
 * `platform.example.com` with the NS delegation between them. Shared by the validate integration test and
 * bench/validate, so the benchmark measures the platform the test proves healthy.
 */
export async function seedPlatform(
  moto: Pick<MotoServer, 'endpoint' | 'region' | 'env'>,
  options: SeedPlatformOptions = {},
): Promise<SeededZones> {
  // Loaded here, not at the top: most users of this file never seed, and the SDK costs a fifth of a second to load.
  const [{ CreateClusterCommand, EKSClient }, { CreateBucketCommand, PutObjectCommand, S3Client }] = await Promise.all([
    import('@aws-sdk/client-eks'),
    import('@aws-sdk/client-s3'),
  ]);
  const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' };
  const aws = { region: moto.region, endpoint: moto.endpoint, credentials };
  const bucket = options.bucket ?? 'tf-state-platform';
  if (options.createBucket !== false) {
    const s3 = new S3Client({ ...aws, forcePathStyle: true });
    await s3.send(
      new CreateBucketCommand({
        Bucket: bucket,
        CreateBucketConfiguration: { LocationConstraint: moto.region as BucketLocationConstraint },
      }),
    );
    for (const unit of options.stateUnits ?? []) {
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: `live/platform/${unit}/terraform.tfstate`,
          Body: JSON.stringify({
            version: 4,
            serial: options.serial ?? 1,
            resources: [{ type: 'null_resource', name: unit }],
          }),
        }),
      );
    }
  }
  await new EKSClient(aws).send(
    new CreateClusterCommand({
      name: 'platform',
      roleArn: `arn:aws:iam::${MOTO_ACCOUNT_ID}:role/eks`,
      resourcesVpcConfig: { subnetIds: [] },
    }),
  );
  const route53 = route53Client(moto);
  const parent = await createHostedZone(route53, 'example.com');
  const child = await createHostedZone(route53, 'platform.example.com');
  const delegation = options.parentNs ?? child.nameServers.map((name) => `${name}.`);
  await upsertRecord(route53, parent.id, 'platform.example.com', 'NS', delegation);
  return { parent, child };
}
