// Owner references tie a child to its parent so garbage collection deletes it with the parent, and
// so `owns(Kind)` can map the child's events back to its controller.
import type { ResourceKind } from '../api/kind.js';
import type { KubeObject, OwnerReference } from '../api/types.js';

export class AlreadyOwnedError extends Error {
  constructor(
    readonly object: KubeObject,
    readonly owner: OwnerReference,
  ) {
    super(
      `${object.kind ?? 'object'} "${object.metadata?.name ?? ''}" is already controlled by ${owner.kind} "${owner.name}"; an object has at most one controller`,
    );
    this.name = 'AlreadyOwnedError';
  }
}

/** The group of an apiVersion ('' for the core group's 'v1'). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

// Same owner = same group, kind and name (the version may differ between writers), like controller-runtime.
function sameOwner(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

function referenceTo(owner: KubeObject, ownerKind: ResourceKind, obj: KubeObject): OwnerReference {
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!name || !uid) throw new Error(`owner ${ownerKind.kind} needs metadata.name and metadata.uid (read it from the API server first)`);
  if (ownerKind.namespaced) {
    const ownerNs = owner.metadata?.namespace;
    const objNs = obj.metadata?.namespace;
    if (objNs === undefined || objNs === '') throw new Error(`cluster-scoped ${obj.kind ?? 'object'} cannot have namespaced owner ${ownerKind.kind} "${name}"`);
    if (ownerNs && ownerNs !== objNs) throw new Error(`cross-namespace owner references are not allowed: owner ${ownerKind.kind} is in "${ownerNs}", object in "${objNs}"`);
  }
  return { apiVersion: ownerKind.apiVersion, kind: ownerKind.kind, name, uid };
}

function upsertReference(obj: KubeObject, ref: OwnerReference): void {
  obj.metadata ??= {};
  const refs = obj.metadata.ownerReferences ?? [];
  const i = refs.findIndex((r) => sameOwner(r, ref));
  if (i >= 0) refs[i] = ref;
  else refs.push(ref);
  obj.metadata.ownerReferences = refs;
}

/**
 * Makes `owner` the controller of `obj` (controller: true, blockOwnerDeletion: true). Throws
 * AlreadyOwnedError when another object already controls it.
 */
export function setControllerReference(owner: KubeObject, obj: KubeObject, ownerKind: ResourceKind): void {
  const ref: OwnerReference = { ...referenceTo(owner, ownerKind, obj), blockOwnerDeletion: true, controller: true };
  const existing = getControllerOf(obj);
  if (existing && !sameOwner(existing, ref)) throw new AlreadyOwnedError(obj, existing);
  upsertReference(obj, ref);
  copyShardLabels(owner, obj);
}

/**
 * Sharding in label mode (docs/sharding.md): a controlled object carries its owner's shard label, so
 * it is in the cache of the replica that reconciles the owner from its creation on.
 */
function copyShardLabels(owner: KubeObject, obj: KubeObject): void {
  for (const [key, value] of Object.entries(owner.metadata?.labels ?? {})) {
    if (!key.startsWith('sharding.opgen.dev/shard-')) continue;
    obj.metadata ??= {};
    obj.metadata.labels = { ...obj.metadata.labels, [key]: value };
  }
}

/** Adds (or refreshes) a non-controller owner reference to `owner`. */
export function setOwnerReference(owner: KubeObject, obj: KubeObject, ownerKind: ResourceKind): void {
  const ref = referenceTo(owner, ownerKind, obj);
  const existing = obj.metadata?.ownerReferences?.find((r) => sameOwner(r, ref));
  if (existing?.controller !== undefined) ref.controller = existing.controller;
  if (existing?.blockOwnerDeletion !== undefined) ref.blockOwnerDeletion = existing.blockOwnerDeletion;
  upsertReference(obj, ref);
}

/** The owner reference marked controller: true, if any. */
export function getControllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** Whether `owner` (by uid) is among the owners of `obj`. */
export function hasOwnerReference(obj: KubeObject, owner: KubeObject): boolean {
  const uid = owner.metadata?.uid;
  return uid !== undefined && (obj.metadata?.ownerReferences ?? []).some((r) => r.uid === uid);
}
