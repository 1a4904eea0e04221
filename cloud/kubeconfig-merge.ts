/**
 * platctl's entries in a kubeconfig: one cluster, user and context per environment (`platctl-<env>`), the user an
 * exec plugin that asks `platctl kubeconfig token` for an EKS token. Pure: `platctl kubeconfig` (cloud/kubeconfig-command.ts)
 * reads the file, merges with this, and writes it.
 */

/** The names platctl gives an environment's cluster, user and context. */
export function contextName(env: string): string {
  return `platctl-${env}`;
}

interface NamedEntry {
  name: string;
  [key: string]: unknown;
}

export interface KubeconfigDocument {
  apiVersion?: string;
  kind?: string;
  clusters?: NamedEntry[];
  users?: NamedEntry[];
  contexts?: NamedEntry[];
  'current-context'?: string;
  [key: string]: unknown;
}

export interface ClusterEntry {
  readonly env: string;
  readonly endpoint: string;
  /** Base64 PEM, as DescribeCluster returns it. */
  readonly caData: string;
}

export interface ExecSettings {
  /** The program kubectl runs: `platctl` on PATH unless told otherwise. */
  readonly command: string;
  /** Absolute path of .platctl.yaml: kubectl runs the plugin from any directory. */
  readonly configPath: string;
}

/**
 * Merges platctl's entries into a kubeconfig document: entries with the same names are replaced, everything else
 * is kept; current-context is set only when the file had none.
 */
export function mergeKubeconfig(
  existing: KubeconfigDocument,
  clusters: readonly ClusterEntry[],
  exec: ExecSettings,
): KubeconfigDocument {
  const upsert = (list: NamedEntry[] | undefined, entry: NamedEntry): NamedEntry[] => {
    const out = [...(list ?? [])];
    const at = out.findIndex((e) => e.name === entry.name);
    if (at === -1) out.push(entry);
    else out[at] = entry;
    return out;
  };
  const doc: KubeconfigDocument = { apiVersion: 'v1', kind: 'Config', ...existing };
  for (const cluster of clusters) {
    const name = contextName(cluster.env);
    doc.clusters = upsert(doc.clusters, {
      name,
      cluster: { server: cluster.endpoint, 'certificate-authority-data': cluster.caData },
    });
    doc.users = upsert(doc.users, {
      name,
      user: {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1beta1',
          command: exec.command,
          args: ['kubeconfig', 'token', '--env', cluster.env, '--config', exec.configPath],
          interactiveMode: 'Never',
          provideClusterInfo: false,
        },
      },
    });
    doc.contexts = upsert(doc.contexts, { name, context: { cluster: name, user: name } });
  }
  const first = clusters[0];
  if (!doc['current-context'] && first) doc['current-context'] = contextName(first.env);
  return doc;
}
