// Package v1 is the nearest Go twin of test/parity/ts/divergent/nullable-set-items/v1, which opgen
// refuses: controller-gen cannot write nullable items (+nullable is for fields), so a list of pointers
// is as close as Go comes, and its items are written without nullable.
// +groupName=nullablesetitems.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ShelfSpec defines the desired state of Shelf.
type ShelfSpec struct {
	// Tags are distinct, and each may be null.
	// +listType=set
	// +optional
	Tags []*string `json:"tags,omitempty"`
}

// Shelf is the kind of this fixture.
// +kubebuilder:object:root=true
type Shelf struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec ShelfSpec `json:"spec,omitempty"`
}
