// A controller: a work queue of namespace/name keys fed by informer events, and N workers that take
// keys and call the reconciler. The queue guarantees one reconcile per key at a time. Its sources
// (event handlers on shared informers) are attached when the controller starts, on the leader only, as
// controller-runtime does: a standby replica keeps warm caches but queues nothing.
import { randomUUID } from 'node:crypto';
import { NamespaceNotWatchedError } from '../cache/cache.js';
import type { EventHandlers, Informer } from '../cache/informer.js';
import { isForbidden } from '../client/errors.js';
import { timeoutSignal } from '../internal/timers/index.js';
import type { Logger } from '../log/index.js';
import type { RuntimeMetrics } from '../metrics/index.js';
import { isTerminal, requestFromKey, requestKey, type Reconciler, type Request, type Result } from '../reconcile/index.js';
import { WorkQueue } from '../workqueue/queue.js';
import type { RateLimiter } from '../workqueue/rate-limiter.js';

/** Events of one informer, turned into requests by `handlers` (which call controller.enqueue). */
export interface Source {
  informer: Informer;
  handlers: EventHandlers;
}

export interface ControllerOptions {
  name: string;
  reconciler: Reconciler;
  /** Attached at start(); each informer's first list must be in memory before workers start. */
  sources: Source[];
  maxConcurrentReconciles?: number;
  rateLimiter?: RateLimiter;
  log: Logger;
  metrics?: RuntimeMetrics;
  /** Aborted when in-flight reconciles must give up (the shutdown deadline passed, or leadership was lost). */
  hardStop?: AbortSignal;
  /** How long to wait for the caches before giving up; default 2 minutes, as controller-runtime. */
  cacheSyncTimeoutMs?: number;
  /** The namespaces the manager watches (WATCH_NAMESPACE), for the hint when access is denied; undefined = all. */
  watchedNamespaces?: readonly string[];
}

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
  private started = false;
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
    this.queue = new WorkQueue<string>({ rateLimiter: opts.rateLimiter, metrics: opts.metrics?.workqueue(opts.name) });
  }

  enqueue(req: Request): void {
    this.queue.add(requestKey(req));
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
    for (const s of this.opts.sources) s.informer.addEventHandler(s.handlers);
    try {
      const timeoutMs = this.opts.cacheSyncTimeoutMs ?? 120_000;
      const syncAbort = AbortSignal.any([signal, timeoutSignal(timeoutMs)]);
      const synced = await Promise.all(this.opts.sources.map((s) => s.informer.waitForSync(syncAbort)));
      if (signal.aborted) return;
      if (!synced.every(Boolean)) throw new Error(`controller ${this.name}: timed out after ${timeoutMs} ms waiting for caches to sync`);
      const workers = Array.from({ length: this.workers }, () => this.work());
      await Promise.all(workers);
      this.log.info('all workers finished');
    } finally {
      // The informers are shared and outlive this controller: a stopped controller must not keep
      // mapping their events into a queue nobody reads (nor keep itself reachable from them).
      for (const s of this.opts.sources) s.informer.removeEventHandler(s.handlers);
      signal.removeEventListener('abort', onAbort);
    }
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        await this.process(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  private async process(key: string): Promise<void> {
    const req = requestFromKey(key);
    const reconcileID = randomUUID();
    const log = this.log.child({ ...(req.namespace ? { namespace: req.namespace } : {}), name: req.name, reconcileID });
    const started = performance.now();
    let result: Result | void;
    try {
      result = await this.reconciler.reconcile(req, { signal: this.hardStop, log, reconcileID, controller: this.name });
    } catch (err) {
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
        this.queue.addRateLimited(key);
        const message = (err as Error).message;
        if (this.startDenial(key, message)) {
          log.error('Reconciler error: access denied (reported once; retried with backoff)', err, { hint: this.deniedHint() });
        } else {
          log.debug('Reconciler error: access denied again', { error: message, retries: this.queue.numRequeues(key) });
        }
      } else {
        this.queue.addRateLimited(key);
        log.error('Reconciler error', err, { retries: this.queue.numRequeues(key) });
      }
      return;
    }
    this.observe(started);
    this.endDenial(key);
    if (result && result.requeueAfter !== undefined && result.requeueAfter > 0) {
      this.queue.forget(key);
      this.queue.addAfter(key, result.requeueAfter);
      this.metrics?.reconcileTotal(this.name, 'requeue_after');
    } else if (result && result.requeue) {
      this.queue.addRateLimited(key);
      this.metrics?.reconcileTotal(this.name, 'requeue');
    } else {
      this.queue.forget(key);
      this.metrics?.reconcileTotal(this.name, 'success');
    }
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
