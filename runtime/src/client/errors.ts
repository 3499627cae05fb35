// Typed API errors: the server's metav1.Status carried as an Error, and the predicates controllers
// branch on (controller-runtime's apierrors.IsNotFound & co.).

/** metav1.Status as the API server returns it for failed requests. */
export interface Status {
  apiVersion?: string;
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; group?: string; kind?: string; causes?: { reason?: string; message?: string; field?: string }[]; retryAfterSeconds?: number };
}

export class ApiError extends Error {
  /** HTTP status code, e.g. 404. */
  readonly code: number;
  /** The Status reason, e.g. `NotFound`, `Conflict`, `AlreadyExists`, `Expired`. */
  readonly reason: string;
  readonly status: Status;

  constructor(code: number, status: Status, context?: string) {
    const message = status.message ?? `the server responded with HTTP ${code}`;
    super(context ? `${context}: ${message}` : message);
    this.name = 'ApiError';
    this.code = status.code ?? code;
    this.reason = status.reason ?? reasonForCode(code);
    this.status = status;
  }
}

// The reasons the API server uses when it sends a bare status code (apimachinery's NewGenericServerResponse).
function reasonForCode(code: number): string {
  switch (code) {
    case 400: return 'BadRequest';
    case 401: return 'Unauthorized';
    case 403: return 'Forbidden';
    case 404: return 'NotFound';
    case 405: return 'MethodNotAllowed';
    case 406: return 'NotAcceptable';
    case 409: return 'Conflict';
    case 410: return 'Expired';
    case 415: return 'UnsupportedMediaType';
    case 422: return 'Invalid';
    case 429: return 'TooManyRequests';
    case 500: return 'InternalError';
    case 503: return 'ServiceUnavailable';
    case 504: return 'Timeout';
    default: return 'Unknown';
  }
}

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
      await new Promise((resolve) => setTimeout(resolve, delay * (1 + Math.random() * 0.1)));
    }
  }
}
