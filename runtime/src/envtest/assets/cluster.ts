// The simulated cluster's binaries (kube-controller-manager, kube-scheduler, kwok and kwok's stages) for
// every project: found in opgen's cache (where the opgen repository's .ci/cluster-assets.sh and this code
// put them), else built with Go from the module proxy. `opgen setup-envtest --cluster` runs it.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { executable, MissingBinariesError, opgenCacheRoot } from '../internal/binaries.js';
import { buildClusterFromGoProxy, haveGo } from './build.js';
import { withLock } from './lock.js';
import { silentProgress, stderrProgress, type ProgressSink } from './progress.js';
import { DEFAULT_KUBERNETES_VERSION, DEFAULT_KWOK_VERSION } from './versions.js';

export const CLUSTER_BINARIES = ['kube-controller-manager', 'kube-scheduler', 'kwok'];
export const STAGES_FILE = 'kwok-stages.yaml';

const complete = (folder: string): boolean =>
  CLUSTER_BINARIES.every((b) => executable(join(folder, b))) && existsSync(join(folder, STAGES_FILE));

/** Complete `cluster-*` folders in opgen's cache, newest version first. */
export function cachedClusterFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  const root = opgenCacheRoot(env);
  try {
    return readdirSync(root).filter((d) => d.startsWith('cluster-')).sort().reverse().map((d) => join(root, d)).filter(complete);
  } catch {
    return [];
  }
}

export interface SetupClusterOptions {
  /** Kubernetes version of kube-controller-manager and kube-scheduler (x.y.z); default DEFAULT_KUBERNETES_VERSION. */
  k8sVersion?: string;
  kwokVersion?: string;
  /** Build with Go when the cache has none (default true). */
  build?: boolean;
  progress?: ProgressSink | false;
  env?: NodeJS.ProcessEnv;
}

/** A folder holding the simulated cluster's binaries: the cache's, else one built with Go. */
export async function setupCluster(opts: SetupClusterOptions = {}): Promise<string> {
  const env = opts.env ?? process.env;
  const k8sVersion = (opts.k8sVersion ?? DEFAULT_KUBERNETES_VERSION).replace(/^v/, '');
  const kwokVersion = (opts.kwokVersion ?? DEFAULT_KWOK_VERSION).replace(/^v/, '');
  const root = opgenCacheRoot(env);
  const dest = join(root, `cluster-k8s-${k8sVersion}-kwok-${kwokVersion}`);
  if (complete(dest)) return dest;
  const progress = opts.progress === false ? silentProgress : opts.progress ?? stderrProgress();
  mkdirSync(root, { recursive: true });
  return withLock(`${dest}.setup.lock`, () => progress.note(`another process is building ${dest}; waiting for it`), async () => {
    if (complete(dest)) return dest;
    if (opts.build === false || !(await haveGo())) {
      throw new MissingBinariesError(
        `envtest: no kube-controller-manager, kube-scheduler and kwok for Kubernetes ${k8sVersion} in ${root}` +
        (opts.build === false ? '' : ', and Go is not installed to build them') +
        '. Fix: install Go >= 1.26 and rerun `npx opgen setup-envtest --cluster`, or set OPGEN_CLUSTER_ASSETS to a folder holding them and kwok-stages.yaml.',
      );
    }
    await buildClusterFromGoProxy({ k8sVersion, kwokVersion, dest, progress });
    return dest;
  });
}
