/**
 * The park environment's objects in the loopback imitation of the Kubernetes API, for the park tests not yet moved to
 * the real API server (park-fixture.ts); removed with tests/helpers/kube-api.ts once none uses it.
 */
import type { KubeApiServer } from './kube-api.js';
import {
  KEYS,
  fixtureApplication,
  fixtureEC2NodeClass,
  fixtureGroupNode,
  fixtureNodeClaim,
  fixtureNodePool,
  fixturePod,
  karpenterController,
  startKubeApi,
} from './kube-api.js';

/** The loopback Kubernetes API of the environment (see the module comment). */
export async function startParkKube(): Promise<KubeApiServer> {
  const kube = await startKubeApi({
    nodes: [
      fixtureGroupNode('sys-1', { nodegroup: 'system' }),
      fixtureGroupNode('wk-1', { nodegroup: 'workers' }),
      fixtureGroupNode('kp-1', { nodepool: 'default' }, { 'karpenter.sh/do-not-disrupt': 'true' }),
    ],
    applications: [
      {
        ...fixtureApplication('karpenter'),
        spec: { project: 'default', syncPolicy: { automated: { prune: true, selfHeal: true } } },
      },
    ],
    custom: {
      [KEYS.pods]: [
        fixturePod('apps', 'api-1', {
          node: 'wk-1',
          labels: { app: 'api' },
          annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
        }),
        fixturePod('kube-system', 'coredns-1', { node: 'sys-1' }),
        fixturePod('kube-system', 'cilium-x', { node: 'sys-1', owner: { kind: 'DaemonSet', name: 'cilium' } }),
      ],
      [KEYS.nodepools]: [fixtureNodePool('default')],
      [KEYS.ec2nodeclasses]: [fixtureEC2NodeClass('default')],
      [KEYS.nodeclaims]: [fixtureNodeClaim('default-abc', 'default', 'kp-1')],
    },
  });
  kube.controllers.push(karpenterController());
  return kube;
}
