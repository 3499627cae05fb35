// Finalizers keep an object around after deletion until the controller has cleaned up. These edit
// the object in memory and say whether anything changed, so the caller knows whether to update it.
import type { ResourceKind } from '../api/kind.js';
import type { KubeObject } from '../api/types.js';
import type { Writer } from '../client/client.js';

export function hasFinalizer(obj: KubeObject, name: string): boolean {
  return (obj.metadata?.finalizers ?? []).includes(name);
}

/** Adds `name`; returns true when it was missing (the object then needs an update). */
export function addFinalizer(obj: KubeObject, name: string): boolean {
  if (hasFinalizer(obj, name)) return false;
  obj.metadata ??= {};
  obj.metadata.finalizers = [...(obj.metadata.finalizers ?? []), name];
  return true;
}

/** Removes every `name`; returns true when one was present. */
export function removeFinalizer(obj: KubeObject, name: string): boolean {
  const finalizers = obj.metadata?.finalizers;
  if (!finalizers || !finalizers.includes(name)) return false;
  obj.metadata!.finalizers = finalizers.filter((f) => f !== name);
  return true;
}

/** Whether deletion has been requested (metadata.deletionTimestamp is set). */
export function isBeingDeleted(obj: KubeObject): boolean {
  return Boolean(obj.metadata?.deletionTimestamp);
}

/**
 * Adds `name` and writes the object when it was missing; returns the object as the server now has
 * it (or `obj` unchanged). A concurrent edit fails with a conflict, so the reconcile is retried on
 * fresh data instead of overwriting someone else's change.
 */
export async function ensureFinalizer<T extends KubeObject>(client: Writer, kind: ResourceKind<T>, obj: T, name: string): Promise<T> {
  return addFinalizer(obj, name) ? client.update(kind, obj) : obj;
}

/** Removes `name` and writes the object when it was present (the last step of a cleanup). */
export async function releaseFinalizer<T extends KubeObject>(client: Writer, kind: ResourceKind<T>, obj: T, name: string): Promise<T> {
  return removeFinalizer(obj, name) ? client.update(kind, obj) : obj;
}
