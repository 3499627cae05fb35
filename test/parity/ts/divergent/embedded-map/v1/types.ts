// The TypeScript twin of test/parity/go/divergent/embedded-map/v1, which opgen refuses.
// +groupName=embeddedmap.divergent.parity.opgen.dev
import type { ObjectMeta } from '@opgen/runtime';

/** CrateSpec defines the desired state of Crate. */
export interface CrateSpec {
  /**
   * Payload is meant to be a whole Kubernetes object, but is typed as a map.
   * +kubebuilder:validation:EmbeddedResource
   */
  payload?: Record<string, string>;
}

/** Crate is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Crate {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: CrateSpec;
}
