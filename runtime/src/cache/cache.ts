// The shared cache: one Informer per kind (controllers watching the same kind share it) and a Reader
// that answers from memory.
import type { ResourceKind } from '../api/kind.js';
import type { KubeList, KubeObject } from '../api/types.js';
import { ApiError } from '../client/errors.js';
import type { GetOptions, ListOptions, ObjectKey, Reader } from '../client/client.js';
import { Transport } from '../transport/index.js';
import type { KubeConfigLike } from '../kubeconfig/index.js';
import { silentLogger, type Logger } from '../log/index.js';
import { cloneObject } from './clone.js';
import { Informer, type InformerOptions } from './informer.js';
import { ServedKinds } from './served-kinds.js';
import { AbortFanout } from '../internal/abort/index.js';
import type { IndexFunc } from './store.js';

export interface CacheOptions {
  /** Restrict every namespaced informer to these namespaces; default all. */
  namespaces?: string[];
  /** Applied to every object before it is stored. */
  transform?: (obj: KubeObject) => KubeObject;
  /** See InformerOptions.resyncPeriodMs; default 0 (off) for a bare cache. */
  resyncPeriodMs?: number;
  /** See InformerOptions.watchIdleTimeoutMs. */
  watchIdleTimeoutMs?: number;
  /** Sharding: which of a kind's objects this replica caches (InformerOptions.shard); undefined for all. */
  shardFor?: (kind: ResourceKind) => InformerOptions['shard'];
  /** How often discovery is polled while an optional watch waits for its kind (followKind); default 10 s. */
  servedKindsPollMs?: number;
  log: Logger;
}

/** A cache of its own (managers make one for you: `mgr.cache`). Start it with `cache.start(signal)`. */
export function createCache(kubeConfig: KubeConfigLike, opts: Partial<CacheOptions> = {}): Cache {
  return new Cache(new Transport(kubeConfig), { ...opts, log: opts.log ?? silentLogger() });
}

/**
 * A cacheTransform that drops metadata.managedFields: server-side apply bookkeeping that most
 * controllers never read and that is often the largest part of a cached object (controller-runtime
 * offers the same as cache.TransformStripManagedFields).
 */
export function stripManagedFields(obj: KubeObject): KubeObject {
  if (obj.metadata?.managedFields) delete obj.metadata.managedFields;
  return obj;
}

/**
 * A read through the cache of a namespace it does not watch (the manager's `namespaces`, from
 * WATCH_NAMESPACE): the operator is not allowed to see it, so the object is not there to read.
 */
export class NamespaceNotWatchedError extends Error {
  override readonly name = 'NamespaceNotWatchedError';

  constructor(
    readonly kind: string,
    readonly namespace: string,
    readonly watched: readonly string[],
  ) {
    super(`the cache is restricted to namespaces ${watched.join(', ')}; ${kind} in "${namespace}" is outside them (add the namespace to WATCH_NAMESPACE and bind the operator's Role there)`);
  }
}

export function kindKey(kind: ResourceKind): string {
  return `${kind.group}/${kind.version}/${kind.kind}`;
}

export class Cache implements Reader {
  private readonly informers = new Map<string, Informer>();
  private runningSignal?: AbortSignal;
  /** One listener on the running signal for all informers, each of which can also be stopped alone. */
  private fanout?: AbortFanout;
  private readonly running: Promise<void>[] = [];
  private readonly startedInformers = new Map<Informer, { abort(): void; release(): void }>();
  private readonly servedKinds: ServedKinds;
  /** Started with `lazy` and not yet startAll(): an informer starts on its first read only. */
  private lazy = false;

  constructor(
    private readonly transport: Transport,
    private readonly opts: CacheOptions,
  ) {
    this.servedKinds = new ServedKinds(transport, opts.log, opts.servedKindsPollMs);
  }

  /** The shared informer for `kind`, created on first use (and started at once if the cache runs). */
  informerFor<T extends KubeObject>(kind: ResourceKind<T>): Informer<T> {
    const key = kindKey(kind);
    let informer = this.informers.get(key) as Informer<T> | undefined;
    if (!informer) {
      const options: InformerOptions = { namespaces: this.opts.namespaces, transform: this.opts.transform, resyncPeriodMs: this.opts.resyncPeriodMs, watchIdleTimeoutMs: this.opts.watchIdleTimeoutMs, shard: this.opts.shardFor?.(kind), log: this.opts.log };
      informer = new Informer<T>(this.transport, kind, options);
      this.informers.set(key, informer as unknown as Informer);
      if (!this.lazy) this.startInformer(informer as unknown as Informer);
    }
    return informer;
  }

  has(kind: ResourceKind): boolean {
    return this.informers.has(kindKey(kind));
  }

  /**
   * Starts every informer (and any created later); resolves once `signal` aborts and all have stopped.
   * With `lazy` an informer starts only when something reads its kind through the cache, or at
   * startAll(): a standby replica that is not to warm its caches lists nothing until it leads.
   */
  async start(signal: AbortSignal, opts: { lazy?: boolean } = {}): Promise<void> {
    if (this.runningSignal) throw new Error('cache already started');
    this.runningSignal = signal;
    this.fanout = new AbortFanout(signal);
    this.lazy = opts.lazy ?? false;
    if (!this.lazy) for (const informer of this.informers.values()) this.startInformer(informer);
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    // Informers started while we waited are in `running` too.
    await Promise.all(this.running);
  }

  /** Ends a lazy start: starts every informer not running yet, and each new one at once from now on. */
  startAll(): void {
    this.lazy = false;
    for (const informer of this.informers.values()) this.startInformer(informer);
  }

  /** Whether every informer that runs (or, unless lazy, is to run) has its first list in memory. */
  hasSynced(): boolean {
    return this.expected().every((i) => i.hasSynced());
  }

  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    const results = await Promise.all(this.expected().map((i) => i.waitForSync(signal)));
    return results.every(Boolean);
  }

  private expected(): Informer[] {
    return [...this.informers.values()].filter((i) => !this.lazy || this.startedInformers.has(i));
  }

  /** Runs `informer` until the cache stops, once; before start() it is only remembered (start() runs it). */
  private startInformer(informer: Informer): void {
    if (!this.fanout || this.startedInformers.has(informer)) return;
    const stop = this.fanout.child();
    this.startedInformers.set(informer, stop);
    const run = this.runInformer(informer, stop.signal);
    this.running.push(run);
    // An informer stopped alone (its kind no longer served) leaves nothing behind.
    void run.then(() => {
      stop.release();
      if (this.informers.get(kindKey(informer.kind)) !== informer) {
        this.startedInformers.delete(informer);
        this.running.splice(this.running.indexOf(run), 1);
      }
    });
  }

  /**
   * Follows whether the API server serves `kind` (discovery, polled every servedKindsPollMs): served()
   * gets the kind's shared informer, started, once the kind is served (at once when it is now); gone()
   * is called when it no longer is, after which the informer is stopped and dropped unless another
   * follower still has handlers on it. `served` resolves with the first state found. controllerFor(…)
   * .watches(kind, map, { optional: true }) is built on it.
   */
  followKind<T extends KubeObject>(kind: ResourceKind<T>, cb: { served(informer: Informer<T>): void; gone(informer: Informer<T>): void }): { served: Promise<boolean>; stop(): void } {
    let current: Informer<T> | undefined;
    return this.servedKinds.follow(kind, (served) => {
      if (served) {
        current = this.informerFor(kind);
        cb.served(current);
        return;
      }
      const informer = current!;
      current = undefined;
      cb.gone(informer);
      this.dropIfUnused(informer as unknown as Informer);
    });
  }

  /** Stops and forgets an informer nothing listens to any more (the next informerFor makes a fresh one). */
  private dropIfUnused(informer: Informer): void {
    const key = kindKey(informer.kind);
    if (informer.handlerCount > 0 || this.informers.get(key) !== informer) return;
    this.informers.delete(key);
    this.startedInformers.get(informer)?.abort();
  }

  async get<T extends KubeObject>(kind: ResourceKind<T>, key: ObjectKey, opts: GetOptions = {}): Promise<T> {
    const informer = await this.syncedInformer(kind, key.namespace, opts.signal);
    const obj = informer.store.get(kind.namespaced ? key.namespace : undefined, key.name);
    if (!obj) {
      const name = kind.namespaced ? `${key.namespace}/${key.name}` : key.name;
      throw new ApiError(404, { reason: 'NotFound', code: 404, message: `${kind.plural}.${kind.group || 'core'} "${name}" not found`, details: { name: key.name, group: kind.group, kind: kind.plural } });
    }
    // Callers may edit what they get; the cached copy must stay as the server sent it.
    return cloneObject(obj);
  }

  async list<T extends KubeObject>(kind: ResourceKind<T>, opts: ListOptions = {}): Promise<KubeList<T>> {
    const fields = parseFieldSelector(kind, opts.fieldSelector);
    let namespace = kind.namespaced ? opts.namespace || undefined : undefined;
    const byName = fields['metadata.name'];
    const byNamespace = fields['metadata.namespace'];
    delete fields['metadata.name'];
    delete fields['metadata.namespace'];
    if (byNamespace !== undefined) {
      if (namespace !== undefined && namespace !== byNamespace) return emptyList(kind);
      namespace = byNamespace;
    }
    const informer = await this.syncedInformer(kind, namespace, opts.signal);
    for (const field of Object.keys(fields)) {
      if (!informer.store.hasIndex(field)) {
        throw new Error(`list ${kind.plural} from the cache: no index for field "${field}"; add one with cache.indexField(${kind.kind}, '${field}', fn) before start, or read through manager.apiReader`);
      }
    }
    const items = informer.store
      .list({ namespace, labelSelector: opts.labelSelector, fields })
      .filter((o) => byName === undefined || o.metadata?.name === byName)
      .map((o) => cloneObject(o));
    items.sort((a, b) => compareKeys(a, b));
    return { apiVersion: kind.apiVersion, kind: `${kind.kind}List`, metadata: {}, items };
  }

  /**
   * Indexes `kind` by a value derived from each object, so `list(kind, { fieldSelector: 'field=value' })`
   * answers from memory (controller-runtime's IndexField). Call before the cache starts or any time after.
   */
  indexField<T extends KubeObject>(kind: ResourceKind<T>, field: string, extract: IndexFunc<T>): void {
    this.informerFor(kind).addIndex(field, extract);
  }

  /** Whether list(kind, opts) can be answered from memory (the kind is cached and every selected field is indexed). */
  canList(kind: ResourceKind, opts: ListOptions = {}): boolean {
    const informer = this.informers.get(kindKey(kind));
    if (!informer) return false;
    try {
      return Object.keys(parseFieldSelector(kind, opts.fieldSelector)).every(
        (f) => f === 'metadata.name' || f === 'metadata.namespace' || informer.store.hasIndex(f),
      );
    } catch {
      return false;
    }
  }

  /** The informer of `kind` once synced; a read before the first list waits for it (or for `signal`). */
  private async syncedInformer<T extends KubeObject>(kind: ResourceKind<T>, namespace: string | undefined, signal?: AbortSignal): Promise<Informer<T>> {
    const restricted = this.opts.namespaces;
    if (kind.namespaced && namespace && restricted && restricted.length > 0 && !restricted.includes(namespace)) {
      throw new NamespaceNotWatchedError(kind.kind, namespace, restricted);
    }
    const informer = this.informerFor(kind);
    if (!informer.hasSynced()) {
      if (!this.runningSignal) throw new Error(`the cache has not been started; cannot read ${kind.kind} before manager.start()`);
      // A read starts its kind's informer even in a lazy cache (as controller-runtime's cache does).
      this.startInformer(informer as unknown as Informer);
      const waited = signal ? AbortSignal.any([signal, this.runningSignal]) : this.runningSignal;
      if (!(await informer.waitForSync(waited))) {
        signal?.throwIfAborted();
        throw new Error(`the cache stopped before ${kind.kind} objects were listed`);
      }
    }
    return informer;
  }

  private async runInformer(informer: Informer, signal: AbortSignal): Promise<void> {
    try {
      await informer.start(signal);
    } catch (err) {
      this.opts.log.error('informer stopped unexpectedly', err, { kind: informer.kind.kind });
    }
  }
}

function compareKeys(a: KubeObject, b: KubeObject): number {
  const ka = `${a.metadata?.namespace ?? ''}/${a.metadata?.name ?? ''}`;
  const kb = `${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function emptyList<T extends KubeObject>(kind: ResourceKind<T>): KubeList<T> {
  return { apiVersion: kind.apiVersion, kind: `${kind.kind}List`, metadata: {}, items: [] };
}

/** `a=b,c==d` → { a: 'b', c: 'd' }; the cache answers only exact matches. */
function parseFieldSelector(kind: ResourceKind, selector: string | undefined): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!selector) return fields;
  for (const term of selector.split(',')) {
    const m = term.trim().match(/^([^=!\s]+)\s*==?\s*([^=!\s]*)$/);
    if (!m) throw new Error(`list ${kind.plural} from the cache: field selector "${selector}" is not a list of field=value terms; read through manager.apiReader`);
    fields[m[1]!] = m[2]!;
  }
  return fields;
}
