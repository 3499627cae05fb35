// The reconcile contract: a Request names one object, the Reconciler makes the world match it and
// says whether (and when) to look again.
import type { Logger } from '../log/index.js';

export interface Request {
  namespace?: string;
  name: string;
}

export interface Result {
  /** Retry with the queue's backoff (prefer requeueAfter). */
  requeue?: boolean;
  /** Look again after this many milliseconds. */
  requeueAfter?: number;
  /**
   * The priority of this requeue in the controller's priority queue (higher comes out first; real
   * changes are 0, the initial list and resyncs LowPriority = -100). Unset: the priority the request
   * was queued at. Lower it for periodic polls that must not delay a user's edit. Ignored when the
   * controller's usePriorityQueue is false.
   */
  priority?: number;
}

export const Result = {
  done(): Result {
    return {};
  },
  requeue(opts: { priority?: number } = {}): Result {
    return { requeue: true, ...opts };
  },
  requeueAfter(ms: number, opts: { priority?: number } = {}): Result {
    return { requeueAfter: ms, ...opts };
  },
};

export interface ReconcileContext {
  /**
   * Aborts when the manager's graceful-shutdown deadline passes, leadership is lost, or the
   * controller's reconciliationTimeoutMs passes (reason: a ReconciliationTimeoutError); pass it to
   * long waits and to client calls (`{ signal: ctx.signal }`).
   */
  signal: AbortSignal;
  /** Carries controller, namespace, name and reconcileID on every line. */
  log: Logger;
  reconcileID: string;
  controller: string;
}

export interface Reconciler {
  reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void>;
}

/** An error that retrying cannot fix (bad spec, unsupported value): logged and counted, never requeued. */
export class TerminalError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'TerminalError';
  }
}

export function terminal(err: unknown): Error {
  return err instanceof TerminalError ? err : new TerminalError(err);
}

export function isTerminal(err: unknown): boolean {
  return err instanceof TerminalError;
}

/** The reason `ctx.signal` aborts with when a reconcile runs past its controller's reconciliationTimeoutMs. */
export class ReconciliationTimeoutError extends Error {
  constructor(
    readonly controller: string,
    readonly timeoutMs: number,
  ) {
    super(`reconcile exceeded controller ${controller}'s reconciliationTimeoutMs (${timeoutMs} ms)`);
    this.name = 'ReconciliationTimeoutError';
  }
}

/** `namespace/name`, or `name` for cluster-scoped objects: the work-queue key. */
export function requestKey(req: Request): string {
  return req.namespace ? `${req.namespace}/${req.name}` : req.name;
}

export function requestFromKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
