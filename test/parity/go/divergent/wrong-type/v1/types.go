// Package v1 is the Go twin of test/parity/ts/divergent/wrong-type/v1, which opgen refuses.
// +groupName=wrongtype.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SignSpec defines the desired state of Sign.
type SignSpec struct {
	// Text cannot have a Minimum.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Text string `json:"text,omitempty"`
}

// Sign is the kind of this fixture.
// +kubebuilder:object:root=true
type Sign struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec SignSpec `json:"spec,omitempty"`
}
