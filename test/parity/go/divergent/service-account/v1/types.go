// Package v1 is the Go twin of test/parity/ts/divergent/service-account/v1, which opgen refuses.
// +groupName=serviceaccount.divergent.parity.opgen.dev
package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// HolderSpec defines the desired state of Holder.
type HolderSpec struct {
	// Account to create; corev1.ServiceAccount's secrets are a map list keyed by an optional name.
	// +optional
	Account *corev1.ServiceAccount `json:"account,omitempty"`
}

// Holder is the kind of this fixture.
// +kubebuilder:object:root=true
type Holder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec HolderSpec `json:"spec,omitempty"`
}
