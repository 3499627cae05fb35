// The TypeScript twin of test/parity/go/divergent/cel-rule/v1, which opgen refuses.
// +groupName=celrule.divergent.parity.opgen.dev
import type { int32, ObjectMeta } from '@opgen/runtime';

/**
 * MeterSpec defines the desired state of Meter.
 * +kubebuilder:validation:XValidation:rule="self.position > 'zero'",message="the meter reads something"
 */
export interface MeterSpec {
  /** Position is how far the meter reads something. */
  position?: int32;
}

/** Meter is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Meter {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: MeterSpec;
}
