// One shared list+watch of a kind (per namespace of the cache), feeding a Store and event handlers.
// Unlike client-node's informer it never stops on its own: any error (network, 5xx, 410 Gone, a
// stream that ends early) leads to a retry with backoff, resuming from the last resourceVersion seen,
// or to a fresh list (diffed against the store so handlers still see every change) when that version
// has expired.
import type { ResourceKind } from '../api/kind.js';
import type { KubeList, KubeObject } from '../api/types.js';
import { ApiError, isForbidden, isGone, type Status } from '../client/errors.js';
import { formatLabelSelector, resourcePath } from '../transport/index.js';
import type { Transport } from '../transport/index.js';
import { withTypeMeta } from '../client/client.js';
import { setRepeatingTimer, setTimer, type Timer } from '../internal/timers/index.js';
import type { Logger } from '../log/index.js';
import { AbortFanout } from '../internal/abort/index.js';
import { type IndexFunc, MemoryStore, objectKey, type Store } from './store.js';

export interface EventHandlers<T extends KubeObject = KubeObject> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export interface InformerOptions {
  /** Watch only these namespaces (one watch each); default all namespaces. */
  namespaces?: string[];
  labelSelector?: string | Record<string, string>;
  fieldSelector?: string;
  /** Applied to every object before it is stored, e.g. to drop managedFields and save memory. */
  transform?: (obj: KubeObject) => KubeObject;
  log: Logger;
  /** First retry delay after an error; doubles up to maxBackoffMs. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Objects per list page. */
  pageSize?: number;
  /**
   * Every this many ms (±10%), every cached object is handed to onUpdate(obj, obj) so controllers
   * look again and correct drift they were not told about; 0 disables. The manager uses
   * controller-runtime's 10 hours.
   */
  resyncPeriodMs?: number;
  /**
   * A watch that brings nothing for this long is presumed dead (a half-open connection after a
   * network fault) and reopened from the last resourceVersion. Default 0 (off): kube-apiserver 1.36
   * sent no bookmark on a quiet watch within 75 s, so a short limit would just reconnect quiet
   * watches; every watch still ends by its server-side timeout (5-10 min) plus 30 s at the latest.
   */
  watchIdleTimeoutMs?: number;
  /**
   * Sharding (runtime/src/sharding): a shardSelector and a label selector (ANDed with labelSelector)
   * sent with every list/watch, and the objects kept; change them and relist().
   */
  shard?: { selector(): string | undefined; labelSelector?(): string | undefined; accepts(obj: KubeObject): boolean };
}

/**
 * The reflector's narrow way in: the only writes an informer takes, so the store and the handlers see
 * the same changes in the same order.
 */
interface ReflectorSink<T extends KubeObject> {
  prepare(obj: KubeObject): T;
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T): void;
  replace(namespace: string | undefined, objs: T[]): void;
  synced(): void;
}

export class Informer<T extends KubeObject = KubeObject> {
  private readonly memory = new MemoryStore<T>();
  /** The cached objects, read-only. */
  readonly store: Store<T> = this.memory;
  /** Replaced, never edited in place, so a dispatch in progress is not disturbed by a removal. */
  private handlers: EventHandlers<T>[] = [];
  private readonly reflectors: Reflector<T>[];
  private syncWaiters: (() => void)[] = [];
  private started = false;

  constructor(
    transport: Transport,
    readonly kind: ResourceKind<T>,
    private readonly opts: InformerOptions,
  ) {
    const scopes = kind.namespaced && opts.namespaces && opts.namespaces.length > 0 ? opts.namespaces : [undefined];
    const sink: ReflectorSink<T> = {
      prepare: (obj) => this.prepare(obj),
      apply: (type, obj) => this.applyEvent(type, obj),
      replace: (namespace, objs) => this.replace(namespace, objs),
      synced: () => this.notifySynced(),
    };
    this.reflectors = scopes.map((ns) => new Reflector(transport, kind, ns, sink, opts));
  }

  /** Indexes the cached objects by a derived value (see Cache.indexField). */
  addIndex(field: string, fn: IndexFunc<T>): void {
    this.memory.addIndex(field, fn);
  }

  /** Adds handlers; objects already in the store are replayed to onAdd, as client-go does. */
  addEventHandler(h: EventHandlers<T>): void {
    this.handlers = [...this.handlers, h];
    if (h.onAdd) for (const obj of this.store.list()) safely(this.opts.log, () => h.onAdd!(obj));
  }

  /** Removes handlers added with addEventHandler (a controller that stops detaches its sources). */
  removeEventHandler(h: EventHandlers<T>): void {
    this.handlers = this.handlers.filter((x) => x !== h);
  }

  /** How many handlers are attached. */
  get handlerCount(): number {
    return this.handlers.length;
  }

  hasSynced(): boolean {
    return this.reflectors.every((r) => r.synced);
  }

  /** Lists again (after opts.shard changed); resolves once every namespace's new list is in the store. */
  relist(): Promise<void> {
    return Promise.all(this.reflectors.map((r) => r.relist())).then(() => undefined);
  }

  /** Resolves true once the first list of every namespace is in the store, false if `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.hasSynced()) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  /** Runs until `signal` aborts. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error(`informer for ${this.kind.kind} already started`);
    this.started = true;
    const period = this.opts.resyncPeriodMs ?? 0;
    let timer: Timer | undefined;
    const schedule = () => {
      timer = setTimer(() => {
        if (this.hasSynced()) for (const obj of this.store.list()) this.dispatchUpdate(obj, obj);
        schedule();
      }, period * (0.9 + Math.random() * 0.2));
    };
    if (period > 0) schedule();
    // Each reflector listens to a signal of its own: one namespace per reflector must not mean one more
    // listener per namespace (and per request in flight) on the signal the caller shares.
    const fanout = new AbortFanout(signal);
    try {
      await Promise.all(this.reflectors.map((r) => r.run(fanout.child().signal)));
    } finally {
      fanout.close();
      timer?.clear();
    }
  }

  private notifySynced(): void {
    if (!this.hasSynced()) return;
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiters) w();
  }

  private prepare(obj: KubeObject): T {
    withTypeMeta(this.kind, obj);
    return (this.opts.transform ? this.opts.transform(obj) : obj) as T;
  }

  private applyEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T): void {
    if (type === 'DELETED') {
      const old = this.memory.delete(objectKey(obj));
      this.dispatchDelete(old ?? obj);
      return;
    }
    const old = this.memory.upsert(obj);
    if (old) this.dispatchUpdate(old, obj);
    else this.dispatchAdd(obj);
  }

  /** Replaces everything in `namespace` (all when undefined) with `objs`, reporting the differences. */
  private replace(namespace: string | undefined, objs: T[]): void {
    const seen = new Set<string>();
    for (const obj of objs) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.memory.upsert(obj);
      if (!old) this.dispatchAdd(obj);
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) this.dispatchUpdate(old, obj);
    }
    const scope = namespace === undefined ? this.store.list() : this.store.list({ namespace });
    for (const obj of scope) {
      const key = objectKey(obj);
      if (!seen.has(key)) {
        this.memory.delete(key);
        this.dispatchDelete(obj);
      }
    }
  }

  private dispatchAdd(obj: T): void {
    for (const h of this.handlers) if (h.onAdd) safely(this.opts.log, () => h.onAdd!(obj));
  }

  private dispatchUpdate(old: T, obj: T): void {
    for (const h of this.handlers) if (h.onUpdate) safely(this.opts.log, () => h.onUpdate!(old, obj));
  }

  private dispatchDelete(obj: T): void {
    for (const h of this.handlers) if (h.onDelete) safely(this.opts.log, () => h.onDelete!(obj));
  }
}

function safely(log: Logger, fn: () => void): void {
  try {
    fn();
  } catch (err) {
    log.error('event handler failed', err);
  }
}

class Reflector<T extends KubeObject> {
  synced = false;
  private resourceVersion?: string;
  private readonly log: Logger;
  /** 403 answered and reported: later refusals go to debug until a list succeeds (RBAC fixed). */
  private denied = false;
  /** relist(): bumped per call; a list counts for the calls made before it started. */
  private generation = 0;
  private relists: { generation: number; done: () => void }[] = [];
  private stopWatch?: AbortController;
  private mustList = false;

  constructor(
    private readonly transport: Transport,
    private readonly kind: ResourceKind<T>,
    private readonly namespace: string | undefined,
    private readonly sink: ReflectorSink<T>,
    private readonly opts: InformerOptions,
  ) {
    this.log = opts.log.child({ kind: kind.kind, group: kind.group, ...(namespace ? { namespace } : {}) });
  }

  relist(): Promise<void> {
    this.generation++;
    this.mustList = true;
    this.stopWatch?.abort();
    return new Promise((done) => this.relists.push({ generation: this.generation, done }));
  }

  async run(signal: AbortSignal): Promise<void> {
    const initial = this.opts.initialBackoffMs ?? 800;
    const max = this.opts.maxBackoffMs ?? 30_000;
    let backoff = initial;
    while (!signal.aborted) {
      try {
        while ((this.resourceVersion === undefined || this.mustList) && !signal.aborted) await this.list(signal);
        const { events, durationMs } = await this.watch(signal);
        if (signal.aborted) return;
        this.log.debug('watch ended; resuming', { events, durationMs, resourceVersion: this.resourceVersion });
        // A watch that ends at once with nothing in it means the server is unhappy: slow down.
        if (events > 0 || durationMs > 10_000) {
          backoff = initial;
          continue;
        }
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, max);
      } catch (err) {
        if (signal.aborted) return;
        if (isGone(err)) {
          this.log.info('resourceVersion expired, listing again', { resourceVersion: this.resourceVersion });
          this.resourceVersion = undefined;
        } else if (isForbidden(err)) {
          // The same refusal every few seconds would bury the log; say it once, plainly, and keep
          // retrying so the informer recovers when a Role is bound.
          if (!this.denied) this.log.error(this.deniedMessage(), err, { maxRetryIntervalMs: max });
          else this.log.debug('list/watch still forbidden', { error: (err as Error).message });
          this.denied = true;
        } else {
          this.log.error('list/watch failed, retrying', err, { retryInMs: backoff, resourceVersion: this.resourceVersion });
        }
        await sleep(withJitter(backoff), signal);
        backoff = Math.min(backoff * 2, max);
      }
    }
  }

  private deniedMessage(): string {
    const what = `${this.kind.plural}${this.kind.group ? `.${this.kind.group}` : ''}`;
    if (this.namespace) {
      return `forbidden to list/watch ${what} in namespace "${this.namespace}": bind the operator's Role there (config/rbac) or drop the namespace from WATCH_NAMESPACE; retrying quietly`;
    }
    if (this.kind.namespaced) {
      return `forbidden to list/watch ${what} in all namespaces: the operator holds no ClusterRole for them; set WATCH_NAMESPACE (the manager's namespaces option) to the namespaces its Roles cover, or grant a ClusterRole; retrying quietly`;
    }
    return `forbidden to list/watch ${what} (cluster-scoped): only a ClusterRole can grant it, which a namespace-scoped operator does not hold; stop watching it or grant a ClusterRole; retrying quietly`;
  }

  /** The informer's label selector ANDed with the shard's (a list of requirements joins with ','). */
  private labelSelector(): string | undefined {
    const parts = [formatLabelSelector(this.opts.labelSelector), this.opts.shard?.labelSelector?.()].filter((p) => p);
    return parts.length > 0 ? parts.join(',') : undefined;
  }

  private async list(signal: AbortSignal): Promise<void> {
    const items: T[] = [];
    let continueToken: string | undefined;
    let resourceVersion = '';
    const generation = this.generation;
    do {
      const page = await this.transport.request<KubeList<T>>('GET', resourcePath(this.kind, this.namespace), {
        query: {
          limit: this.opts.pageSize ?? 500,
          continue: continueToken,
          labelSelector: this.labelSelector(),
          fieldSelector: this.opts.fieldSelector,
          shardSelector: this.opts.shard?.selector(),
        },
        signal,
        context: `list ${this.kind.plural}`,
      });
      for (const item of page.items ?? []) if (!this.opts.shard || this.opts.shard.accepts(item)) items.push(this.sink.prepare(item));
      continueToken = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    } while (continueToken);
    this.sink.replace(this.namespace, items);
    // A relist() asked for while this list ran wants one with the new selector.
    if (generation !== this.generation) return;
    this.mustList = false;
    this.resourceVersion = resourceVersion;
    const answered = this.relists.filter((r) => r.generation <= generation);
    this.relists = this.relists.filter((r) => r.generation > generation);
    for (const r of answered) r.done();
    if (this.denied) {
      this.denied = false;
      this.log.info('list/watch allowed again', { count: items.length });
    }
    if (!this.synced) {
      this.synced = true;
      this.sink.synced();
    }
    this.log.debug('listed', { count: items.length, resourceVersion });
  }

  private async watch(signal: AbortSignal): Promise<{ events: number; durationMs: number }> {
    const started = Date.now();
    // Spread watch lifetimes like client-go (5-10 minutes) so many informers do not reconnect together.
    const timeoutSeconds = 300 + Math.floor(Math.random() * 300);
    const stop = new AbortController();
    this.stopWatch = stop;
    const onAbort = () => stop.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    // Safety net if the connection silently dies: the server should have ended it by now.
    const timer = setTimer(() => stop.abort(), (timeoutSeconds + 30) * 1000);
    const idleMs = this.opts.watchIdleTimeoutMs ?? 0;
    let lastSeen = Date.now();
    const watchdog =
      idleMs > 0
        ? setRepeatingTimer(() => {
            if (Date.now() - lastSeen > idleMs) {
              this.log.info('watch idle for too long, reopening', { idleMs, resourceVersion: this.resourceVersion });
              stop.abort();
            }
          }, Math.min(15_000, Math.max(100, idleMs / 4)))
        : undefined;
    let events = 0;
    try {
      const stream = this.transport.watch(
        resourcePath(this.kind, this.namespace),
        {
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
          labelSelector: this.labelSelector(),
          fieldSelector: this.opts.fieldSelector,
          shardSelector: this.opts.shard?.selector(),
        },
        stop.signal,
      );
      for await (const ev of stream) {
        events++;
        lastSeen = Date.now();
        if (ev.type === 'ERROR') {
          const status = ev.object as Status;
          throw new ApiError(status.code ?? 500, status, `watch ${this.kind.plural}`);
        }
        const obj = ev.object as KubeObject;
        const rv = obj.metadata?.resourceVersion;
        if (ev.type === 'BOOKMARK' || (this.opts.shard && !this.opts.shard.accepts(obj))) {
          if (rv) this.resourceVersion = rv;
          continue;
        }
        this.sink.apply(ev.type, this.sink.prepare(obj));
        if (rv) this.resourceVersion = rv;
      }
    } catch (err) {
      // Our own safety-net abort is a normal end of the watch, not an error.
      if (stop.signal.aborted && !signal.aborted) return { events, durationMs: Date.now() - started };
      throw err;
    } finally {
      timer.clear();
      watchdog?.clear();
      signal.removeEventListener('abort', onAbort);
    }
    return { events, durationMs: Date.now() - started };
  }
}

function withJitter(ms: number): number {
  return ms * (1 + Math.random() * 0.2);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimer(done, ms);
    function done() {
      timer.clear();
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
