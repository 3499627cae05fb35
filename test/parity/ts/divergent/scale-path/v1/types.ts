// The TypeScript twin of test/parity/go/divergent/scale-path/v1, which opgen refuses.
// +groupName=scalepath.divergent.parity.opgen.dev
import type { int32, ObjectMeta } from '@opgen/runtime';

/** PumpSpec defines the desired state of Pump. */
export interface PumpSpec {
  replicas?: int32;
}

/** Pump is the kind of this fixture. */
// +kubebuilder:object:root=true
// +kubebuilder:subresource:scale:specpath=.replicas,statuspath=.status.replicas
export interface Pump {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: PumpSpec;
}
