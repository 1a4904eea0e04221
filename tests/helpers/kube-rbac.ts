/**
 * The least-privilege identity the tests run platctl as: the token file's `limited` user, bound to a ClusterRole that
 * the project's docs publish (read from the page itself, so a permission the docs leave out fails a test).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject, KubeServer } from './kube-server.js';
import { waitFor } from './kube-server.js';

/** The repository's docs/: above this module (tests/helpers, or dist/tests/helpers when the park demo is built). */
function docsDir(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'docs', 'park.md'))) return join(dir, 'docs');
  }
  throw new Error(`no docs/park.md above ${import.meta.dirname}`);
}

const DOCS = docsDir();

/** The ClusterRole `name` from a ```yaml block of docs/<page>. */
export function documentedClusterRole(page: string, name: string): KubeObject {
  const text = readFileSync(join(DOCS, page), 'utf8');
  for (const [, block] of text.matchAll(/```yaml\n([\s\S]*?)```/g)) {
    for (const doc of parseAllDocuments(block ?? '')) {
      const object = doc.toJS() as Partial<KubeObject> | null;
      if (object?.kind === 'ClusterRole' && object.metadata?.name === name) return object as KubeObject;
    }
  }
  throw new Error(`docs/${page} publishes no ClusterRole ${name}`);
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  nonResourceURLs?: string[];
}

/**
 * Creates `role` and binds it to `user` (default: the token file's `limited` user), then waits until the server's
 * authorizer grants every rule's first verb (RBAC is served from a cache that follows the writes).
 */
export async function bindClusterRole(kube: KubeServer, role: KubeObject, user = 'limited'): Promise<void> {
  const name = role.metadata.name;
  await kube.create(role);
  await kube.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });
  for (const rule of (role.rules ?? []) as Rule[]) {
    const verb = rule.verbs?.[0] ?? 'get';
    const attributes = rule.nonResourceURLs
      ? { nonResourceAttributes: { path: rule.nonResourceURLs[0], verb } }
      : { resourceAttributes: { group: rule.apiGroups?.[0] ?? '', resource: rule.resources?.[0], verb } };
    await waitFor(`RBAC did not grant ${JSON.stringify(rule)} to ${user}`, async () => {
      const res = await kube.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user, groups: ['system:authenticated'], ...attributes },
      });
      return (res.body as { status?: { allowed?: boolean } }).status?.allowed === true;
    });
  }
}
