// Where test binaries are cached: opgen's own folder (downloads and Go builds, the one .ci/test-assets.sh
// fills too) and, read-only, kubebuilder's setup-envtest store, so binaries a Go user already has are used.
import { accessSync, constants, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { compareVersions, versionMatches } from './releases.js';

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

export function executable(path: string): boolean {
  try { accessSync(path, constants.X_OK); return true; } catch { return false; }
}

export interface CachedAssets { folder: string; version: string }

const VERSION_IN_NAME = /(?:^|[^\d.])(\d+\.\d+\.\d+)(?:-(linux|darwin|windows|freebsd)-([a-z0-9]+))?/;

/**
 * Every cached folder holding executable kube-apiserver and etcd for this platform whose Kubernetes
 * version `wanted` selects, newest first (earlier roots win ties).
 */
export function findCached(roots: string[], wanted: string | undefined, platform: { os: string; arch: string }): CachedAssets[] {
  const found: Array<CachedAssets & { rank: number }> = [];
  roots.forEach((root, rank) => {
    let names: string[];
    try { names = readdirSync(root); } catch { return; }
    for (const name of names) {
      if (name.startsWith('.')) continue; // temp folders of a download or build in progress
      const m = VERSION_IN_NAME.exec(name);
      if (!m) continue;
      const [, version, os, arch] = m;
      if (os && arch && (os !== platform.os || arch !== platform.arch)) continue;
      if (!versionMatches(version!, wanted)) continue;
      const folder = join(root, name);
      if (!executable(join(folder, 'kube-apiserver')) || !executable(join(folder, 'etcd'))) continue;
      found.push({ folder, version: version!, rank });
    }
  });
  return found
    .sort((a, b) => compareVersions(b.version, a.version) || a.rank - b.rank)
    .map(({ folder, version }) => ({ folder, version }));
}
