// The contract of everything long-running a manager starts and stops. Its own module, below both the
// manager and what the manager runs (the webhook server is a Runnable), so neither imports the other.

/** Anything long-running the manager starts and stops. */
export interface Runnable {
  /** Runs until `signal` aborts; a rejection stops the manager. */
  start(signal: AbortSignal): Promise<void>;
  /** Run only on the elected leader; default true (as controller-runtime). */
  needLeaderElection?: boolean;
}
