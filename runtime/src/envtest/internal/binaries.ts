// Finds kube-apiserver and etcd the way controller-runtime's envtest does, so a kubebuilder user's
// `setup-envtest use -p path` folder works unchanged.
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

export interface Binaries { kubeApiserver: string; etcd: string }

const DEFAULT_ASSETS = '/usr/local/kubebuilder/bin';

export class MissingBinariesError extends Error {
  override readonly name = 'MissingBinariesError';
}

function executable(path: string): boolean {
  try { accessSync(path, constants.X_OK); return true; } catch { return false; }
}

/**
 * Order per binary: TEST_ASSET_KUBE_APISERVER / TEST_ASSET_ETCD, then `assetsDirectory` (the
 * binaryAssetsDirectory option), then $KUBEBUILDER_ASSETS, then /usr/local/kubebuilder/bin.
 */
export function findBinaries(assetsDirectory?: string, env: NodeJS.ProcessEnv = process.env): Binaries {
  const folders = [assetsDirectory, env.KUBEBUILDER_ASSETS, DEFAULT_ASSETS].filter((f): f is string => !!f);
  const find = (name: string, override: string | undefined): string | undefined => {
    if (override) return executable(override) ? override : undefined;
    return folders.map((f) => join(f, name)).find(executable);
  };
  const kubeApiserver = find('kube-apiserver', env.TEST_ASSET_KUBE_APISERVER);
  const etcd = find('etcd', env.TEST_ASSET_ETCD);
  if (kubeApiserver && etcd) return { kubeApiserver, etcd };
  const missing = [!kubeApiserver && 'kube-apiserver', !etcd && 'etcd'].filter(Boolean).join(' and ');
  const looked = [
    env.TEST_ASSET_KUBE_APISERVER && `TEST_ASSET_KUBE_APISERVER=${env.TEST_ASSET_KUBE_APISERVER}`,
    env.TEST_ASSET_ETCD && `TEST_ASSET_ETCD=${env.TEST_ASSET_ETCD}`,
    ...folders,
  ].filter(Boolean).join(', ');
  throw new MissingBinariesError(
    `envtest: no executable ${missing} found (looked in ${looked}). ` +
    'Set KUBEBUILDER_ASSETS to a folder holding kube-apiserver and etcd: ' +
    '`export KUBEBUILDER_ASSETS=$(setup-envtest use -p path)` (kubebuilder\'s setup-envtest), ' +
    'or in the opgen repository `export KUBEBUILDER_ASSETS=$(bash .ci/test-assets.sh)`.',
  );
}
