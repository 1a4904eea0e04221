/**
 * The reader shares the writer's transport, so a hanging exec credential helper (a stuck `aws eks get-token`) is
 * bounded for validate too: by the request timeout and by the caller's signal. client-node's own API clients waited
 * for the helper to end (5 s here, forever for a helper that never does). The helper is `sleep 5`: it ends on its own
 * soon after the test.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kubeReaderFromContext } from '../../../cloud/kube.js';
import type { KubeReader } from '../../../cloud/kube.js';

const dir = mkdtempSync(join(tmpdir(), 'platctl-kube-reader-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function hangingReader(timeout: string): Promise<KubeReader> {
  const file = join(dir, 'config');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]',
      'users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: sleep, args: ["5"]}}}]',
      'contexts: [{name: ctx, context: {cluster: c, user: u}}]',
      'current-context: ctx',
      '',
    ].join('\n'),
  );
  const reader = await kubeReaderFromContext('ctx', { KUBECONFIG: file, HOME: dir, PLATCTL_REQUEST_TIMEOUT: timeout });
  if (!reader.ok) throw new Error(reader.message);
  return reader.value;
}

describe('the Kubernetes reader with a hanging exec credential helper', () => {
  it('gives up after the request timeout, naming the kubeconfig user', async () => {
    const reader = await hangingReader('0.3');
    const started = Date.now();
    const answer = await reader.version();
    expect(answer).toMatchObject({
      ok: false,
      reason: 'timeout',
      message: "no credentials from the kubeconfig's user within 0.3s reading the API server version",
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("stops when the caller's signal aborts", async () => {
    const reader = await hangingReader('60');
    const controller = new AbortController();
    const started = Date.now();
    const asked = reader.listNodes(controller.signal);
    setTimeout(() => controller.abort(), 50);
    const answer = await asked;
    expect(answer).toMatchObject({ ok: false, reason: 'timeout' });
    expect(answer.ok === false && answer.message).toMatch(/^no answer from the API server/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
