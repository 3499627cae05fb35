// Package v1 is the Go twin of test/parity/ts/divergent/nullable-typo/v1, which opgen refuses.
// +groupName=nullabletypo.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LampSpec defines the desired state of Lamp.
type LampSpec struct {
	// Color uses the wrong spelling of +nullable; controller-gen ignores the marker.
	// +kubebuilder:validation:nullable
	// +optional
	Color *string `json:"color,omitempty"`
}

// Lamp is the kind of this fixture.
// +kubebuilder:object:root=true
type Lamp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec LampSpec `json:"spec,omitempty"`
}
