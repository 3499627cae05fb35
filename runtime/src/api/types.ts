// Kubernetes API helper types for operator type modules. Each alias carries its Go name so that
// `opgen generate` recognises it from the import and emits controller-gen's exact schema for it.
// The values are plain JSON as the API server sends it: timestamps stay RFC 3339 strings.

/** An integer of no stated width (Go's `int`): emitted as `type: integer` without a format. */
export type int = number;
/** A 32-bit integer: emitted as `type: integer, format: int32`. */
export type int32 = number;
/** A 64-bit integer: emitted as `type: integer, format: int64`. */
export type int64 = number;
/** An RFC 3339 timestamp with second precision (metav1.Time): `type: string, format: date-time`. */
export type Time = string;
/** An RFC 3339 timestamp with microsecond precision (metav1.MicroTime): `type: string, format: date-time`. */
export type MicroTime = string;
/** A Go duration string such as `1h30m` (metav1.Duration): `type: string`. */
export type Duration = string;
/** A resource quantity such as `500m` or `1Gi` (resource.Quantity): int-or-string with a pattern. */
export type Quantity = string | number;
/** Either an integer or a string (intstr.IntOrString): `x-kubernetes-int-or-string: true`. */
export type IntOrString = number | string;
/** An embedded object of any kind (runtime.RawExtension): `type: object`, unknown fields preserved. */
export type RawExtension = Record<string, unknown>;
/** Arbitrary JSON (apiextensionsv1.JSON): `x-kubernetes-preserve-unknown-fields: true`. */
export type JSON = unknown;

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  apiVersion?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  manager?: string;
  operation?: string;
  subresource?: string;
  time?: Time;
}

/** Standard object metadata (metav1.ObjectMeta). */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: int64;
  creationTimestamp?: Time;
  deletionTimestamp?: Time;
  deletionGracePeriodSeconds?: int64;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

/** Standard list metadata (metav1.ListMeta). */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: int64;
}

/** A status condition (metav1.Condition), as kept in `status.conditions`. */
export interface Condition {
  /** Type of condition in CamelCase, e.g. `Available`. */
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: int64;
  lastTransitionTime: Time;
  /** A programmatic identifier in CamelCase for the last transition. */
  reason: string;
  /** A human readable message about the last transition. */
  message: string;
}

/** Any Kubernetes object: what every kind's root interface satisfies. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** A list of objects as the API server returns it. */
export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: T[];
}
