// Test support (excluded from the build): a manager started in the test, how and when its start() settled.
import type { Manager } from '../manager.js';

export interface Started {
  /** Aborts the start signal. */
  stop: () => void;
  /** start()'s promise, never rejecting: its outcome is in settled. */
  done: Promise<void>;
  /** 'resolved', the error start() rejected with, or undefined while it runs. */
  readonly settled: 'resolved' | Error | undefined;
  /** performance.now() when start() settled. */
  readonly settledAt: number | undefined;
}

/** Starts mgr with a signal of its own. */
export function started(mgr: Manager): Started {
  const ctl = new AbortController();
  let settled: 'resolved' | Error | undefined;
  let settledAt: number | undefined;
  const done = mgr.start(ctl.signal).then(
    () => void (settled = 'resolved'),
    (err: Error) => void (settled = err),
  ).finally(() => (settledAt = performance.now()));
  return { stop: () => ctl.abort(), done, get settled() { return settled; }, get settledAt() { return settledAt; } };
}
