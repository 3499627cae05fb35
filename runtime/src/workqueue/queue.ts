// A deduplicating, rate-limited work queue with client-go's guarantees:
// - an item queued several times before a worker takes it is processed once;
// - an item is never handed to two workers at once: if it is added while being processed it waits
//   (marked dirty) and is queued again when the worker calls done();
// - addAfter/addRateLimited hold an item back, and the earliest pending delay wins.
// One difference comes from Node's single thread: an item added again while it was being processed
// is queued again only after a short grace and an I/O poll (see done()).
import type { WorkqueueMetrics } from '../metrics/index.js';
import { setTimer, type Timer } from '../internal/timers/index.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';

export interface WorkQueueOptions<K> {
  rateLimiter?: RateLimiter<K>;
  metrics?: WorkqueueMetrics;
}

interface Waiting {
  at: number;
  timer: Timer;
}

export class WorkQueue<K = string> {
  private readonly queue: K[] = [];
  private head = 0;
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly waiting = new Map<K, Waiting>();
  private readonly addedAt = new Map<K, number>();
  private readonly startedAt = new Map<K, number>();
  private getters: ((item: K | undefined) => void)[] = [];
  private shuttingDown = false;
  private readonly rateLimiter: RateLimiter<K>;
  private readonly metrics?: WorkqueueMetrics;

  constructor(opts: WorkQueueOptions<K> = {}) {
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter<K>();
    this.metrics = opts.metrics;
  }

  /** Items ready to be handed out (not counting delayed or in-flight ones). */
  get length(): number {
    return this.queue.length - this.head;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  add(item: K): void {
    if (this.shuttingDown || this.dirty.has(item)) return;
    this.metrics?.add();
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.enqueue(item);
  }

  /** Adds `item` after `delayMs`; an earlier pending delay for the same item wins. */
  addAfter(item: K, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const at = Date.now() + delayMs;
    const existing = this.waiting.get(item);
    if (existing && existing.at <= at) return;
    if (existing) existing.timer.clear();
    const timer = setTimer(() => {
      this.waiting.delete(item);
      this.add(item);
    }, delayMs);
    this.waiting.set(item, { at, timer });
  }

  /** Adds `item` after the rate limiter's delay (a retry after a failure). */
  addRateLimited(item: K): void {
    this.metrics?.retry();
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** The item succeeded: reset its backoff. */
  forget(item: K): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: K): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** Waits for the next item; resolves undefined once the queue shuts down. */
  get(): Promise<K | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    if (this.length > 0) return Promise.resolve(this.take());
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /**
   * The worker finished `item`. If it was added meanwhile, it is queued again only after
   * requeueGraceMs and an I/O poll: handing it straight back would have the next reconcile read the
   * object from the cache as it was before the reconciler's own writes, whose watch events are still
   * on their way (and its update fail with a 409 conflict). In Go the informer runs alongside the
   * workers; here it needs the loop, and the API server sends a write's watch event a few ms after
   * its response. Workers meanwhile take other items; adds meanwhile still dedupe into this one.
   */
  done(item: K): void {
    this.processing.delete(item);
    const started = this.startedAt.get(item);
    if (started !== undefined) {
      this.metrics?.workDuration((performance.now() - started) / 1000);
      this.startedAt.delete(item);
    }
    if (this.dirty.has(item) && !this.shuttingDown) afterGraceAndIoPoll(() => this.requeueDirty(item));
  }

  /** Stops handing out items: pending get() calls resolve undefined and delayed items are dropped. */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const w of this.waiting.values()) w.timer.clear();
    this.waiting.clear();
    const getters = this.getters;
    this.getters = [];
    for (const g of getters) g(undefined);
  }

  private requeueDirty(item: K): void {
    // Still dirty and idle unless the queue shut down meanwhile (no one takes items then).
    if (this.shuttingDown || !this.dirty.has(item) || this.processing.has(item)) return;
    this.enqueue(item);
  }

  private enqueue(item: K): void {
    this.addedAt.set(item, performance.now());
    const getter = this.getters.shift();
    if (getter) {
      this.queue.push(item);
      getter(this.take());
      return;
    }
    this.queue.push(item);
    this.metrics?.depth(this.length);
  }

  private take(): K {
    const item = this.queue[this.head] as K;
    this.head++;
    // Compact now and then so the array does not grow without bound.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.dirty.delete(item);
    this.processing.add(item);
    const added = this.addedAt.get(item);
    if (added !== undefined) {
      this.metrics?.queueDuration((performance.now() - added) / 1000);
      this.addedAt.delete(item);
    }
    this.startedAt.set(item, performance.now());
    this.metrics?.depth(this.length);
    return item;
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
