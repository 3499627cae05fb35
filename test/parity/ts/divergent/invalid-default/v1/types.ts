// The TypeScript twin of test/parity/go/divergent/invalid-default/v1, which opgen refuses.
// +groupName=invaliddefault.divergent.parity.opgen.dev
import type { int32, ObjectMeta } from '@opgen/runtime';

/** DialSpec defines the desired state of Dial. */
export interface DialSpec {
  /**
   * Level defaults to a string, which an integer cannot hold.
   * +kubebuilder:default=high
   */
  level?: int32;
}

/** Dial is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Dial {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: DialSpec;
}
