// Package v1 is the Go twin of test/parity/ts/divergent/marker-typo/v1, which opgen refuses.
// +groupName=markertypo.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KnobSpec defines the desired state of Knob.
type KnobSpec struct {
	// Turns is misspelled Minimum; controller-gen ignores the marker.
	// +kubebuilder:validation:Minimun=1
	// +optional
	Turns int32 `json:"turns,omitempty"`
}

// Knob is the kind of this fixture.
// +kubebuilder:object:root=true
type Knob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec KnobSpec `json:"spec,omitempty"`
}
