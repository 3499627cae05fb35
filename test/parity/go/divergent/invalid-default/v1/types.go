// Package v1 is the Go twin of test/parity/ts/divergent/invalid-default/v1, which opgen refuses.
// +groupName=invaliddefault.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DialSpec defines the desired state of Dial.
type DialSpec struct {
	// Level defaults to a string, which an integer cannot hold.
	// +kubebuilder:default=high
	// +optional
	Level int32 `json:"level,omitempty"`
}

// Dial is the kind of this fixture.
// +kubebuilder:object:root=true
type Dial struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec DialSpec `json:"spec,omitempty"`
}
