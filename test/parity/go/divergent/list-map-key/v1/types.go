// Package v1 is the Go twin of test/parity/ts/divergent/list-map-key/v1, which opgen refuses.
// +groupName=listmapkey.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RosterSpec defines the desired state of Roster.
type RosterSpec struct {
	// Members keyed by name, but name is optional.
	// +listType=map
	// +listMapKey=name
	// +optional
	Members []Member `json:"members,omitempty"`
}

// Member of a roster.
type Member struct {
	// +optional
	Name string `json:"name,omitempty"`
	// +optional
	Role string `json:"role,omitempty"`
}

// Roster is the kind of this fixture.
// +kubebuilder:object:root=true
type Roster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec RosterSpec `json:"spec,omitempty"`
}
