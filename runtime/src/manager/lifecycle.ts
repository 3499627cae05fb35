// The small owners of a running manager's shutdown: why it stops (StopRequest), the runnables it must
// drain (RunGroup), and the hard stop that fences every request when waiting is no longer safe
// (HardStop). Leadership has its own (leadership.ts). manager.ts calls them in shutdown order.
import type { Logger } from '../log/index.js';
import { setTimer, type Timer } from '../internal/timers/index.js';
import type { Runnable } from './runnable.js';

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** Why the manager stops: the caller's signal, or the first failure (a runnable, a lost lease, a drain that timed out). */
export class StopRequest {
  private readonly controller = new AbortController();
  private readonly onOuterAbort = () => this.controller.abort();
  /** The first failure; start() rejects with it. */
  failure?: Error;

  constructor(private readonly outer: AbortSignal) {
    outer.addEventListener('abort', this.onOuterAbort, { once: true });
    if (outer.aborted) this.controller.abort();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  fail(err: unknown): void {
    this.failure ??= asError(err);
    this.controller.abort();
  }

  /** Resolves once a stop was asked for. */
  requested(): Promise<void> {
    const signal = this.controller.signal;
    return new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  }

  dispose(): void {
    this.outer.removeEventListener('abort', this.onOuterAbort);
  }
}

/**
 * The hard stop: aborts in-flight reconciles and makes the manager's client, cache and event recorder
 * refuse every request. Fired when another replica may be writing already (lost lease) or when the
 * drain outlived its grace period; never undone.
 */
export class HardStop {
  private readonly controller = new AbortController();

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get fired(): boolean {
    return this.controller.signal.aborted;
  }

  fire(reason: string): void {
    if (!this.fired) this.controller.abort(new Error(reason));
  }
}

/** The runnables of one start(): each runs until close(); drain() waits for them to return. */
export class RunGroup {
  private readonly controller = new AbortController();
  private readonly running: Promise<void>[] = [];

  constructor(
    private readonly log: Logger,
    private readonly onFailure: (err: unknown) => void,
  ) {}

  run(r: Runnable): void {
    if (this.controller.signal.aborted) return;
    this.running.push(
      Promise.resolve()
        .then(() => r.start(this.controller.signal))
        .catch((err: unknown) => {
          this.log.error('runnable failed; stopping the manager', err);
          this.onFailure(err);
        }),
    );
  }

  /** Stop taking work: every runnable's signal aborts, and nothing new starts. */
  close(): void {
    this.controller.abort();
  }

  /** True when every runnable returned within `ms`. */
  drain(ms: number): Promise<boolean> {
    return settleWithin(this.running, ms);
  }
}

/** True when every promise settled within `ms`. */
export async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<boolean> {
  if (promises.length === 0) return true;
  let timer: Timer | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimer(() => resolve(false), ms)));
  const all = Promise.allSettled(promises).then(() => true as const);
  try {
    return await Promise.race([all, timeout]);
  } finally {
    timer?.clear();
  }
}
