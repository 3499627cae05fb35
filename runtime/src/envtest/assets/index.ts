// Test binaries for every project: found, downloaded or built, in that order. The entry points are
// setupEnvtest() (the `opgen setup-envtest` command, a vitest globalSetup) and resolveBinaries(), which
// startTestEnv calls when nothing is configured.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { findBinaries, MissingBinariesError, opgenCacheRoot, setupEnvtestStores, type Binaries } from '../internal/binaries.js';
import { buildFromGoProxy, haveGo } from './build.js';
import { findCached } from './cache.js';
import { ChecksumMismatchError, downloadRelease, fetchText } from './download.js';
import { withLock } from './lock.js';
import { silentProgress, stderrProgress, type ProgressSink } from './progress.js';
import { DEFAULT_INDEX_URL, goPlatform, parseReleaseIndex, pickRelease } from './releases.js';

export { ChecksumMismatchError } from './download.js';
export { progressTo, type ProgressSink } from './progress.js';

import { DEFAULT_ETCD_VERSION, DEFAULT_KUBERNETES_VERSION } from './versions.js';

export { DEFAULT_ETCD_VERSION, DEFAULT_KUBERNETES_VERSION, DEFAULT_KWOK_VERSION } from './versions.js';
export { cachedClusterFolders, setupCluster, type SetupClusterOptions } from './cluster.js';

export interface SetupEnvtestOptions {
  /** Kubernetes version: '1.36.3', '1.36' (newest patch), '1.36.x'; default: newest 1.36. */
  version?: string;
  /**
   * Folders to look in; the first is where downloads and builds go. Default: opgen's cache
   * ($OPGEN_ASSETS_CACHE or ~/.cache/opgen/envtest), then setup-envtest's store.
   */
  cacheRoots?: string[];
  /** The releases index (controller-tools' envtest-releases.yaml); default $OPGEN_ENVTEST_INDEX_URL or GitHub's. */
  indexUrl?: string;
  /** Where progress goes; default stderr. `false` for none. */
  progress?: ProgressSink | false;
  /** Build from the Go module proxy when the download fails and Go is installed (default true). */
  build?: boolean;
  /** Platform in Go's names; default this machine's. */
  platform?: { os: string; arch: string };
  env?: NodeJS.ProcessEnv;
}

function defaultVersion(version: string | undefined): string {
  return version ?? DEFAULT_KUBERNETES_VERSION.split('.').slice(0, 2).join('.');
}

/**
 * A folder holding kube-apiserver and etcd: from the cache, else downloaded from the envtest releases
 * (sha512-checked), else built with Go. Throws MissingBinariesError naming what was tried.
 */
export async function setupEnvtest(opts: SetupEnvtestOptions = {}): Promise<string> {
  const env = opts.env ?? process.env;
  const wanted = defaultVersion(opts.version?.replace(/^v/, ''));
  const platform = opts.platform ?? goPlatform();
  const roots = opts.cacheRoots ?? [opgenCacheRoot(env), ...setupEnvtestStores(env)];
  const root = roots[0]!;
  const progress = opts.progress === false ? silentProgress : opts.progress ?? stderrProgress();
  const cached = findCached(roots, wanted, platform)[0];
  if (cached) return cached.folder;

  mkdirSync(root, { recursive: true });
  return withLock(join(root, '.setup.lock'), () => progress.note(`another process is fetching test binaries into ${root}; waiting for it`), async () => {
    const again = findCached(roots, wanted, platform)[0]; // the process we waited for may have made it
    if (again) return again.folder;

    const indexUrl = opts.indexUrl ?? (env.OPGEN_ENVTEST_INDEX_URL || DEFAULT_INDEX_URL);
    let why: string;
    try {
      const releases = parseReleaseIndex(await fetchText(indexUrl), indexUrl);
      const release = pickRelease(releases, wanted, platform.os, platform.arch);
      if (release) {
        const dest = join(root, `envtest-v${release.version}-${release.os}-${release.arch}`);
        progress.note(`no kube-apiserver/etcd for Kubernetes ${wanted} in ${roots.join(', ')}; downloading envtest ${release.version} (${platform.os}/${platform.arch})`);
        await downloadRelease(release, root, dest, progress);
        return dest;
      }
      why = `the releases index ${indexUrl} has no envtest ${wanted} for ${platform.os}/${platform.arch}`;
    } catch (err) {
      if (err instanceof ChecksumMismatchError) throw err; // never paper over a bad download with a build
      why = (err as Error).message;
    }

    if (opts.build !== false && (await haveGo())) {
      const k8sVersion = /^\d+\.\d+\.\d+$/.test(wanted) ? wanted
        : DEFAULT_KUBERNETES_VERSION.startsWith(`${wanted.replace(/\.x$/, '')}.`) ? DEFAULT_KUBERNETES_VERSION : `${wanted.replace(/\.x$/, '')}.0`;
      progress.note(`${why}; building Kubernetes ${k8sVersion} test binaries with Go instead`);
      const dest = join(root, `k8s-${k8sVersion}-etcd-${DEFAULT_ETCD_VERSION}`);
      await buildFromGoProxy({ k8sVersion, etcdVersion: DEFAULT_ETCD_VERSION, dest, progress });
      return dest;
    }
    throw new MissingBinariesError(
      `envtest: no kube-apiserver and etcd for Kubernetes ${wanted} in ${roots.join(', ')}, and they could not be fetched: ${why}. ` +
      (opts.build === false ? '' : 'Go is not installed, so they could not be built either. ') +
      'Fix: rerun with network access (`npx opgen setup-envtest`), install Go >= 1.26, or set KUBEBUILDER_ASSETS to a folder holding kube-apiserver and etcd.',
    );
  });
}

/**
 * The binaries startTestEnv runs: what TEST_ASSET_*, `assetsDirectory`, KUBEBUILDER_ASSETS or
 * /usr/local/kubebuilder/bin name; when none of those is set, setupEnvtest() provides them.
 * An explicit setting that lacks the binaries stays an error (a typo should not trigger a download).
 */
export async function resolveBinaries(assetsDirectory: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<Binaries> {
  try {
    return findBinaries(assetsDirectory, env);
  } catch (err) {
    const explicit = assetsDirectory || env.KUBEBUILDER_ASSETS || env.TEST_ASSET_KUBE_APISERVER || env.TEST_ASSET_ETCD;
    if (!(err instanceof MissingBinariesError) || explicit) throw err;
    return findBinaries(await setupEnvtest({ env }), env);
  }
}
