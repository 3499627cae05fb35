// The TypeScript twin of test/parity/go/divergent/unique-items/v1, which opgen refuses.
// +groupName=uniqueitems.divergent.parity.opgen.dev
import type { ObjectMeta } from '@opgen/runtime';

/** BagSpec defines the desired state of Bag. */
export interface BagSpec {
  /**
   * Items must differ from each other.
   * +kubebuilder:validation:UniqueItems=true
   */
  items?: string[];
}

/** Bag is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Bag {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: BagSpec;
}
