// The TypeScript twin of test/parity/go/divergent/service-account/v1, which opgen refuses.
// +groupName=serviceaccount.divergent.parity.opgen.dev
import type { ObjectMeta } from '@opgen/runtime';
import type { corev1 } from '@opgen/runtime/kubernetes';

/** HolderSpec defines the desired state of Holder. */
export interface HolderSpec {
  /** Account to create; corev1.ServiceAccount's secrets are a map list keyed by an optional name. */
  account?: corev1.ServiceAccount;
}

/** Holder is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Holder {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: HolderSpec;
}
