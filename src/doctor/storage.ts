// Stored versions of the project's CRDs on the cluster: which versions objects may still be stored in,
// which are served, the storage version, the deprecated ones, and which versions can be removed now.
import type { Finding } from './findings.js';
import type { Kubectl } from './kubectl.js';
import type { KubeObject } from './project.js';

interface Version {
  name: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
}

interface Crd extends KubeObject {
  spec?: { versions?: Version[] };
  status?: { storedVersions?: string[] };
}

export async function checkStoredVersions(kubectl: Kubectl, generated: readonly KubeObject[]): Promise<Finding[]> {
  if (generated.length === 0) return [];
  const list = await kubectl.json<{ items: Crd[] }>(['get', 'customresourcedefinitions']);
  const installed = new Map(list.items.map((c) => [c.metadata?.name ?? '', c]));
  return generated.flatMap((g) => {
    const live = installed.get(g.metadata?.name ?? '');
    return live ? [storedVersionsFinding(live, g as Crd)] : []; // a missing CRD is the crd check's
  });
}

const names = (vs: readonly Version[]): string => `[${vs.map((v) => v.name).join(' ')}]`;

/** One row per CRD; `generated` is what the project would apply next (its unserved or dropped versions are checked against storedVersions). */
export function storedVersionsFinding(live: Crd, generated?: Crd): Finding {
  const subject = live.metadata?.name ?? '(unnamed)';
  const versions = live.spec?.versions ?? [];
  const storage = versions.find((v) => v.storage)?.name ?? '(none)';
  const stored = live.status?.storedVersions ?? [];
  const pending = stored.filter((v) => v !== storage);
  const others = versions.filter((v) => !v.storage);
  const state = `stored [${stored.join(' ')}], served ${names(versions.filter((v) => v.served))}, storage ${storage}, deprecated ${names(versions.filter((v) => v.deprecated))}`;
  const removable = others.filter((v) => !stored.includes(v.name));
  const blocked = others.filter((v) => stored.includes(v.name));
  const verdict = [
    removable.length ? `${removable.map((v) => v.name).join(', ')} can be removed now` : '',
    blocked.length ? `${blocked.map((v) => v.name).join(', ')} cannot be removed yet: objects may still be stored in ${blocked.length === 1 ? 'it' : 'them'}` : '',
  ].filter(Boolean).join('; ');
  const message = `${state}${verdict ? `; ${verdict}` : ''}`;
  if (pending.length === 0) return { check: 'storage', subject, status: 'ok', message };
  const fix = `opgen crd migrate-storage ${subject} (rewrites every object as ${storage}, then sets status.storedVersions to [${storage}])`;
  const unserving = (generated?.spec?.versions ?? []).filter((v) => pending.includes(v.name) && v.served === false && versions.find((l) => l.name === v.name)?.served !== false);
  if (unserving.length > 0) {
    return { check: 'storage', subject, status: 'error', message: `${message}; the generated CRD stops serving ${unserving.map((v) => v.name).join(', ')}, which status.storedVersions still lists`, fix: `${fix}, before applying the CRD` };
  }
  return { check: 'storage', subject, status: 'warning', message, fix };
}
