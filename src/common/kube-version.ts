// The oldest Kubernetes a project supports: PROJECT's minKubeVersion, read by `generate` (CEL rules are
// checked against that version's API server) and by the OLM base CSV (spec.minKubeVersion).

/** The support floor when PROJECT says nothing: the minKubeVersion operator-sdk's base CSV has always had. */
export const DEFAULT_MIN_KUBE_VERSION = '1.28.0';

export interface KubeMinor {
  major: number;
  minor: number;
}

/** `1.30` or `1.30.2` (no leading v), as OLM's minKubeVersion is written; undefined when it is not that. */
export function parseKubeVersion(text: string): KubeMinor | undefined {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

export function formatKubeMinor(v: KubeMinor): string {
  return `${v.major}.${v.minor}`;
}

/** a < b */
export function kubeOlder(a: KubeMinor, b: KubeMinor): boolean {
  return a.major < b.major || (a.major === b.major && a.minor < b.minor);
}
