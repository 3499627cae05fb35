// The TypeScript twin of test/parity/go/divergent/optional-on-type/v1, which opgen refuses.
// +groupName=optionalontype.divergent.parity.opgen.dev
import type { ObjectMeta } from '@opgen/runtime';

/**
 * DrawerSpec defines the desired state of Drawer. The marker below stands in the type's own comment,
 * where controller-gen does not read it: the field stays required.
 * +kubebuilder:validation:Optional
 */
export interface DrawerSpec {
  /** Label is required unless the marker above takes effect. */
  label: string;
}

/** Drawer is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Drawer {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: DrawerSpec;
}
