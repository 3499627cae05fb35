// The API server's metav1.Status carried as an Error: what the transport throws for a non-2xx answer.
// The predicates controllers branch on (isNotFound & co.) are the client's, in client/errors.ts.

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

/** The ApiError for a non-2xx answer whose body is `text` (a Status, or anything else). */
export function toApiError(code: number, text: string, context?: string): ApiError {
  let status: Status = {};
  try {
    const parsed = JSON.parse(text) as Status;
    if (parsed && typeof parsed === 'object') status = parsed;
  } catch {
    status = { message: text.trim() || undefined };
  }
  return new ApiError(code, status, context);
}
