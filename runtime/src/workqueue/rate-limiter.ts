// Rate limiters decide how long a failed item waits before it is retried. The default matches
// controller-runtime's: the larger of a per-item exponential backoff (5 ms doubling to 1000 s) and an
// overall token bucket (10 qps, burst 100) shared by every item of the queue.

export interface RateLimiter<K = string> {
  /** How long `item` should wait (ms) before it is processed again; each call counts as one failure. */
  when(item: K): number;
  /** Clears the failure history of `item` (after it succeeded). */
  forget(item: K): void;
  /** How many times `item` has been rate-limited since it was last forgotten. */
  numRequeues(item: K): number;
}

/** base·2^failures, capped at max. */
export class ItemExponentialFailureRateLimiter<K = string> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();

  constructor(
    private readonly baseDelayMs: number,
    private readonly maxDelayMs: number,
  ) {}

  when(item: K): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const delay = this.baseDelayMs * 2 ** exp;
    return delay > this.maxDelayMs || !Number.isFinite(delay) ? this.maxDelayMs : delay;
  }

  forget(item: K): void {
    this.failures.delete(item);
  }

  numRequeues(item: K): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * A token bucket over all items (golang.org/x/time/rate semantics: each call reserves a token and
 * waits until it is available). `now` is injectable so tests do not depend on the clock.
 */
export class BucketRateLimiter<K = string> implements RateLimiter<K> {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.last = now();
  }

  when(_item: K): number {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = t;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(_item: K): void {}

  numRequeues(_item: K): number {
    return 0;
  }
}

/** The longest wait any of `limiters` asks for. */
export class MaxOfRateLimiter<K = string> implements RateLimiter<K> {
  private readonly limiters: RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    this.limiters = limiters;
  }

  when(item: K): number {
    let longest = 0;
    for (const l of this.limiters) longest = Math.max(longest, l.when(item));
    return longest;
  }

  forget(item: K): void {
    for (const l of this.limiters) l.forget(item);
  }

  numRequeues(item: K): number {
    let most = 0;
    for (const l of this.limiters) most = Math.max(most, l.numRequeues(item));
    return most;
  }
}

/** controller-runtime's default: max(5 ms → 1000 s per item, 10 qps / burst 100 overall). */
export function defaultControllerRateLimiter<K = string>(): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(new ItemExponentialFailureRateLimiter<K>(5, 1_000_000), new BucketRateLimiter<K>(10, 100));
}
