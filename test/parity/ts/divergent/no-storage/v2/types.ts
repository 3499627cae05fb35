// The TypeScript twin of test/parity/go/divergent/no-storage/v2: two versions, neither marked as storage.
// +groupName=nostorage.divergent.parity.opgen.dev
import type { int32, ObjectMeta } from '@opgen/runtime';

/** Sloop is served in two versions, and neither is the storage version. */
// +kubebuilder:object:root=true
export interface Sloop {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: SloopSpec;
}

/** SloopSpec defines the desired state of Sloop. */
export interface SloopSpec {
  sails?: int32;
}
