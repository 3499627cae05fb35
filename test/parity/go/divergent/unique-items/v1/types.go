// Package v1 is the Go twin of test/parity/ts/divergent/unique-items/v1, which opgen refuses.
// +groupName=uniqueitems.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BagSpec defines the desired state of Bag.
type BagSpec struct {
	// Items must differ from each other.
	// +kubebuilder:validation:UniqueItems=true
	// +optional
	Items []string `json:"items,omitempty"`
}

// Bag is the kind of this fixture.
// +kubebuilder:object:root=true
type Bag struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec BagSpec `json:"spec,omitempty"`
}
