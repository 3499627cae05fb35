package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Dinghy exists in one version only, which is therefore its storage version.
// +kubebuilder:object:root=true
type Dinghy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec DinghySpec `json:"spec,omitempty"`
}

// DinghySpec defines the desired state of Dinghy.
type DinghySpec struct {
	// Oars on board.
	Oars int32 `json:"oars"`
}
