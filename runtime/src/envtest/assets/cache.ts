// Test binaries already cached: in opgen's own folder (downloads and Go builds, the one .ci/test-assets.sh
// fills too) and, read-only, kubebuilder's setup-envtest store, so binaries a Go user already has are used.
// Both roots are defined in internal/binaries.ts, whose error message names them too.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { executable } from '../internal/binaries.js';
import { compareVersions, versionMatches } from './releases.js';

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
