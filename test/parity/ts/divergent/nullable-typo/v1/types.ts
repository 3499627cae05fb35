// The TypeScript twin of test/parity/go/divergent/nullable-typo/v1, which opgen refuses.
// +groupName=nullabletypo.divergent.parity.opgen.dev
import type { ObjectMeta } from '@opgen/runtime';

/** LampSpec defines the desired state of Lamp. */
export interface LampSpec {
  /**
   * Color uses the wrong spelling of +nullable; controller-gen ignores the marker.
   * +kubebuilder:validation:nullable
   */
  color?: string;
}

/** Lamp is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Lamp {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: LampSpec;
}
