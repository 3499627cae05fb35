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
}

export const Result = {
  done(): Result {
    return {};
  },
  requeue(): Result {
    return { requeue: true };
  },
  requeueAfter(ms: number): Result {
    return { requeueAfter: ms };
  },
};

export interface ReconcileContext {
  /**
   * Aborts when the manager's graceful-shutdown deadline passes or leadership is lost; pass it to long
   * waits and to client calls (`{ signal: ctx.signal }`).
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

/** `namespace/name`, or `name` for cluster-scoped objects: the work-queue key. */
export function requestKey(req: Request): string {
  return req.namespace ? `${req.namespace}/${req.name}` : req.name;
}

export function requestFromKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
