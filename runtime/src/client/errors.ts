// The predicates controllers branch on (controller-runtime's apierrors.IsNotFound & co.), over the
// ApiError every request throws for a non-2xx answer.
import { sleep } from '../internal/timers/index.js';
import { ApiError } from '../transport/index.js';

export { ApiError, type Status } from '../transport/index.js';

function apiError(err: unknown): ApiError | undefined {
  return err instanceof ApiError ? err : undefined;
}

export function isNotFound(err: unknown): boolean {
  const e = apiError(err);
  return e !== undefined && (e.reason === 'NotFound' || e.code === 404);
}

/** A write lost the race: the object changed since it was read (HTTP 409 Conflict). */
export function isConflict(err: unknown): boolean {
  return apiError(err)?.reason === 'Conflict';
}

export function isAlreadyExists(err: unknown): boolean {
  return apiError(err)?.reason === 'AlreadyExists';
}

/** The resourceVersion asked for is too old (HTTP 410 Gone, reason Expired). */
export function isGone(err: unknown): boolean {
  const e = apiError(err);
  return e !== undefined && (e.code === 410 || e.reason === 'Expired' || e.reason === 'Gone');
}

export function isInvalid(err: unknown): boolean {
  return apiError(err)?.reason === 'Invalid';
}

export function isForbidden(err: unknown): boolean {
  return apiError(err)?.reason === 'Forbidden';
}

/** Swallows a 404 and rethrows anything else: `catch (err) { ignoreNotFound(err); return Result.done(); }`. */
export function ignoreNotFound(err: unknown): void {
  if (!isNotFound(err)) throw err;
}

/** Swallows a 409 AlreadyExists and rethrows anything else. */
export function ignoreAlreadyExists(err: unknown): void {
  if (!isAlreadyExists(err)) throw err;
}

/**
 * Runs `fn` again while it fails with a conflict, like client-go's retry.RetryOnConflict with
 * DefaultRetry (5 steps, 10 ms apart with 10% jitter). `fn` must re-read the object each time.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, opts: { steps?: number; delayMs?: number } = {}): Promise<T> {
  const steps = opts.steps ?? 5;
  const delay = opts.delayMs ?? 10;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isConflict(err) || attempt >= steps) throw err;
      await sleep(delay * (1 + Math.random() * 0.1));
    }
  }
}
