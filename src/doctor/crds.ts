// Installed CRDs vs the generated ones: missing, stale, a storage version that moves, and stored
// versions that the new CRD would drop (the API server refuses such an update).
import type { Finding } from './findings.js';
import type { Kubectl } from './kubectl.js';
import type { KubeObject } from './project.js';

interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  [key: string]: unknown;
}

interface ManagedFields {
  manager?: string;
  operation?: string;
  subresource?: string;
  fieldsV1?: Record<string, unknown>;
}

interface Crd extends KubeObject {
  metadata?: KubeObject['metadata'] & { managedFields?: ManagedFields[] };
  spec?: { group?: string; scope?: string; names?: Record<string, unknown>; versions?: CrdVersion[]; [key: string]: unknown };
  status?: { storedVersions?: string[] };
}

export const APPLY_CRDS = 'kubectl apply --server-side -k config/crd (or opgen dev, which applies them first)';

/** kubectl apply --server-side's field manager: its own fields never conflict. */
const KUBECTL_MANAGER = 'kubectl';

/**
 * How to apply the generated CRDs over an installed one. When another field manager owns part of its spec
 * (helm, envtest, a GitOps tool, an earlier client-side apply), a plain server-side apply fails with a
 * conflict on every field whose value changes; --force-conflicts takes those fields over.
 */
export function applyCrdsFix(installed: Crd | undefined): string {
  const others = [
    ...new Set(
      (installed?.metadata?.managedFields ?? [])
        .filter((m) => m.subresource === undefined && m.manager !== KUBECTL_MANAGER && m.fieldsV1 !== undefined && 'f:spec' in m.fieldsV1)
        .map((m) => m.manager ?? '(unnamed)'),
    ),
  ].sort();
  if (others.length === 0) return APPLY_CRDS;
  const who = others.map((m) => `"${m}"`).join(', ');
  return `kubectl apply --server-side --force-conflicts -k config/crd (the CRD's spec is also managed by ${who}, so without --force-conflicts the apply fails on a field-manager conflict; --force-conflicts makes kubectl the owner of the fields it changes, and ${others.length === 1 ? 'that manager' : 'those managers'} will set them back on ${others.length === 1 ? 'its' : 'their'} next apply or sync unless updated the same way)`;
}

export async function checkCrds(kubectl: Kubectl, generated: readonly KubeObject[]): Promise<Finding[]> {
  if (generated.length === 0) return [];
  // managedFields say which other tools manage a CRD (kubectl hides them unless asked).
  const list = await kubectl.json<{ items: Crd[] }>(['get', 'customresourcedefinitions', '--show-managed-fields']);
  const installed = new Map(list.items.map((c) => [c.metadata?.name ?? '', c]));
  return generated.map((g) => crdFinding(g as Crd, installed.get(g.metadata?.name ?? '')));
}

export function crdFinding(generated: Crd, installed: Crd | undefined): Finding {
  const subject = generated.metadata?.name ?? '(unnamed)';
  const base = { check: 'crd' as const, subject };
  if (!installed) return { ...base, status: 'error', message: 'not installed in the cluster: the operator\'s watches of this kind fail', fix: APPLY_CRDS };
  const apply = applyCrdsFix(installed);
  const versions = generated.spec?.versions ?? [];
  const names = versions.map((v) => v.name);
  const dropped = (installed.status?.storedVersions ?? []).filter((v) => !names.includes(v));
  if (dropped.length > 0) {
    return {
      ...base, status: 'error',
      message: `status.storedVersions has ${dropped.join(', ')}, which the generated CRD drops: the API server refuses the update while objects may still be stored as ${dropped.join(', ')}`,
      fix: `keep ${dropped.join(', ')} in the CRD with served: false until every object is rewritten in the storage version, then remove ${dropped.length === 1 ? 'it' : 'them'} from status.storedVersions (kubectl patch crd ${subject} --subresource=status)`,
    };
  }
  const storage = (c: Crd): string | undefined => c.spec?.versions?.find((v) => v.storage)?.name;
  const diff = firstDifference(withoutConversion(generated.spec), withoutConversion(installed.spec), 'spec');
  const from = storage(installed);
  const to = storage(generated);
  if (from !== to) {
    return {
      ...base, status: 'warning',
      message: `the storage version changes from ${from} to ${to}: objects stay stored as ${from} until rewritten, and ${from} stays in status.storedVersions`,
      fix: `${apply}; then rewrite every object (read and write each, or kube-storage-version-migrator) and remove ${from} from status.storedVersions`,
    };
  }
  if (diff) return { ...base, status: 'error', message: `stale: the installed CRD differs from config/crd/bases at ${diff}`, fix: apply };
  return { ...base, status: 'ok', message: `installed and up to date (storage version ${to}, stored ${(installed.status?.storedVersions ?? []).join(', ')})` };
}

/** conversion is patched in by kustomize (webhook_in_*.yaml) and defaulted by the server: not part of config/crd/bases. */
function withoutConversion(spec: Crd['spec']): unknown {
  if (!spec) return spec;
  const { conversion: _conversion, ...rest } = spec;
  return rest;
}

/**
 * The first path where `want` (generated) is not in `got` (installed). Fields only the server set
 * (defaults) are ignored; lists must have the same length; versions are matched by name.
 */
export function firstDifference(want: unknown, got: unknown, path: string): string | undefined {
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) return path;
    for (let i = 0; i < want.length; i++) {
      const w = want[i] as { name?: unknown };
      const label = typeof w === 'object' && w !== null && typeof w.name === 'string' ? w.name : String(i);
      const d = firstDifference(w, got[i], `${path}[${label}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (want !== null && typeof want === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return path;
    const w = want as Record<string, unknown>;
    const g = got as Record<string, unknown>;
    // Schema properties removed from the generated CRD are a difference too (the server adds none).
    if (path.endsWith('.properties')) {
      const extra = Object.keys(g).find((k) => !(k in w));
      if (extra !== undefined) return `${path}.${extra}`;
    }
    for (const k of Object.keys(w).sort()) {
      const d = firstDifference(w[k], g[k], `${path}.${k}`);
      if (d) return d;
    }
    return undefined;
  }
  return want === got ? undefined : path;
}
