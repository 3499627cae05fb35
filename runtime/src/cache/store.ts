// In-memory object store keyed by namespace/name, with a per-namespace index so namespaced lists do
// not scan the whole kind, and optional field indexes (controller-runtime's IndexField) so lists by a
// derived value, e.g. "jobs owned by X", do not either.
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
  /** Exact matches on indexed fields (all must match). */
  fields?: Record<string, string>;
}

/** The values an object has for an indexed field (none: it is not listed under that field). */
export type IndexFunc<T extends KubeObject = KubeObject> = (obj: T) => string[] | string | undefined;

/**
 * What readers of a cache see of its objects: lookups and lists, never writes (only the informer's
 * reflector changes what is stored, so handlers and the cache agree on every object).
 */
export interface Store<T extends KubeObject = KubeObject> {
  readonly size: number;
  get(namespace: string | undefined, name: string): T | undefined;
  getByKey(key: string): T | undefined;
  list(opts?: StoreListOptions): T[];
  hasIndex(field: string): boolean;
  keys(): IterableIterator<string>;
}

/** The writable store behind an informer (not exported from the package). */
export class MemoryStore<T extends KubeObject = KubeObject> implements Store<T> {
  private readonly items = new Map<string, T>();
  private readonly byNamespace = new Map<string, Map<string, T>>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** field → value → keys */
  private readonly indices = new Map<string, Map<string, Set<string>>>();

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
    const match = parseLabelSelector(opts.labelSelector);
    const fields = Object.entries(opts.fields ?? {});
    let source: Iterable<T> | undefined;
    if (fields.length > 0) {
      const [field, value] = fields[0]!;
      source = this.byIndex(field, value);
    } else {
      source = opts.namespace !== undefined ? this.byNamespace.get(opts.namespace)?.values() : this.items.values();
    }
    if (!source) return [];
    const out: T[] = [];
    for (const obj of source) {
      if (opts.namespace !== undefined && (obj.metadata?.namespace ?? '') !== opts.namespace) continue;
      if (!match(obj.metadata?.labels)) continue;
      if (fields.length > 1 && !fields.slice(1).every(([f, v]) => this.valuesOf(f, obj).includes(v))) continue;
      out.push(obj);
    }
    return out;
  }

  /** Registers an index; objects already stored are indexed at once. */
  addIndex(field: string, fn: IndexFunc<T>): void {
    if (this.indexers.has(field)) throw new Error(`an index for field "${field}" already exists`);
    this.indexers.set(field, fn);
    this.indices.set(field, new Map());
    for (const [key, obj] of this.items) this.indexOne(field, key, obj);
  }

  hasIndex(field: string): boolean {
    return this.indexers.has(field);
  }

  private byIndex(field: string, value: string): T[] {
    if (!this.indexers.has(field)) throw new Error(`no index for field "${field}"`);
    const keys = this.indices.get(field)?.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const key of keys) {
      const obj = this.items.get(key);
      if (obj) out.push(obj);
    }
    return out;
  }

  private valuesOf(field: string, obj: T): string[] {
    const fn = this.indexers.get(field);
    if (!fn) throw new Error(`no index for field "${field}"`);
    const v = fn(obj);
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  }

  private indexOne(field: string, key: string, obj: T): void {
    const index = this.indices.get(field)!;
    for (const value of new Set(this.valuesOf(field, obj))) {
      let keys = index.get(value);
      if (!keys) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindexOne(field: string, key: string, obj: T): void {
    const index = this.indices.get(field)!;
    for (const value of this.valuesOf(field, obj)) {
      const keys = index.get(value);
      keys?.delete(key);
      if (keys && keys.size === 0) index.delete(value);
    }
  }

  keys(): IterableIterator<string> {
    return this.items.keys();
  }

  /** Returns the object it replaced, if any. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    for (const field of this.indexers.keys()) {
      if (old) this.unindexOne(field, key, old);
      this.indexOne(field, key, obj);
    }
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
    for (const field of this.indexers.keys()) this.unindexOne(field, key, old);
    this.items.delete(key);
    const ns = old.metadata?.namespace ?? '';
    const index = this.byNamespace.get(ns);
    index?.delete(key);
    if (index && index.size === 0) this.byNamespace.delete(ns);
    return old;
  }
}
