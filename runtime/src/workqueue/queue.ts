// A deduplicating, rate-limited priority work queue with the guarantees of client-go's queue and of
// controller-runtime's priority queue (pkg/controller/priorityqueue):
// - an item queued several times before a worker takes it is processed once, at the highest priority
//   it was added with; items of one priority come out first in, first out, higher priorities first;
// - an item is never handed to two workers at once: if it is added while being processed it is held
//   and queued again when the worker calls done();
// - addAfter/addRateLimited hold an item back, and the earliest pending delay wins; an add without a
//   delay makes a held-back item ready at once (its wait merges into it, as controller-runtime does).
// One difference comes from Node's single thread: an item added again while it was being processed
// is queued again only after a short grace and an I/O poll (see done()).
import type { WorkqueueMetrics } from '../metrics/runtime-metrics.js';
import { setTimer, type Timer } from '../internal/timers/index.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';

export interface WorkQueueOptions<K> {
  rateLimiter?: RateLimiter<K>;
  metrics?: WorkqueueMetrics;
  /**
   * Hand out higher priorities first (default true). When false every item counts as priority 0: one
   * first-in, first-out queue, client-go's order.
   */
  priorities?: boolean;
}

/**
 * The priority of events from an informer's initial list and of resyncs (controller-runtime's
 * handler.LowPriority): below the default 0 of real changes, with room for a reconciler's own
 * "less urgent than a change, more than a resync".
 */
export const LowPriority = -100;

export interface AddOptions {
  /** Higher comes out first; default 0. An item already queued keeps the higher of its two priorities. */
  priority?: number;
}

/** A handed-out item and the priority it was queued at (a requeue keeps it unless told otherwise). */
export interface QueuedItem<K> {
  item: K;
  priority: number;
}

/**
 * Where an item is: `ready` (in its priority's FIFO), `held` (added while a worker has it; queued when
 * the worker is done) or `waiting` (until `at`).
 */
interface Entry {
  state: 'ready' | 'held' | 'waiting';
  priority: number;
  /** The FIFO slot that is current; an older slot of the same item (before a priority raise) is skipped. */
  slot?: Slot<unknown>;
  at?: number;
  timer?: Timer;
  readySince?: number;
}

interface Slot<K> {
  item: K;
}

/** First in, first out, with a moving head so taking is O(1). */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  push(x: T): void {
    this.items.push(x);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const x = this.items[this.head] as T;
    this.head++;
    // Compact now and then so the array does not grow without bound.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return x;
  }

  get size(): number {
    return this.items.length - this.head;
  }
}

export class WorkQueue<K = string> {
  private readonly entries = new Map<K, Entry>();
  /** One FIFO per priority, and the priorities present, highest first (few: 0, LowPriority, a reconciler's own). */
  private readonly levels = new Map<number, Fifo<Slot<K>>>();
  private order: number[] = [];
  private ready = 0;
  private readonly processing = new Set<K>();
  private readonly startedAt = new Map<K, number>();
  private getters: ((item: QueuedItem<K> | undefined) => void)[] = [];
  private shuttingDown = false;
  private readonly rateLimiter: RateLimiter<K>;
  private readonly metrics?: WorkqueueMetrics;
  private readonly usePriorities: boolean;

  constructor(opts: WorkQueueOptions<K> = {}) {
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter<K>();
    this.metrics = opts.metrics;
    // workqueue_unfinished_work_seconds and _longest_running_processor_seconds are read from it at scrape time.
    opts.metrics?.processing?.(() => this.startedAt.values());
    this.usePriorities = opts.priorities ?? true;
  }

  /** Items ready to be handed out (not counting delayed or in-flight ones). */
  get length(): number {
    return this.ready;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  add(item: K, opts: AddOptions = {}): void {
    if (this.shuttingDown) return;
    const priority = this.priorityOf(opts);
    const e = this.entries.get(item);
    if (e === undefined) {
      this.metrics?.add();
      this.makeReady(item, { state: 'ready', priority });
      return;
    }
    if (e.state === 'waiting') {
      e.timer?.clear();
      this.metrics?.add();
      this.makeReady(item, { state: 'ready', priority: Math.max(e.priority, priority) });
      return;
    }
    this.raise(item, e, priority);
  }

  /** Adds `item` after `delayMs`; an earlier pending delay for the same item wins. */
  addAfter(item: K, delayMs: number, opts: AddOptions = {}): void {
    if (this.shuttingDown) return;
    if (!(delayMs > 0)) {
      this.add(item, opts);
      return;
    }
    // controller-runtime v0.24 counts every add with a delay as a retry (rate-limited or requeueAfter).
    this.metrics?.retry();
    const priority = this.priorityOf(opts);
    const at = performance.now() + delayMs;
    const e = this.entries.get(item);
    if (e !== undefined && e.state !== 'waiting') {
      // Already due: only the priority can change.
      this.raise(item, e, priority);
      return;
    }
    if (e !== undefined) {
      e.priority = Math.max(e.priority, priority);
      if (e.at! <= at) return;
      e.timer!.clear();
    }
    const entry: Entry = e ?? { state: 'waiting', priority };
    entry.at = at;
    entry.timer = setTimer(() => this.due(item, entry), delayMs);
    this.entries.set(item, entry);
  }

  /** Adds `item` after the rate limiter's delay (a retry after a failure). */
  addRateLimited(item: K, opts: AddOptions = {}): void {
    this.addAfter(item, this.rateLimiter.when(item), opts);
  }

  /** The item succeeded: reset its backoff. */
  forget(item: K): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: K): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** Waits for the next item; resolves undefined once the queue shuts down. */
  async get(): Promise<K | undefined> {
    return (await this.getWithPriority())?.item;
  }

  /** Waits for the next item and its priority; resolves undefined once the queue shuts down. */
  getWithPriority(): Promise<QueuedItem<K> | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    if (this.ready > 0) return Promise.resolve(this.take());
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /**
   * The worker finished `item`. If it was added meanwhile, it is queued again only after
   * requeueGraceMs and an I/O poll: handing it straight back would have the next reconcile read the
   * object from the cache as it was before the reconciler's own writes, whose watch events are still
   * on their way (and its update fail with a 409 conflict). In Go the informer runs alongside the
   * workers; here it needs the loop, and the API server sends a write's watch event a few ms after
   * its response. Workers meanwhile take other items; adds meanwhile still fold into this one.
   */
  done(item: K): void {
    this.processing.delete(item);
    const started = this.startedAt.get(item);
    if (started !== undefined) {
      this.metrics?.workDuration((performance.now() - started) / 1000);
      this.startedAt.delete(item);
    }
    const e = this.entries.get(item);
    if (e?.state === 'held' && !this.shuttingDown) afterGraceAndIoPoll(() => this.release(item, e));
  }

  /** Stops handing out items: pending get() calls resolve undefined and delayed items are dropped. */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const e of this.entries.values()) e.timer?.clear();
    this.entries.clear();
    this.levels.clear();
    this.order = [];
    this.ready = 0;
    const getters = this.getters;
    this.getters = [];
    for (const g of getters) g(undefined);
  }

  private priorityOf(opts: AddOptions): number {
    return this.usePriorities ? (opts.priority ?? 0) : 0;
  }

  /** A due or held item gets a higher priority: a ready one moves to the end of its new priority's line. */
  private raise(item: K, e: Entry, priority: number): void {
    if (priority <= e.priority) return;
    e.priority = priority;
    if (e.state === 'ready') this.push(item, e);
  }

  /** A delayed item's time came. */
  private due(item: K, e: Entry): void {
    if (this.shuttingDown || this.entries.get(item) !== e || e.state !== 'waiting') return;
    e.timer = undefined;
    e.at = undefined;
    this.metrics?.add();
    this.makeReady(item, e);
  }

  /** Queues `e` for `item`, or holds it while a worker has the item (see done()). */
  private makeReady(item: K, e: Entry): void {
    this.entries.set(item, e);
    if (this.processing.has(item)) {
      e.state = 'held';
      return;
    }
    e.state = 'ready';
    this.ready++;
    this.push(item, e);
    const getter = this.getters.shift();
    if (getter) getter(this.take());
    else this.metrics?.depth(this.ready);
  }

  private release(item: K, e: Entry): void {
    // Still held and idle unless the queue shut down meanwhile (no one takes items then).
    if (this.shuttingDown || this.entries.get(item) !== e || e.state !== 'held' || this.processing.has(item)) return;
    this.makeReady(item, e);
  }

  private push(item: K, e: Entry): void {
    const slot: Slot<K> = { item };
    e.slot = slot;
    e.readySince ??= performance.now();
    let level = this.levels.get(e.priority);
    if (level === undefined) {
      level = new Fifo();
      this.levels.set(e.priority, level);
      this.order = [...this.levels.keys()].sort((a, b) => b - a);
    }
    level.push(slot);
  }

  private take(): QueuedItem<K> {
    for (const priority of this.order) {
      const level = this.levels.get(priority)!;
      for (let slot = level.shift(); slot !== undefined; slot = level.shift()) {
        const e = this.entries.get(slot.item);
        // A slot left behind when its item moved up a priority, or was handed out, is skipped.
        if (e === undefined || e.slot !== slot || e.state !== 'ready') continue;
        this.entries.delete(slot.item);
        this.ready--;
        this.processing.add(slot.item);
        if (e.readySince !== undefined) this.metrics?.queueDuration((performance.now() - e.readySince) / 1000);
        this.startedAt.set(slot.item, performance.now());
        this.metrics?.depth(this.ready);
        if (level.size === 0) this.dropLevel(priority);
        return { item: slot.item, priority: e.priority };
      }
      this.dropLevel(priority);
    }
    throw new Error('work queue: no ready item although the count says there is one');
  }

  private dropLevel(priority: number): void {
    this.levels.delete(priority);
    this.order = this.order.filter((p) => p !== priority);
  }
}

/**
 * How long a key added during its reconcile waits before it is queued again. Measured with envtest
 * (200 objects created one by one, so the worker is idle when each reconcile ends; stale cached reads
 * = status-update conflicts): handed back at once 127; after one I/O poll 9-19; after 1 ms 4-10;
 * after 5 ms 1-3. Less than the 5 ms a conflict would cost in backoff alone, and only the one key waits.
 */
const requeueGraceMs = 5;

/**
 * Runs `fn` once requeueGraceMs have passed and the event loop has polled for I/O since: a timer can
 * fire before the next poll when the loop is busy, so the timer schedules an immediate, which runs
 * in the check phase right after that iteration's poll.
 */
function afterGraceAndIoPoll(fn: () => void): void {
  setTimer(() => setImmediate(fn), requeueGraceMs);
}
