// The TypeScript twin of test/parity/go/divergent/nullable-set-items/v1, which opgen refuses.
// +groupName=nullablesetitems.divergent.parity.opgen.dev
import type { ObjectMeta } from '@opgen/runtime';

/** ShelfSpec defines the desired state of Shelf. */
export interface ShelfSpec {
  /**
   * Tags are distinct, and each may be null.
   * +listType=set
   */
  tags?: (string | null)[];
}

/** Shelf is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Shelf {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ShelfSpec;
}
