// The TypeScript twin of test/parity/go/divergent/field-path/v1, which opgen refuses.
// +groupName=fieldpath.divergent.parity.opgen.dev
import type { ObjectMeta, int32 } from '@opgen/runtime';

/** Limits bound the gauge. */
export interface Limits {
  max?: int32;
}

/** GaugeSpec defines the desired state of Gauge. */
export interface GaugeSpec {
  /**
   * Limits names a field that does not exist in its rule's fieldPath.
   * +kubebuilder:validation:XValidation:rule="!has(self.max) || self.max < 10",fieldPath=".maximum"
   */
  limits?: Limits;
}

/** Gauge is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Gauge {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: GaugeSpec;
}
