// Finds kube-apiserver and etcd the way controller-runtime's envtest does, so a kubebuilder user's
// `setup-envtest use -p path` folder works unchanged.
import { accessSync, constants, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface Binaries { kubeApiserver: string; etcd: string }

const DEFAULT_ASSETS = '/usr/local/kubebuilder/bin';

export class MissingBinariesError extends Error {
  override readonly name = 'MissingBinariesError';
}

export function executable(path: string): boolean {
  try { accessSync(path, constants.X_OK); return true; } catch { return false; }
}

/** `override` when set (if it is executable), else the first executable `name` in `folders`. */
export function findExecutable(name: string, override: string | undefined, folders: string[]): string | undefined {
  if (override) return executable(override) ? override : undefined;
  return folders.map((f) => join(f, name)).find(executable);
}

/** opgen's cache: $OPGEN_ASSETS_CACHE, else $XDG_CACHE_HOME/opgen/envtest, else ~/.cache/opgen/envtest. */
export function opgenCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.OPGEN_ASSETS_CACHE || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'opgen', 'envtest');
}

/** setup-envtest's stores (`<version>-<os>-<arch>` folders) on Linux and macOS. */
export function setupEnvtestStores(env: NodeJS.ProcessEnv = process.env): string[] {
  return [
    join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'kubebuilder-envtest', 'k8s'),
    join(homedir(), 'Library', 'Application Support', 'io.kubebuilder.envtest', 'k8s'),
  ];
}

/**
 * Folders where binaries usually end up without being on KUBEBUILDER_ASSETS: this repository's
 * test-assets.sh cache and setup-envtest's store. Only suggested in the error, never used silently.
 */
function knownAssetFolders(env: NodeJS.ProcessEnv): string[] {
  return [opgenCacheRoot(env), ...setupEnvtestStores(env)].flatMap((root) => {
    try {
      return readdirSync(root).sort().reverse().map((d) => join(root, d));
    } catch {
      return [];
    }
  }).filter((folder) => executable(join(folder, 'kube-apiserver')) && executable(join(folder, 'etcd')));
}

/**
 * Order per binary: TEST_ASSET_KUBE_APISERVER / TEST_ASSET_ETCD, then `assetsDirectory` (the
 * binaryAssetsDirectory option), then $KUBEBUILDER_ASSETS, then /usr/local/kubebuilder/bin.
 */
export function findBinaries(assetsDirectory?: string, env: NodeJS.ProcessEnv = process.env): Binaries {
  const folders = [assetsDirectory, env.KUBEBUILDER_ASSETS, DEFAULT_ASSETS].filter((f): f is string => !!f);
  const kubeApiserver = findExecutable('kube-apiserver', env.TEST_ASSET_KUBE_APISERVER, folders);
  const etcd = findExecutable('etcd', env.TEST_ASSET_ETCD, folders);
  if (kubeApiserver && etcd) return { kubeApiserver, etcd };
  const missing = [!kubeApiserver && 'kube-apiserver', !etcd && 'etcd'].filter(Boolean).join(' and ');
  const looked = [
    env.TEST_ASSET_KUBE_APISERVER && `TEST_ASSET_KUBE_APISERVER=${env.TEST_ASSET_KUBE_APISERVER}`,
    env.TEST_ASSET_ETCD && `TEST_ASSET_ETCD=${env.TEST_ASSET_ETCD}`,
    ...folders,
  ].filter(Boolean).join(', ');
  const found = knownAssetFolders(env)[0];
  throw new MissingBinariesError(
    `envtest: no executable ${missing} found (looked in ${looked}). ` +
    (found ? `This machine has them in ${found}: \`export KUBEBUILDER_ASSETS=${found}\`. Otherwise set` : 'Set') +
    ' KUBEBUILDER_ASSETS to a folder holding kube-apiserver and etcd: ' +
    '`export KUBEBUILDER_ASSETS=$(setup-envtest use -p path)` (kubebuilder\'s setup-envtest), ' +
    'or in the opgen repository `export KUBEBUILDER_ASSETS=$(bash .ci/test-assets.sh)`.',
  );
}
