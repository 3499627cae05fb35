// In-memory object store keyed by namespace/name, with a per-namespace index so namespaced lists do
// not scan the whole kind.
import type { KubeObject } from '../api/types.js';
import { parseLabelSelector } from './label-selector.js';

export function objectKey(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

export interface StoreListOptions {
  namespace?: string;
  labelSelector?: string | Record<string, string>;
}

export class Store<T extends KubeObject = KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly byNamespace = new Map<string, Map<string, T>>();

  get size(): number {
    return this.items.size;
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.items.get(namespace ? `${namespace}/${name}` : name);
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  list(opts: StoreListOptions = {}): T[] {
    const source = opts.namespace !== undefined ? this.byNamespace.get(opts.namespace)?.values() : this.items.values();
    if (!source) return [];
    const match = parseLabelSelector(opts.labelSelector);
    const out: T[] = [];
    for (const obj of source) if (match(obj.metadata?.labels)) out.push(obj);
    return out;
  }

  keys(): IterableIterator<string> {
    return this.items.keys();
  }

  /** Returns the object it replaced, if any. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    this.items.set(key, obj);
    const ns = obj.metadata?.namespace ?? '';
    let index = this.byNamespace.get(ns);
    if (!index) this.byNamespace.set(ns, (index = new Map()));
    index.set(key, obj);
    return old;
  }

  /** Returns the object it removed, if any. */
  delete(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.items.delete(key);
    const ns = old.metadata?.namespace ?? '';
    const index = this.byNamespace.get(ns);
    index?.delete(key);
    if (index && index.size === 0) this.byNamespace.delete(ns);
    return old;
  }
}
