// Package internal is skipped: +kubebuilder:skip keeps its kinds out of the CRDs.
// +groupName=cluster.parity.opgen.dev
// +kubebuilder:skip
package internal

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Secretive would be a kind, but its package is skipped.
// +kubebuilder:object:root=true
type Secretive struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec SecretiveSpec `json:"spec,omitempty"`
}

// SecretiveSpec defines the desired state of Secretive.
type SecretiveSpec struct {
	Hidden string `json:"hidden"`
}
