// Package v1 is the Go twin of test/parity/ts/divergent/list-map-nullable-key/v1, which opgen refuses.
// +groupName=listmapnullablekey.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CrewSpec defines the desired state of Crew.
type CrewSpec struct {
	// Sailors keyed by name, but name may be null.
	// +listType=map
	// +listMapKey=name
	// +optional
	Sailors []Sailor `json:"sailors,omitempty"`
}

// Sailor of a crew.
type Sailor struct {
	// +nullable
	Name *string `json:"name"`
	// +optional
	Rank string `json:"rank,omitempty"`
}

// Crew is the kind of this fixture.
// +kubebuilder:object:root=true
type Crew struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec CrewSpec `json:"spec,omitempty"`
}
