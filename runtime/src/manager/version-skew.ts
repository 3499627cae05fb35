// The Kubernetes release the runtime's built-in types (runtime/src/kubernetes) were generated from, and
// the window of API server versions they are meant for. The manager logs one warning at start when the
// server is outside it; `opgen doctor` reports the same with what breaks.

/** Kubernetes version of @opgen/runtime/kubernetes (tools/kubernetes-types generated it from this release's OpenAPI). */
export const RUNTIME_KUBERNETES_VERSION = '1.36.3';

/**
 * Minors older and newer than the types' that the runtime supports. Older: Kubernetes maintains three
 * releases, so an operator built today meets servers up to three minors back; kinds and fields added since
 * are missing there. Newer: one minor, as kubectl's skew policy; beyond it the server may serve versions
 * and fields the types do not know (and drops beta APIs the types still have).
 */
export const SKEW_OLDER = 3;
export const SKEW_NEWER = 1;

export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
}

export interface VersionSkew {
  server: { major: number; minor: number };
  types: { major: number; minor: number };
  /** Oldest and newest server minor of the window, e.g. 1.33 and 1.37. */
  oldest: { major: number; minor: number };
  newest: { major: number; minor: number };
  /** 'older' or 'newer' when the server is outside the window. */
  outside?: 'older' | 'newer';
}

/** Where a server version sits against the runtime types' window (managed clusters add "+": `"31+"`). */
export function versionSkew(server: Pick<ServerVersion, 'major' | 'minor'>): VersionSkew {
  const [tMajor, tMinor] = RUNTIME_KUBERNETES_VERSION.split('.').map(Number) as [number, number];
  const s = { major: parseInt(server.major, 10), minor: parseInt(server.minor, 10) };
  const oldest = { major: tMajor, minor: tMinor - SKEW_OLDER };
  const newest = { major: tMajor, minor: tMinor + SKEW_NEWER };
  const rank = (v: { major: number; minor: number }): number => v.major * 1000 + v.minor;
  const outside = rank(s) < rank(oldest) ? 'older' : rank(s) > rank(newest) ? 'newer' : undefined;
  return { server: s, types: { major: tMajor, minor: tMinor }, oldest, newest, ...(outside ? { outside } : {}) };
}

/** The one warning line for a server outside the window, or undefined inside it. */
export function versionSkewWarning(server: ServerVersion): string | undefined {
  const skew = versionSkew(server);
  if (!skew.outside) return undefined;
  const window = `${skew.oldest.major}.${skew.oldest.minor}-${skew.newest.major}.${skew.newest.minor}`;
  return `Kubernetes ${server.gitVersion} is outside @opgen/runtime's supported window ${window} (types of ${RUNTIME_KUBERNETES_VERSION}): ` +
    (skew.outside === 'older' ? 'kinds and fields newer than the server are missing there' : 'the server may serve versions and fields the types do not know') +
    '; run `opgen doctor` for details';
}
