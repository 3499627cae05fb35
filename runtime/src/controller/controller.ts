// A controller: a work queue of namespace/name keys fed by informer events, and N workers that take
// keys and call the reconciler. The queue guarantees one reconcile per key at a time. Its sources
// (event handlers on shared informers) are attached when the controller starts, on the leader only, as
// controller-runtime does: a standby replica keeps warm caches but queues nothing.
// The queue is a priority queue by default, as in controller-runtime v0.23+: objects from the
// initial list and resyncs queue at LowPriority, behind real changes, so a restart with 10,000
// objects does not delay the one a user just edited; resyncs are also spread over a tenth of the
// sync period so they do not arrive as one burst.
import { randomUUID } from 'node:crypto';
import { NamespaceNotWatchedError } from '../cache/cache.js';
import type { ResourceKind } from '../api/kind.js';
import type { KubeObject } from '../api/types.js';
import { AbortFanout } from '../internal/abort/index.js';
import type { EventHandlers, Informer } from '../cache/informer.js';
import { isForbidden } from '../client/errors.js';
import type { Logger } from '../log/index.js';
import type { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { setTimer, timeoutSignal } from '../internal/timers/index.js';
import { isTerminal, ReconciliationTimeoutError, requestFromKey, requestKey, type Reconciler, type Request, type Result } from '../reconcile/index.js';
import { LowPriority, WorkQueue } from '../workqueue/queue.js';
import { defaultControllerRateLimiter, ItemExponentialFailureRateLimiter, type RateLimiter } from '../workqueue/rate-limiter.js';

/** What the controller tells a source's onAdd besides the object. */
export interface AddEvent {
  /**
   * The object came with the informer's initial list (or was already cached when the controller
   * started), not from a change seen afterwards: client-go's isInInitialList.
   */
  initialList: boolean;
}

/** The handlers of one source; onAdd also learns whether the object came with the initial list. */
export interface SourceHandlers {
  onAdd?(obj: KubeObject, event: AddEvent): void;
  onUpdate?(oldObj: KubeObject, newObj: KubeObject): void;
  onDelete?(obj: KubeObject): void;
}

/** Events of one informer, turned into requests by `handlers` (which call controller.enqueue). */
export interface Source {
  informer: Informer;
  handlers: SourceHandlers;
}

/** A watch of a kind that may not be served: attached when it is, detached when it goes (Cache.followKind). */
export interface OptionalSource {
  kind: ResourceKind;
  handlers: SourceHandlers;
}

/** How optional sources learn that their kind is served (Cache.followKind). */
export type FollowKind = (kind: ResourceKind, cb: { served(informer: Informer): void; gone(informer: Informer): void }) => { served: Promise<boolean>; stop(): void };

/** How a request is queued. */
export interface EnqueueOptions {
  /** Higher is reconciled first; default 0 (a real change). */
  priority?: number;
}

/** Options every controller of a manager starts from (ManagerOptions.controller); each controller may override them. */
export interface ControllerDefaults {
  /**
   * Queue requests by priority (default true, as controller-runtime since v0.23): the initial list
   * and resyncs go behind real changes, and Result.priority is honoured. false: one FIFO queue.
   */
  usePriorityQueue?: boolean;
  /**
   * A reconcile's signal aborts (reason: ReconciliationTimeoutError) once it has run this long;
   * default 0 = no limit. As in controller-runtime, what the reconciler then returns or throws is its
   * outcome: client calls given the signal fail, so a reconciler that passes it on ends with an error
   * and is retried with backoff.
   */
  reconciliationTimeoutMs?: number;
  /** How long to wait for the caches before giving up (the manager then stops); default 2 minutes, as controller-runtime. */
  cacheSyncTimeoutMs?: number;
}

export interface ControllerOptions extends ControllerDefaults {
  name: string;
  reconciler: Reconciler;
  /** Attached at start(); each informer's first list must be in memory before workers start. */
  sources: Source[];
  /** Watches of kinds that may not be served; need followKind. The controller waits only for those served at start. */
  optionalSources?: OptionalSource[];
  followKind?: FollowKind;
  maxConcurrentReconciles?: number;
  rateLimiter?: RateLimiter;
  log: Logger;
  metrics?: RuntimeMetrics;
  /** Aborted when in-flight reconciles must give up (the shutdown deadline passed, or leadership was lost). */
  hardStop?: AbortSignal;
  /** The namespaces the manager watches (WATCH_NAMESPACE), for the hint when access is denied; undefined = all. */
  watchedNamespaces?: readonly string[];
  /**
   * The cache's resync period (the manager's syncPeriodMs). A resynced object is queued after a
   * random delay of up to resyncJitter × this, so the objects of one resync reach the workers spread
   * out rather than in one burst. Undefined or 0: no delay.
   */
  syncPeriodMs?: number;
}

/** The share of the sync period a resync is spread over (client-go's jitter factor for its periods). */
const resyncJitter = 0.1;

/**
 * How long a worker runs reconciles back to back before it lets the event loop poll for I/O. A poll
 * with nothing to do costs microseconds; 5 ms keeps a user's edit from waiting more than that.
 */
const workerSliceMs = 5;

/** Distinct access-denied messages remembered per controller (each is logged at error level once while it lasts). */
const MAX_DENIALS_REMEMBERED = 1000;

export class Controller {
  readonly name: string;
  /** Controllers reconcile only on the leader. */
  readonly needLeaderElection = true;
  readonly queue: WorkQueue<string>;
  private readonly reconciler: Reconciler;
  private readonly workers: number;
  private readonly log: Logger;
  private readonly metrics?: RuntimeMetrics;
  private readonly hardStop: AbortSignal;
  private readonly usePriorityQueue: boolean;
  private readonly reconciliationTimeoutMs: number;
  private started = false;
  /** Set while start() attaches the sources: objects already cached are replayed to onAdd then. */
  private replaying = false;
  /**
   * Access-denied errors already logged (message → how many keys fail with it), and the message each
   * failing key got: a retry refused the same way goes to debug; once the key reconciles again (a Role
   * was bound), a later refusal is news and logged again.
   */
  private readonly denials = new Map<string, number>();
  private readonly deniedKeys = new Map<string, string>();

  constructor(private readonly opts: ControllerOptions) {
    this.name = opts.name;
    this.reconciler = opts.reconciler;
    this.workers = Math.max(1, opts.maxConcurrentReconciles ?? 1);
    this.log = opts.log.child({ controller: opts.name });
    this.metrics = opts.metrics;
    this.hardStop = opts.hardStop ?? new AbortController().signal;
    this.usePriorityQueue = opts.usePriorityQueue ?? true;
    const timeout = opts.reconciliationTimeoutMs ?? 0;
    if (!(timeout >= 0) || !Number.isFinite(timeout)) throw new Error(`controller ${opts.name}: reconciliationTimeoutMs must be a number of ms ≥ 0 (0 = no limit), got ${timeout}`);
    this.reconciliationTimeoutMs = timeout;
    // As controller-runtime: its priority queue defaults to the per-item backoff alone (5 ms doubling
    // to 1000 s); the plain queue adds the overall 10 qps / burst 100 bucket.
    const rateLimiter = opts.rateLimiter ?? (this.usePriorityQueue ? new ItemExponentialFailureRateLimiter<string>(5, 1_000_000) : defaultControllerRateLimiter<string>());
    this.queue = new WorkQueue<string>({ rateLimiter, metrics: opts.metrics?.workqueue(opts.name), priorities: this.usePriorityQueue });
  }

  /** Queues a reconcile of `req` (at priority 0, a real change, unless told otherwise). */
  enqueue(req: Request, opts: EnqueueOptions = {}): void {
    this.queue.add(requestKey(req), opts);
  }

  /**
   * Queues `req` for a resync: at LowPriority, after a random share of resyncJitter × syncPeriodMs,
   * so that one resync of 10,000 objects reaches the workers spread over that window.
   */
  enqueueResync(req: Request): void {
    const window = (this.opts.syncPeriodMs ?? 0) * resyncJitter;
    this.queue.addAfter(requestKey(req), Math.random() * window, { priority: LowPriority });
  }

  /** Whether an onAdd from `informer` now is part of its initial list (see AddEvent.initialList). */
  private inInitialList(informer: Informer): boolean {
    // Before the informer has synced its adds are its first list; a multi-namespace informer counts
    // as unsynced until every namespace has been listed, so a change in a namespace listed early may
    // be taken for part of the list then (it queues at low priority, nothing is lost).
    return this.replaying || !informer.hasSynced();
  }

  /**
   * Waits for the caches, then runs the workers until `signal` aborts. On abort the queue stops
   * handing out keys and this resolves once the reconciles in flight have returned.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error(`controller ${this.name} was already started`);
    this.started = true;
    const onAbort = () => this.queue.shutDown();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) this.queue.shutDown();
    this.log.info('starting controller', { workerCount: this.workers });
    // Objects already cached are replayed to onAdd, so nothing listed before now is missed.
    const attached = new Set<{ informer: Informer; handlers: EventHandlers }>();
    const attach = (s: Source) => {
      const a = { informer: s.informer, handlers: this.forInformer(s) };
      attached.add(a);
      this.replaying = true;
      try {
        a.informer.addEventHandler(a.handlers);
      } finally {
        this.replaying = false;
      }
      return a;
    };
    for (const s of this.opts.sources) attach(s);
    const follows = (this.opts.optionalSources ?? []).map((s) => this.follow(s, attach, attached));
    try {
      const servedAtStart = await Promise.all(follows.map((f) => f.served));
      const waitFor = [...attached].map((a) => ({ informer: a.informer, name: a.informer.kind.kind }));
      const timeoutMs = this.opts.cacheSyncTimeoutMs ?? 120_000;
      // One listener on the deadline for all the informers, however many kinds are watched.
      const syncAbort = new AbortFanout(AbortSignal.any([signal, timeoutSignal(timeoutMs)]));
      let synced: boolean[];
      try {
        synced = await Promise.all(waitFor.map((w) => w.informer.waitForSync(syncAbort.child().signal)));
      } finally {
        syncAbort.close();
      }
      if (signal.aborted) return;
      if (!synced.every(Boolean)) {
        const stalled = waitFor.filter((_, i) => !synced[i]).map((w) => w.name);
        throw new Error(`controller ${this.name}: timed out after ${timeoutMs} ms waiting for the caches of ${stalled.join(', ')} to sync (is each kind served, i.e. its CRD installed, and may the operator list and watch it? A kind that may be absent can be watched with { optional: true })`);
      }
      if (servedAtStart.length > 0) this.log.debug('optional watches', { served: servedAtStart.filter(Boolean).length, waiting: servedAtStart.filter((s) => !s).length });
      const workers = Array.from({ length: this.workers }, () => this.work());
      await Promise.all(workers);
      this.log.info('all workers finished');
    } finally {
      // The informers are shared and outlive this controller: a stopped controller must not keep
      // mapping their events into a queue nobody reads (nor keep itself reachable from them).
      for (const f of follows) f.stop();
      for (const a of attached) a.informer.removeEventHandler(a.handlers);
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * An optional source: attached once its kind is served, detached when the kind goes. Which kind is
   * skipped and why is said once, at info level, as is each later change.
   */
  private follow(s: OptionalSource, attach: (s: Source) => { informer: Informer; handlers: EventHandlers }, attached: Set<{ informer: Informer; handlers: EventHandlers }>): { served: Promise<boolean>; stop(): void } {
    if (!this.opts.followKind) throw new Error(`controller ${this.name}: optional watches need followKind`);
    const what = { kind: s.kind.kind, apiVersion: s.kind.apiVersion };
    let current: { informer: Informer; handlers: EventHandlers } | undefined;
    let started = false;
    const follow = this.opts.followKind(s.kind, {
      served: (informer) => {
        if (current) return;
        current = attach({ informer, handlers: s.handlers });
        if (started) this.log.info('optional watch started: the kind is served now', what);
      },
      gone: () => {
        if (!current) return;
        current.informer.removeEventHandler(current.handlers);
        attached.delete(current);
        current = undefined;
        this.log.info('optional watch stopped: the kind is no longer served', what);
      },
    });
    return {
      served: follow.served.then((served) => {
        started = true;
        if (!served) this.log.info(`not watching ${s.kind.kind} (${s.kind.apiVersion}) yet: the API server does not serve it (is its CRD installed?); the watch starts when it does`, what);
        return served;
      }),
      stop: follow.stop,
    };
  }

  /** The informer-side handlers of a source: onAdd learns whether the object is from the initial list. */
  private forInformer(s: Source): EventHandlers {
    const h = s.handlers;
    return {
      ...(h.onAdd && { onAdd: (obj: KubeObject) => h.onAdd!(obj, { initialList: this.inInitialList(s.informer) }) }),
      ...(h.onUpdate && { onUpdate: (o: KubeObject, n: KubeObject) => h.onUpdate!(o, n) }),
      ...(h.onDelete && { onDelete: (obj: KubeObject) => h.onDelete!(obj) }),
    };
  }

  private async work(): Promise<void> {
    let ranSince = performance.now();
    for (;;) {
      // Reconciles that read only the cache never wait for I/O: a worker draining 10,000 of them would
      // hold the event loop for seconds, and the watch event of a user's edit (which the priority
      // queue would put first), lease renewals and probes would wait until the queue is empty.
      if (performance.now() - ranSince >= workerSliceMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        ranSince = performance.now();
      }
      const next = await this.queue.getWithPriority();
      if (next === undefined) return;
      try {
        await this.process(next.item, next.priority);
      } finally {
        this.queue.done(next.item);
      }
    }
  }

  /** Reconciles `key`, taken from the queue at `priority` (which a requeue keeps unless the Result sets one). */
  private async process(key: string, priority: number): Promise<void> {
    const req = requestFromKey(key);
    const reconcileID = randomUUID();
    const log = this.log.child({ ...(req.namespace ? { namespace: req.namespace } : {}), name: req.name, reconcileID });
    const started = performance.now();
    let result: Result | void;
    const deadline = this.reconcileSignal();
    try {
      result = await this.reconciler.reconcile(req, { signal: deadline.signal, log, reconcileID, controller: this.name });
    } catch (err) {
      deadline.end(log);
      const again = { priority };
      this.observe(started);
      this.metrics?.reconcileError(this.name);
      this.metrics?.reconcileTotal(this.name, 'error');
      if (!isAccessDenied(err)) this.endDenial(key);
      if (isTerminal(err)) {
        this.queue.forget(key);
        log.error('Reconciler error (terminal, not retried)', err);
      } else if (isAccessDenied(err)) {
        // Retried (a Role may be bound later), but reported once: a retry loop repeating the same
        // refusal would hide it. Later identical refusals are logged at debug level.
        this.queue.addRateLimited(key, again);
        const message = (err as Error).message;
        if (this.startDenial(key, message)) {
          log.error('Reconciler error: access denied (reported once; retried with backoff)', err, { hint: this.deniedHint() });
        } else {
          log.debug('Reconciler error: access denied again', { error: message, retries: this.queue.numRequeues(key) });
        }
      } else {
        this.queue.addRateLimited(key, again);
        log.error('Reconciler error', err, { retries: this.queue.numRequeues(key) });
      }
      return;
    }
    deadline.end(log);
    this.observe(started);
    this.endDenial(key);
    const again = { priority: result?.priority ?? priority };
    if (result && result.requeueAfter !== undefined && result.requeueAfter > 0) {
      this.queue.forget(key);
      this.queue.addAfter(key, result.requeueAfter, again);
      this.metrics?.reconcileTotal(this.name, 'requeue_after');
    } else if (result && result.requeue) {
      this.queue.addRateLimited(key, again);
      this.metrics?.reconcileTotal(this.name, 'requeue');
    } else {
      this.queue.forget(key);
      this.metrics?.reconcileTotal(this.name, 'success');
    }
  }

  /**
   * The signal one reconcile gets: the hard stop's, plus reconciliationTimeoutMs when set. end()
   * stops the timer and, when it fired, logs and counts the timeout.
   */
  private reconcileSignal(): { signal: AbortSignal; end(log: Logger): void } {
    const limit = this.reconciliationTimeoutMs;
    if (limit === 0) return { signal: this.hardStop, end: () => {} };
    const controller = new AbortController();
    const stop = this.hardStop;
    const onStop = () => controller.abort(stop.reason);
    if (stop.aborted) controller.abort(stop.reason);
    else stop.addEventListener('abort', onStop, { once: true });
    const timer = setTimer(() => controller.abort(new ReconciliationTimeoutError(this.name, limit)), limit);
    return {
      signal: controller.signal,
      end: (log) => {
        timer.clear();
        stop.removeEventListener('abort', onStop);
        if (controller.signal.reason instanceof ReconciliationTimeoutError) {
          this.metrics?.reconcileTimeout(this.name);
          log.info('reconcile ran past reconciliationTimeoutMs; its signal was aborted', { reconciliationTimeoutMs: limit });
        }
      },
    };
  }

  /** Records that `key` was refused with `message`; true when nobody was refused that way before (log it). */
  private startDenial(key: string, message: string): boolean {
    if (this.deniedKeys.get(key) === message) return false;
    this.endDenial(key);
    const count = this.denials.get(message);
    // Past the bound every refusal is logged: better noisy than silent.
    if (count === undefined && this.denials.size >= MAX_DENIALS_REMEMBERED) return true;
    this.denials.set(message, (count ?? 0) + 1);
    this.deniedKeys.set(key, message);
    return count === undefined;
  }

  private endDenial(key: string): void {
    const message = this.deniedKeys.get(key);
    if (message === undefined) return;
    this.deniedKeys.delete(key);
    const left = (this.denials.get(message) ?? 1) - 1;
    if (left > 0) this.denials.set(message, left);
    else this.denials.delete(message);
  }

  private deniedHint(): string {
    const watched = this.opts.watchedNamespaces;
    if (watched && watched.length > 0) {
      return `the operator watches namespaces ${watched.join(', ')} (WATCH_NAMESPACE) and its Roles grant access only there; objects elsewhere are out of its reach`;
    }
    return 'grant the permission with a +kubebuilder:rbac marker and run `npm run manifests`';
  }

  private observe(started: number): void {
    this.metrics?.reconcileTime(this.name, (performance.now() - started) / 1000);
  }
}

/** A refusal by RBAC (HTTP 403) or a cache read outside the watched namespaces. */
function isAccessDenied(err: unknown): boolean {
  return isForbidden(err) || err instanceof NamespaceNotWatchedError;
}
