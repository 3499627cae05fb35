// The TypeScript twin of test/parity/go/divergent/recursion/v1, which opgen refuses.
// +groupName=recursion.divergent.parity.opgen.dev
import type { ObjectMeta } from '@opgen/runtime';

/** TreeSpec defines the desired state of Tree. */
export interface TreeSpec {
  /** Root node of the tree. */
  root?: Node;
}

/** Node is a tree node. */
export interface Node {
  value?: string;
  children?: Node[];
}

/** Tree is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Tree {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: TreeSpec;
}
