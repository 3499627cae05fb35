package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FrigateSpec defines the desired state of Frigate in v1beta1.
type FrigateSpec struct {
	// Foo is in every version.
	Foo string `json:"foo"`

	// Bar arrived in v1beta1.
	// +optional
	Bar int32 `json:"bar,omitempty"`
}

// FrigateStatus defines the observed state of Frigate.
type FrigateStatus struct {
	// +optional
	Ready bool `json:"ready,omitempty"`
}

// Frigate is served in several versions.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=fg,categories=parity
// +kubebuilder:printcolumn:name="Foo",type=string,JSONPath=`.spec.foo`
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Bar",type=integer,JSONPath=`.spec.bar`
type Frigate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec FrigateSpec `json:"spec,omitempty"`
	// +optional
	Status FrigateStatus `json:"status,omitempty"`
}

// FrigateList contains a list of Frigate.
// +kubebuilder:object:root=true
type FrigateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Frigate `json:"items"`
}
