// Predicates filter watch events before they reach the work queue. A missing method lets that
// kind of event through.
import type { KubeObject } from '../api/types.js';

export interface Predicate<T extends KubeObject = KubeObject> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

export function allowCreate<T extends KubeObject>(ps: readonly Predicate<T>[], obj: T): boolean {
  return ps.every((p) => (p.create ? p.create(obj) : true));
}

export function allowUpdate<T extends KubeObject>(ps: readonly Predicate<T>[], oldObj: T, newObj: T): boolean {
  return ps.every((p) => (p.update ? p.update(oldObj, newObj) : true));
}

export function allowDelete<T extends KubeObject>(ps: readonly Predicate<T>[], obj: T): boolean {
  return ps.every((p) => (p.delete ? p.delete(obj) : true));
}

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  return ka.every((k) => b !== undefined && Object.prototype.hasOwnProperty.call(b, k) && b[k] === a![k]);
}

export const predicates = {
  /** Updates pass only when metadata.generation changed (spec edits, not status or metadata). */
  generationChanged(): Predicate {
    return { update: (o, n) => o.metadata?.generation !== n.metadata?.generation };
  },
  /** Updates pass only when labels changed. */
  labelsChanged(): Predicate {
    return { update: (o, n) => !sameRecord(o.metadata?.labels, n.metadata?.labels) };
  },
  /** Updates pass only when annotations changed. */
  annotationsChanged(): Predicate {
    return { update: (o, n) => !sameRecord(o.metadata?.annotations, n.metadata?.annotations) };
  },
  /** Updates pass only when resourceVersion changed (drops resync-style no-op updates). */
  resourceVersionChanged(): Predicate {
    return { update: (o, n) => o.metadata?.resourceVersion !== n.metadata?.resourceVersion };
  },
  /** Events whose object (the new one for updates) satisfies `filter`. */
  filter<T extends KubeObject = KubeObject>(filter: (obj: T) => boolean): Predicate<T> {
    return { create: filter, update: (_o, n) => filter(n), delete: filter };
  },
  /** All of `ps` must pass. */
  and<T extends KubeObject = KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
    return {
      create: (obj) => allowCreate(ps, obj),
      update: (o, n) => allowUpdate(ps, o, n),
      delete: (obj) => allowDelete(ps, obj),
    };
  },
  /** Any of `ps` passes (e.g. generation or labels changed). */
  or<T extends KubeObject = KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
    return {
      create: (obj) => ps.some((p) => allowCreate([p], obj)),
      update: (o, n) => ps.some((p) => allowUpdate([p], o, n)),
      delete: (obj) => ps.some((p) => allowDelete([p], obj)),
    };
  },
  not<T extends KubeObject = KubeObject>(p: Predicate<T>): Predicate<T> {
    return {
      create: (obj) => !allowCreate([p], obj),
      update: (o, n) => !allowUpdate([p], o, n),
      delete: (obj) => !allowDelete([p], obj),
    };
  },
};
