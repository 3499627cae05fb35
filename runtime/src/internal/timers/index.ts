// Every timer in the runtime goes through here. Node's setTimeout/setInterval (and AbortSignal.timeout,
// built on them) fire a delay of 2^31 ms (~24.8 days) or more after 1 ms, with only a process warning:
// a requeueAfter or syncPeriod of 30 days would become a hot loop. A longer delay here is a chain of
// timers, each at most maxTimerDelayMs, re-armed against a monotonic deadline. A guard test keeps the
// raw timer functions out of the rest of runtime/src.

/** The longest delay Node's timers keep (2^31 - 1 ms); anything longer fires after 1 ms. */
export const maxTimerDelayMs = 2 ** 31 - 1;

/** A pending timer: clear() cancels it (also after it fired); unref() lets the process exit while it waits. */
export interface Timer {
  clear(): void;
  unref(): this;
}

class ChainedTimer implements Timer {
  private handle: NodeJS.Timeout | undefined;
  private deadline = 0;
  /** The armed Node timer is the last link of the chain. */
  private last = true;
  private refed = true;

  constructor(
    private readonly fn: () => void,
    delayMs: number,
    private readonly repeatMs?: number,
  ) {
    this.start(clampDelay(delayMs));
  }

  clear(): void {
    clearTimeout(this.handle);
    this.handle = undefined;
  }

  unref(): this {
    this.refed = false;
    this.handle?.unref();
    return this;
  }

  private start(ms: number): void {
    this.deadline = performance.now() + ms;
    this.arm(ms);
  }

  private arm(ms: number): void {
    this.last = ms <= maxTimerDelayMs;
    this.handle = setTimeout(this.fire, Math.min(ms, maxTimerDelayMs));
    if (!this.refed) this.handle.unref();
  }

  private readonly fire = (): void => {
    if (!this.last) {
      this.arm(Math.max(1, this.deadline - performance.now()));
      return;
    }
    // Re-armed before fn runs, so that fn may clear() it.
    if (this.repeatMs !== undefined) this.start(this.repeatMs);
    else this.handle = undefined;
    this.fn();
  };
}

/** A delay as Node reads it (below 1 ms, negative or NaN: 1 ms), except that Infinity never fires. */
function clampDelay(ms: number): number {
  return ms >= 1 ? ms : 1;
}

/** Calls `fn` once after `delayMs` (any length; Infinity never fires). */
export function setTimer(fn: () => void, delayMs: number): Timer {
  return new ChainedTimer(fn, delayMs);
}

/** Calls `fn` every `periodMs` until cleared. */
export function setRepeatingTimer(fn: () => void, periodMs: number): Timer {
  const ms = clampDelay(periodMs);
  return new ChainedTimer(fn, ms, ms);
}

/** Resolves true after `ms`, or false as soon as `signal` aborts (at once if it already has). */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      timer.clear();
      resolve(false);
    };
    const timer = setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * AbortSignal.timeout(ms) for any `ms`: aborts with a TimeoutError after `ms`, and like it does not
 * keep the process alive.
 */
export function timeoutSignal(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimer(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms).unref();
  return controller.signal;
}
