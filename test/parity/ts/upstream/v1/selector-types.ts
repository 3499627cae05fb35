import type { LabelSelector, ObjectMeta, OwnerReference } from '@opgen/runtime';
import type { metav1 } from '@opgen/runtime/kubernetes';

/** SieveSpec uses apimachinery's types as public APIs do. */
export interface SieveSpec {
  /** Which pods to sift. */
  selector?: metav1.LabelSelector;
  /** The same type, imported from the runtime's root. */
  namespaceSelector?: LabelSelector;
  /** Who owns the result. */
  owner?: OwnerReference;
  /** Requirements on their own. */
  requirements?: metav1.LabelSelectorRequirement[];
}

/** Sieve selects objects by label. */
export interface Sieve {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: SieveSpec;
}
