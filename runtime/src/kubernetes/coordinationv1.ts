// coordination.k8s.io/v1 types of Kubernetes v1.36.3, generated from its OpenAPI by
// tools/kubernetes-types/generate.ts (npm run data:kubernetes-types). Do not edit.
import { groupVersion } from '../api/kind.js';
import type { ListMeta, MicroTime, ObjectMeta } from '../api/types.js';

const gv = groupVersion('coordination.k8s.io', 'v1');

export const Lease = gv.kind<Lease>('Lease', { plural: 'leases', namespaced: true });

/** Lease defines a lease concept. */
export interface Lease {
  /** APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources */
  apiVersion?: string;
  /** Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds */
  kind?: string;
  /** More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata */
  metadata?: ObjectMeta;
  /** spec contains the specification of the Lease. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status */
  spec?: LeaseSpec;
}

/** LeaseList is a list of Lease objects. */
export interface LeaseList {
  /** APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources */
  apiVersion?: string;
  /** items is a list of schema objects. */
  items: Lease[];
  /** Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds */
  kind?: string;
  /** Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata */
  metadata?: ListMeta;
}

/** LeaseSpec is a specification of a Lease. */
export interface LeaseSpec {
  /** acquireTime is a time when the current lease was acquired. */
  acquireTime?: MicroTime;
  /** holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field. */
  holderIdentity?: string;
  /** leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it. This is measured against the time of last observed renewTime. */
  leaseDurationSeconds?: number;
  /** leaseTransitions is the number of transitions of a lease between holders. */
  leaseTransitions?: number;
  /** PreferredHolder signals to a lease holder that the lease has a more optimal holder and should be given up. This field can only be set if Strategy is also set. */
  preferredHolder?: string;
  /** renewTime is a time when the current holder of a lease has last updated the lease. */
  renewTime?: MicroTime;
  /** Strategy indicates the strategy for picking the leader for coordinated leader election. If the field is not specified, there is no active coordination for this lease. (Alpha) Using this field requires the CoordinatedLeaderElection feature gate to be enabled. */
  strategy?: string;
}
