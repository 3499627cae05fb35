// Package v1 is the Go twin of test/parity/ts/divergent/embedded-map/v1, which opgen refuses.
// +groupName=embeddedmap.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CrateSpec defines the desired state of Crate.
type CrateSpec struct {
	// Payload is meant to be a whole Kubernetes object, but is typed as a map.
	// +kubebuilder:validation:EmbeddedResource
	// +optional
	Payload map[string]string `json:"payload,omitempty"`
}

// Crate is the kind of this fixture.
// +kubebuilder:object:root=true
type Crate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec CrateSpec `json:"spec,omitempty"`
}
