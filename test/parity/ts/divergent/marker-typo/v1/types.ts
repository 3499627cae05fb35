// The TypeScript twin of test/parity/go/divergent/marker-typo/v1, which opgen refuses.
// +groupName=markertypo.divergent.parity.opgen.dev
import type { int32, ObjectMeta } from '@opgen/runtime';

/** KnobSpec defines the desired state of Knob. */
export interface KnobSpec {
  /**
   * Turns is misspelled Minimum; controller-gen ignores the marker.
   * +kubebuilder:validation:Minimun=1
   */
  turns?: int32;
}

/** Knob is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Knob {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: KnobSpec;
}
