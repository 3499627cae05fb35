// Drift between a release's manifest and the live objects: an object deleted by hand, or a field of
// the manifest edited by hand. Live objects carry more than the manifest (defaults, status, metadata
// the server adds), so the check is "every value the manifest sets is what the live object has".
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../api/types.js';

/** The objects of a rendered manifest (`---`-separated YAML), empty documents skipped. */
export function manifestObjects(manifest: string | undefined): KubeObject[] {
  if (!manifest) return [];
  return parseAllDocuments(manifest)
    .map((d) => d.toJS() as unknown)
    .filter((o): o is KubeObject => typeof o === 'object' && o !== null && typeof (o as KubeObject).kind === 'string');
}

/**
 * The first path where `live` differs from what `wanted` sets, or undefined when every value of
 * `wanted` is in `live`. Scalars compare as text ("8080" and 8080 are the same port to the server).
 */
export function firstDifference(wanted: unknown, live: unknown, path = ''): string | undefined {
  if (wanted === null || wanted === undefined) return undefined;
  if (Array.isArray(wanted)) {
    if (!Array.isArray(live) || live.length !== wanted.length) return path || '/';
    for (let i = 0; i < wanted.length; i++) {
      const d = firstDifference(wanted[i], live[i], `${path}/${i}`);
      if (d) return d;
    }
    return undefined;
  }
  if (typeof wanted === 'object') {
    if (typeof live !== 'object' || live === null || Array.isArray(live)) return path || '/';
    for (const [k, v] of Object.entries(wanted as Record<string, unknown>)) {
      const d = firstDifference(v, (live as Record<string, unknown>)[k], `${path}/${k}`);
      if (d) return d;
    }
    return undefined;
  }
  if (String(wanted) === String(live)) return undefined;
  // The API server writes resource quantities in canonical form: a chart's cpu: 0.5 is live as 500m.
  const [a, b] = [quantity(wanted), quantity(live)];
  return a !== undefined && b !== undefined && Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b)) ? undefined : path || '/';
}

const suffixes: Record<string, number> = {
  '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** The value of a Kubernetes quantity ("500m", "1Gi", "0.5", "1e3"), or undefined for other text. */
function quantity(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  const m = typeof v === 'string' ? /^([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([+-]?\d+))?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.exec(v) : null;
  if (!m) return undefined;
  return Number(m[1]) * 10 ** Number(m[2] ?? 0) * suffixes[m[3] ?? '']!;
}
