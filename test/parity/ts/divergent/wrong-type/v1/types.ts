// The TypeScript twin of test/parity/go/divergent/wrong-type/v1, which opgen refuses.
// +groupName=wrongtype.divergent.parity.opgen.dev
import type { ObjectMeta } from '@opgen/runtime';

/** SignSpec defines the desired state of Sign. */
export interface SignSpec {
  /**
   * Text cannot have a Minimum.
   * +kubebuilder:validation:Minimum=1
   */
  text?: string;
}

/** Sign is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Sign {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: SignSpec;
}
