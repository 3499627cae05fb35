// Package v1 is the Go twin of test/parity/ts/divergent/optional-on-type/v1, which opgen refuses.
// +groupName=optionalontype.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DrawerSpec defines the desired state of Drawer. The marker below stands in the type's own comment,
// where controller-gen does not read it: the field stays required.
// +kubebuilder:validation:Optional
type DrawerSpec struct {
	// Label is required unless the marker above takes effect.
	Label string `json:"label"`
}

// Drawer is the kind of this fixture.
// +kubebuilder:object:root=true
type Drawer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec DrawerSpec `json:"spec,omitempty"`
}
