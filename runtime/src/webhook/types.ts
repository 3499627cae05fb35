// The shapes webhook code works with: what the API server sends (AdmissionReview admission.k8s.io/v1,
// ConversionReview apiextensions.k8s.io/v1), what handlers receive, and what they answer.
import type { KubeObject } from '../api/types.js';
import type { JsonPatchOp } from '../client/index.js';

export interface GroupVersionKind { group: string; version: string; kind: string }
export interface GroupVersionResource { group: string; version: string; resource: string }

/** Who made the request (authentication.k8s.io/v1 UserInfo). */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** The `request` of an AdmissionReview, with the object typed for the kind the webhook serves. */
export interface AdmissionRequest<T = KubeObject> {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  /** Set when the API server converted the request (matchPolicy: Equivalent). */
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  /** Empty on create with generateName. */
  name?: string;
  namespace?: string;
  operation: Operation;
  userInfo: UserInfo;
  /** The object as it will be stored (CREATE, UPDATE); absent on DELETE. */
  object?: T;
  /** The stored object (UPDATE, DELETE). */
  oldObject?: T;
  /** True for dry-run requests: do nothing with side effects outside the object. */
  dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions. */
  options?: Record<string, unknown>;
}

export interface StatusDetails {
  code?: number;
  reason?: string;
  message?: string;
}

/** What a handler answers; the server adds uid, encodes the patch and sets patchType. */
export interface AdmissionResponse {
  allowed: boolean;
  /** Shown to the client when denied. */
  status?: StatusDetails;
  /** RFC 6902 operations against the request's object (mutating webhooks). */
  patch?: JsonPatchOp[];
  /** Shown to the client (kubectl prints them); keep each under 120 characters. */
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** A low-level admission handler, registered at a path with `server.register(path, handler)`. */
export type AdmissionHandler = (req: AdmissionRequest) => AdmissionResponse | Promise<AdmissionResponse>;

/** Warnings a validator returns (returned to the client on allowed and denied requests). */
export type Warnings = string[];

/** A defaulting (mutating) webhook: edits `obj` in place; the server answers the difference as a JSONPatch. */
export interface Defaulter<T> {
  default(obj: T, req: AdmissionRequest<T>): void | Promise<void>;
}

/**
 * A validating webhook. Return warnings (or nothing) to allow; throw `denied(message)` to deny.
 * Any other error is answered as an internal error (code 500) with its message.
 */
export interface Validator<T> {
  validateCreate(obj: T, req: AdmissionRequest<T>): Warnings | void | Promise<Warnings | void>;
  validateUpdate(oldObj: T, obj: T, req: AdmissionRequest<T>): Warnings | void | Promise<Warnings | void>;
  validateDelete(obj: T, req: AdmissionRequest<T>): Warnings | void | Promise<Warnings | void>;
}

/** The error a handler throws to deny a request (see `denied()`). */
export class AdmissionDenied extends Error {
  readonly code: number;
  readonly reason?: string;
  readonly warnings: string[];
  constructor(message: string, opts: { code?: number; reason?: string; warnings?: string[] } = {}) {
    super(message);
    this.name = 'AdmissionDenied';
    this.code = opts.code ?? 403;
    this.reason = opts.reason;
    this.warnings = opts.warnings ?? [];
  }
}

/** Deny with `message` (HTTP code 403 unless given; reason e.g. 'Invalid', 'Forbidden'): `throw denied('spec.size must be ≤ 5')`. */
export function denied(message: string, opts: { code?: number; reason?: string; warnings?: string[] } = {}): AdmissionDenied {
  return new AdmissionDenied(message, opts);
}

/**
 * How one spoke version converts to and from the hub. Objects come in whole (apiVersion, kind,
 * metadata, spec, status) and are copies. Return the other version's object; its apiVersion is set
 * for you, and of its metadata only labels and annotations are kept (the API server refuses other
 * changes), so `{ metadata: hub.metadata, spec: {...} }` is enough.
 */
export interface SpokeConversion<Spoke = any, Hub = any> {
  toHub(spoke: Spoke): Hub | Promise<Hub>;
  fromHub(hub: Hub): Spoke | Promise<Spoke>;
}

/**
 * Conversion for one kind (kubebuilder's hub and spoke): every conversion goes spoke → hub → spoke.
 * `hub` and the keys of `spokes` are versions, e.g. `{ hub: 'v1', spokes: { v1beta1: { toHub, fromHub } } }`.
 */
export interface Conversion<Hub = any> {
  hub: string;
  spokes: Record<string, SpokeConversion<any, Hub>>;
}

/** admission.k8s.io/v1 AdmissionReview on the wire (v1beta1 has the same shape). */
export interface AdmissionReview {
  apiVersion: string;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: {
    uid: string;
    allowed: boolean;
    status?: StatusDetails & { metadata?: object; status?: string };
    patch?: string;
    patchType?: 'JSONPatch';
    warnings?: string[];
    auditAnnotations?: Record<string, string>;
  };
}

/** apiextensions.k8s.io/v1 ConversionReview on the wire. */
export interface ConversionReview {
  apiVersion: string;
  kind: 'ConversionReview';
  request?: { uid: string; desiredAPIVersion: string; objects: KubeObject[] };
  response?: {
    uid: string;
    convertedObjects: KubeObject[];
    result: { status: 'Success' | 'Failure'; message?: string; code?: number; reason?: string };
  };
}
