// From a typed Defaulter or Validator to an AdmissionHandler, and from an AdmissionReview to its
// answer: the uid echoed, the patch base64-encoded, denial as a status, any other failure as an
// error result (code 500) rather than a crashed process.
import type { KubeObject } from '../api/types.js';
import type { Logger } from '../log/index.js';
import { jsonPatchDiff } from './json-patch.js';
import {
  AdmissionDenied, type AdmissionHandler, type AdmissionRequest, type AdmissionResponse, type AdmissionReview,
  type Defaulter, type Validator,
} from './types.js';

const reasonByCode: Record<number, string> = { 400: 'BadRequest', 403: 'Forbidden', 409: 'Conflict', 413: 'RequestEntityTooLarge', 422: 'Invalid', 500: 'InternalError' };

/** The handler behind a defaulting webhook: default() edits a copy; the answer is the difference. */
export function defaultingHandler<T>(defaulter: Defaulter<T>): AdmissionHandler {
  return async (req) => {
    // Like controller-runtime: nothing to default on DELETE or CONNECT.
    if ((req.operation !== 'CREATE' && req.operation !== 'UPDATE') || req.object === undefined) return { allowed: true };
    const obj = structuredClone(req.object) as T;
    await defaulter.default(obj, { ...req, object: obj } as AdmissionRequest<T>);
    return { allowed: true, patch: jsonPatchDiff(req.object, obj) };
  };
}

/** The handler behind a validating webhook: returned warnings allow, `throw denied(...)` denies. */
export function validatingHandler<T>(validator: Validator<T>): AdmissionHandler {
  return async (req) => {
    const typed = req as AdmissionRequest<T>;
    let warnings: string[] | void;
    switch (req.operation) {
      case 'CREATE':
        warnings = await validator.validateCreate(typed.object as T, typed);
        break;
      case 'UPDATE':
        warnings = await validator.validateUpdate(typed.oldObject as T, typed.object as T, typed);
        break;
      case 'DELETE':
        // The API server sends the object being deleted as oldObject.
        warnings = await validator.validateDelete(typed.oldObject as T, typed);
        break;
      default:
        return { allowed: true };
    }
    return { allowed: true, warnings: warnings ?? undefined };
  };
}

/** Answers one AdmissionReview (already parsed and checked to carry a request). */
export async function review(
  handler: AdmissionHandler, body: AdmissionReview, path: string, log: Logger,
): Promise<AdmissionReview> {
  const raw = body.request!;
  const req: AdmissionRequest<KubeObject> = { ...raw, dryRun: raw.dryRun === true, userInfo: raw.userInfo ?? {} };
  let response: AdmissionResponse;
  try {
    response = await handler(req);
  } catch (err) {
    if (err instanceof AdmissionDenied) {
      response = {
        allowed: false,
        status: { code: err.code, reason: err.reason ?? reasonByCode[err.code] ?? 'Forbidden', message: err.message },
        warnings: err.warnings.length > 0 ? err.warnings : undefined,
      };
    } else {
      const message = err instanceof Error ? err.message : String(err);
      log.error('admission handler failed', err, { path, uid: raw.uid, kind: raw.kind?.kind, name: raw.name, namespace: raw.namespace });
      response = { allowed: false, status: { code: 500, reason: 'InternalError', message } };
    }
  }
  const out: NonNullable<AdmissionReview['response']> = { uid: raw.uid, allowed: response.allowed };
  if (!response.allowed) {
    const status = response.status ?? {};
    const code = status.code ?? 403;
    out.status = { code, reason: status.reason ?? reasonByCode[code] ?? 'Forbidden', message: status.message ?? '', status: 'Failure', metadata: {} };
  } else if (response.status) {
    out.status = { ...response.status, metadata: {} };
  }
  if (response.allowed && response.patch && response.patch.length > 0) {
    out.patch = Buffer.from(JSON.stringify(response.patch)).toString('base64');
    out.patchType = 'JSONPatch';
  }
  if (response.warnings && response.warnings.length > 0) out.warnings = response.warnings;
  if (response.auditAnnotations) out.auditAnnotations = response.auditAnnotations;
  // Answer in the version asked in (v1beta1 is read as v1 and answered as v1beta1).
  return { apiVersion: body.apiVersion, kind: 'AdmissionReview', response: out };
}

/**
 * The answer to a request that is not a review this server can handle (empty, too large, not JSON,
 * another kind or version): HTTP 200 with `allowed: false`, the code and the message, as
 * controller-runtime answers it. An HTTP error instead would be a failed call, which
 * `failurePolicy: Ignore` turns into "admit". The uid is echoed when the body had one.
 */
export function refusedReview(body: unknown, code: number, message: string): AdmissionReview {
  const r = (body ?? {}) as { apiVersion?: unknown; request?: { uid?: unknown } };
  const apiVersion = r.apiVersion === 'admission.k8s.io/v1beta1' ? 'admission.k8s.io/v1beta1' : 'admission.k8s.io/v1';
  const uid = typeof r.request?.uid === 'string' ? r.request.uid : '';
  return {
    apiVersion, kind: 'AdmissionReview',
    response: { uid, allowed: false, status: { code, reason: reasonByCode[code] ?? 'BadRequest', message, status: 'Failure', metadata: {} } },
  };
}
