// Test support (excluded from the build): act as a service account of a test API server, so that the
// API server's RBAC judges what a manager does with the Roles a project renders.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { loadKubeConfig, type KubeConfigLike } from '@opgen/runtime';

/** What of a started test environment (envtest's TestEnv) the kubeconfig needs. */
export interface TestApiServer {
  kubeconfigPath: string;
  server: string;
  caData: string;
}

/**
 * Writes `<dir>/sa.kubeconfig`, authenticated as service account `namespace/name` by a token from
 * `kubectl create token` (the account must exist), and returns its path.
 */
export async function writeServiceAccountKubeconfig(env: TestApiServer, namespace: string, name: string, dir: string): Promise<string> {
  const token = (await execa('kubectl', ['--kubeconfig', env.kubeconfigPath, 'create', 'token', name, '-n', namespace])).stdout.trim();
  const path = join(dir, 'sa.kubeconfig');
  writeFileSync(path, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'sa',
    clusters: [{ name: 'envtest', cluster: { server: env.server, 'certificate-authority-data': Buffer.from(env.caData).toString('base64') } }],
    users: [{ name: 'sa', user: { token } }],
    contexts: [{ name: 'sa', context: { cluster: 'envtest', user: 'sa' } }],
  }));
  return path;
}

/** The same kubeconfig, loaded as the runtime loads $KUBECONFIG (the process's own KUBECONFIG is restored). */
export async function serviceAccountKubeConfig(env: TestApiServer, namespace: string, name: string, dir: string): Promise<KubeConfigLike> {
  const path = await writeServiceAccountKubeconfig(env, namespace, name, dir);
  const saved = process.env.KUBECONFIG;
  process.env.KUBECONFIG = path;
  try {
    return await loadKubeConfig();
  } finally {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
  }
}
