/**
 * A kubeconfig user whose exec credential helper hangs (a stuck `aws eks get-token`, an STS that does not answer):
 * client-node waits for the helper without a bound, so the writer bounds it, by the request timeout and by the run's
 * signal. The helper here is `sleep 5`: it ends on its own soon after the test.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { makeKubeWriter } from '../../../cloud/kube-writer.js';

function hangingUser(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:9', skipTLSVerify: false }],
    users: [
      {
        name: 'u',
        exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'sleep', args: ['5'], env: [] },
      },
    ],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return kc;
}

describe('the Kubernetes writer with a hanging exec credential helper', () => {
  it('gives up after the request timeout, naming the kubeconfig user, not the API server', async () => {
    const writer = makeKubeWriter(hangingUser(), 'https://127.0.0.1:9', { requestTimeoutMs: 300 });
    const answer = await writer.readyz();
    expect(answer).toMatchObject({
      ok: false,
      reason: 'timeout',
      message: "no credentials from the kubeconfig's user within 0.3s asking /readyz",
    });
  });

  it('stops on the first Ctrl-C', async () => {
    const controller = new AbortController();
    const writer = makeKubeWriter(hangingUser(), 'https://127.0.0.1:9', {
      signal: controller.signal,
      requestTimeoutMs: 60_000,
    });
    const asked = writer.readyz();
    setImmediate(() => controller.abort());
    const answer = await asked;
    expect(answer).toMatchObject({ ok: false, reason: 'timeout' });
    expect(answer.ok === false && answer.message).toMatch(/^no answer from the API server/);
  });
});
