// The CRD a migration works on: its storage version, the kind to list and write at that version, and
// status.storedVersions, which only this step may shorten.
import { groupVersion, type ResourceKind } from '../api/kind.js';
import type { KubeObject } from '../api/types.js';
import { retryOnConflict } from '../client/errors.js';
import type { Client } from '../client/client.js';
import type { CustomResourceDefinition as Crd } from '../kubernetes/apiextensionsv1.js';

export type { Crd };

export const CustomResourceDefinition: ResourceKind<Crd> = groupVersion('apiextensions.k8s.io', 'v1').kind<Crd>('CustomResourceDefinition', { plural: 'customresourcedefinitions', namespaced: false });

export function storageVersionOf(crd: Crd): string {
  const v = crd.spec.versions.find((x) => x.storage)?.name;
  if (v === undefined) throw new Error(`CustomResourceDefinition ${crd.metadata?.name}: no version has storage: true`);
  return v;
}

/** The CRD's objects as served in its storage version: what is read and written there is stored unchanged. */
export function storageKind(crd: Crd): ResourceKind<KubeObject> {
  return groupVersion(crd.spec.group, storageVersionOf(crd)).kind(crd.spec.names.kind, { plural: crd.spec.names.plural, namespaced: crd.spec.scope === 'Namespaced' });
}

/**
 * status.storedVersions becomes the storage version alone, provided the storage version is still
 * `storageVersion` (a CRD update during the migration may have moved it: then objects of the new one
 * are not migrated and nothing is pruned). Returns the versions removed.
 */
export async function pruneStoredVersions(client: Client, name: string, storageVersion: string): Promise<string[]> {
  return retryOnConflict(async () => {
    const crd = await client.get(CustomResourceDefinition, { name });
    const now = storageVersionOf(crd);
    if (now !== storageVersion) throw new Error(`CustomResourceDefinition ${name}: the storage version changed from ${storageVersion} to ${now} during the migration; run it again`);
    const stored = crd.status?.storedVersions ?? [];
    const removed = stored.filter((v) => v !== storageVersion);
    if (removed.length === 0 && stored.length === 1) return [];
    await client.status().update(CustomResourceDefinition, { ...crd, status: { ...crd.status!, storedVersions: [storageVersion] } });
    return removed;
  });
}
