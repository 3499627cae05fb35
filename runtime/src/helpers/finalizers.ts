// Finalizers keep an object around after deletion until the controller has cleaned up. These edit
// the object in memory and say whether anything changed, so the caller knows whether to update it.
import type { KubeObject } from '../api/types.js';

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
