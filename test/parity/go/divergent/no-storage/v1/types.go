// Package v1 is the Go twin of test/parity/ts/divergent/no-storage/v1: two versions, neither marked as storage.
// +groupName=nostorage.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Sloop is served in two versions, and neither is the storage version.
// +kubebuilder:object:root=true
type Sloop struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec SloopSpec `json:"spec,omitempty"`
}

// SloopSpec defines the desired state of Sloop.
type SloopSpec struct {
	// +optional
	Sails int32 `json:"sails,omitempty"`
}
