// The controller builder: `mgr.controllerFor(Memcached).owns(Deployment).complete(reconciler)`.
import type { ResourceKind } from '../api/kind.js';
import type { KubeObject, OwnerReference } from '../api/types.js';
import type { Cache } from '../cache/cache.js';
import { getControllerOf, groupOf } from '../helpers/owner-references.js';
import type { Logger } from '../log/index.js';
import type { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { instrumentReconciler } from '../tracing/instrument.js';
import type { Tracer } from '../tracing/tracer.js';
import type { Reconciler, Request } from '../reconcile/index.js';
import { LowPriority } from '../workqueue/queue.js';
import type { RateLimiter } from '../workqueue/rate-limiter.js';
import { Controller, type ControllerDefaults, type SourceHandlers } from './controller.js';
import { allowCreate, allowDelete, allowUpdate, type Predicate } from './predicates.js';

/** What a builder needs from its manager. */
export interface ControllerHost {
  readonly cache: Cache;
  readonly log: Logger;
  readonly metrics?: RuntimeMetrics;
  /** Spans for reconciles and their API calls; undefined when tracing is off. */
  readonly tracer?: Tracer;
  readonly hardStop?: AbortSignal;
  /** The namespaces the manager's cache watches; undefined = all. */
  readonly watchedNamespaces?: readonly string[];
  /** What every controller starts from (ManagerOptions.controller); withOptions overrides it. */
  readonly controllerDefaults?: ControllerDefaults;
  /** The cache's resync period, over a tenth of which a controller spreads each resync. */
  readonly syncPeriodMs?: number;
  /** Reserves a controller name (unique per manager, as in logs and metrics); throws when taken. */
  claimControllerName(name: string): void;
  addController(c: Controller): void;
  /** Sharding (runtime/src/sharding): reconciles only this replica's share of the kind. */
  wrapReconciler?(kind: ResourceKind, r: Reconciler): Reconciler;
  /** Sharding: `owned` objects follow their `owner`'s shard (called by owns(), before any informer of `owned` exists). */
  shardOwned?(owner: ResourceKind, owned: ResourceKind): void;
}

export interface WatchOptions {
  predicates?: Predicate[];
}

/** Options of owns() and watches(). */
export interface DependentWatchOptions<O extends KubeObject = KubeObject> {
  predicates?: Predicate<O>[];
  /**
   * The kind may not be served (its CRD not installed): the watch starts when discovery shows the kind
   * and stops when it goes, and the controller does not wait for it (Cache.followKind). A kind that is
   * not optional and not served keeps the controller from starting (its cache never syncs).
   */
  optional?: boolean;
}

/** Per-controller options (ControllerDefaults: usePriorityQueue, reconciliationTimeoutMs). */
export interface ControllerBuilderOptions extends ControllerDefaults {
  maxConcurrentReconciles?: number;
  rateLimiter?: RateLimiter;
}

export interface ControllerBuilder<T extends KubeObject = KubeObject> {
  /** Events of `kind` objects enqueue their controller owner when it is of the `for` kind. */
  owns(kind: ResourceKind, opts?: DependentWatchOptions): this;
  /** Events of `kind` objects enqueue whatever `map` returns. */
  watches<O extends KubeObject>(kind: ResourceKind<O>, map: (obj: O) => Request[], opts?: DependentWatchOptions<O>): this;
  /** Predicates applied to every watch of this controller. */
  withEventFilter(...p: Predicate[]): this;
  /** The controller's name in logs and metrics; default the lower-cased kind. Must be unique. */
  named(name: string): this;
  withOptions(o: ControllerBuilderOptions): this;
  complete(r: Reconciler): Controller;
}

interface Watch {
  kind: ResourceKind;
  predicates: Predicate[];
  toRequests: (obj: KubeObject) => Request[];
  optional?: boolean;
}

export class Builder<T extends KubeObject> implements ControllerBuilder<T> {
  private readonly watchList: Watch[] = [];
  private readonly globalPredicates: Predicate[] = [];
  private name?: string;
  private options: ControllerBuilderOptions = {};
  private completed = false;

  constructor(
    private readonly host: ControllerHost,
    private readonly forKind: ResourceKind<T>,
    forOpts: WatchOptions = {},
  ) {
    this.watchList.push({ kind: forKind, predicates: forOpts.predicates ?? [], toRequests: (obj) => [requestFor(obj)] });
  }

  owns(kind: ResourceKind, opts: DependentWatchOptions = {}): this {
    const owner = this.forKind;
    this.host.shardOwned?.(owner, kind);
    this.watchList.push({
      kind,
      predicates: opts.predicates ?? [],
      optional: opts.optional,
      toRequests: (obj) => {
        const ref = getControllerOf(obj);
        if (!ref || !refersTo(ref, owner)) return [];
        return [owner.namespaced ? { namespace: obj.metadata?.namespace, name: ref.name } : { name: ref.name }];
      },
    });
    return this;
  }

  watches<O extends KubeObject>(kind: ResourceKind<O>, map: (obj: O) => Request[], opts: DependentWatchOptions<O> = {}): this {
    this.watchList.push({ kind, predicates: (opts.predicates ?? []) as Predicate[], toRequests: map as (obj: KubeObject) => Request[], optional: opts.optional });
    return this;
  }

  withEventFilter(...p: Predicate[]): this {
    this.globalPredicates.push(...p);
    return this;
  }

  named(name: string): this {
    this.name = name;
    return this;
  }

  withOptions(o: ControllerBuilderOptions): this {
    const set = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as ControllerBuilderOptions;
    this.options = { ...this.options, ...set };
    return this;
  }

  complete(reconciler: Reconciler): Controller {
    if (this.completed) throw new Error('complete() was already called on this builder');
    this.completed = true;
    const name = this.name ?? this.forKind.kind.toLowerCase();
    if (!/^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$/i.test(name)) throw new Error(`controller name "${name}" must be alphanumeric with - _ or . inside`);
    this.host.claimControllerName(name);

    const sources = this.watchList.filter((w) => !w.optional).map((w) => ({ informer: this.host.cache.informerFor(w.kind), handlers: this.handlersFor(w, () => controller) }));
    const optionalSources = this.watchList.filter((w) => w.optional).map((w) => ({ kind: w.kind, handlers: this.handlersFor(w, () => controller) }));
    const o = { ...this.host.controllerDefaults, ...this.options };
    const controller: Controller = new Controller({
      name,
      // Its span and per-controller series (active workers, panics, terminal errors, duration by kind).
      reconciler: instrumentReconciler(this.host.wrapReconciler?.(this.forKind, reconciler) ?? reconciler, {
        controller: name, kind: this.forKind, maxConcurrentReconciles: Math.max(1, o.maxConcurrentReconciles ?? 1), metrics: this.host.metrics, tracer: this.host.tracer,
      }),
      sources,
      optionalSources,
      followKind: (kind, cb) => this.host.cache.followKind(kind, cb),
      maxConcurrentReconciles: o.maxConcurrentReconciles,
      rateLimiter: o.rateLimiter,
      usePriorityQueue: o.usePriorityQueue,
      reconciliationTimeoutMs: o.reconciliationTimeoutMs,
      cacheSyncTimeoutMs: o.cacheSyncTimeoutMs,
      syncPeriodMs: this.host.syncPeriodMs,
      log: this.host.log.child({ controllerGroup: this.forKind.group, controllerKind: this.forKind.kind }),
      metrics: this.host.metrics,
      hardStop: this.host.hardStop,
      watchedNamespaces: this.host.watchedNamespaces,
    });
    this.host.addController(controller);
    return controller;
  }

  /**
   * The event handlers of one watch; the controller attaches them when it starts. As
   * controller-runtime's handlers with a priority queue: objects of the initial list queue at
   * LowPriority, and so do resyncs (an update whose resourceVersion did not change), which are also
   * spread over a tenth of the sync period.
   */
  private handlersFor(w: Watch, controller: () => Controller): SourceHandlers {
    const predicates = [...this.globalPredicates, ...w.predicates];
    const enqueue = (obj: KubeObject, priority?: number) => {
      for (const req of safeMap(w, obj, this.host.log)) controller().enqueue(req, { priority });
    };
    return {
      onAdd: (obj, { initialList }) => {
        if (allowCreate(predicates, obj)) enqueue(obj, initialList ? LowPriority : undefined);
      },
      onUpdate: (oldObj, newObj) => {
        if (!allowUpdate(predicates, oldObj, newObj)) return;
        if (oldObj.metadata?.resourceVersion !== undefined && oldObj.metadata.resourceVersion === newObj.metadata?.resourceVersion) {
          for (const req of safeMap(w, newObj, this.host.log)) controller().enqueueResync(req);
          return;
        }
        // The old object matters when the change moves it away (e.g. a new controller owner).
        enqueue(oldObj);
        enqueue(newObj);
      },
      onDelete: (obj) => {
        if (allowDelete(predicates, obj)) enqueue(obj);
      },
    };
  }
}

function requestFor(obj: KubeObject): Request {
  const ns = obj.metadata?.namespace;
  return ns ? { namespace: ns, name: obj.metadata?.name ?? '' } : { name: obj.metadata?.name ?? '' };
}

// Owner references match on group and kind; the version may differ (controller-runtime does the same).
function refersTo(ref: OwnerReference, kind: ResourceKind): boolean {
  return groupOf(ref.apiVersion) === kind.group && ref.kind === kind.kind;
}

function safeMap(w: Watch, obj: KubeObject, log: Logger): Request[] {
  try {
    return w.toRequests(obj);
  } catch (err) {
    log.error('watch map function failed', err, { kind: w.kind.kind, name: obj.metadata?.name });
    return [];
  }
}
