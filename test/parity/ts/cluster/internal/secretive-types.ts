// Skipped: +kubebuilder:skip keeps this folder's kinds out of the CRDs.
// +groupName=cluster.parity.opgen.dev
// +kubebuilder:skip
import type { ObjectMeta } from '@opgen/runtime';

/** Secretive would be a kind, but its folder is skipped. */
// +kubebuilder:object:root=true
export interface Secretive {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: SecretiveSpec;
}

/** SecretiveSpec defines the desired state of Secretive. */
export interface SecretiveSpec {
  hidden: string;
}
