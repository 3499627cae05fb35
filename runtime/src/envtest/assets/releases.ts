// controller-tools' envtest releases index, the file kubebuilder's setup-envtest reads:
//   releases:
//     v1.36.3:
//       envtest-v1.36.3-linux-amd64.tar.gz:
//         hash: <sha512, hex>
//         selfLink: https://github.com/kubernetes-sigs/controller-tools/releases/download/envtest-v1.36.3/…
import { parse } from 'yaml';

export const DEFAULT_INDEX_URL = 'https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml';

export interface Release {
  /** Kubernetes version without the v: 1.36.3 */
  version: string;
  os: string;
  arch: string;
  /** Archive file name, e.g. envtest-v1.36.3-linux-amd64.tar.gz */
  name: string;
  /** sha512 of the archive, lower-case hex */
  sha512: string;
  url: string;
}

export class ReleaseIndexError extends Error {
  override readonly name = 'ReleaseIndexError';
}

const ARCHIVE = /^envtest-v(\d+\.\d+\.\d+)-([a-z0-9]+)-([a-z0-9]+)\.tar\.gz$/;

export function parseReleaseIndex(text: string, source: string): Release[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new ReleaseIndexError(`${source} is not YAML: ${(err as Error).message}`);
  }
  const releases = (doc as { releases?: unknown } | null)?.releases;
  if (!releases || typeof releases !== 'object') throw new ReleaseIndexError(`${source} has no 'releases' map`);
  const out: Release[] = [];
  for (const archives of Object.values(releases as Record<string, unknown>)) {
    if (!archives || typeof archives !== 'object') continue;
    for (const [name, entry] of Object.entries(archives as Record<string, { hash?: unknown; selfLink?: unknown }>)) {
      const m = ARCHIVE.exec(name);
      if (!m || typeof entry?.hash !== 'string' || typeof entry.selfLink !== 'string') continue;
      out.push({ version: m[1]!, os: m[2]!, arch: m[3]!, name, sha512: entry.hash.toLowerCase(), url: entry.selfLink });
    }
  }
  return out;
}

/** Compares dotted numeric versions: negative when a < b. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** True when `version` (1.36.3) is selected by `wanted` ('1.36.3', '1.36', '1.36.x', 'v1.36' or undefined = any). */
export function versionMatches(version: string, wanted: string | undefined): boolean {
  if (!wanted) return true;
  const parts = wanted.replace(/^v/, '').replace(/\.x$/, '').split('.');
  const have = version.split('.');
  return parts.every((p, i) => have[i] === p);
}

/** The newest release for this platform that `wanted` selects. */
export function pickRelease(releases: Release[], wanted: string | undefined, os: string, arch: string): Release | undefined {
  return releases
    .filter((r) => r.os === os && r.arch === arch && versionMatches(r.version, wanted))
    .sort((a, b) => compareVersions(b.version, a.version))[0];
}

/** Node's platform and arch in Go's spelling, as the archive names use them. */
export function goPlatform(platform: string = process.platform, arch: string = process.arch): { os: string; arch: string } {
  const os = platform === 'win32' ? 'windows' : platform;
  const goArch: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x', ia32: '386', arm: 'arm' };
  return { os, arch: goArch[arch] ?? arch };
}
