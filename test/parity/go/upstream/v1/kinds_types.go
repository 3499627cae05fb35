package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LanternSpec is what a Lantern holds.
type LanternSpec struct {
	// Colour of the light.
	// +optional
	Colour string `json:"colour,omitempty"`
}

// Lantern is a kind without +kubebuilder:object:root: its apiVersion, kind and metadata make it one, as
// embedding TypeMeta and ObjectMeta does in Go (many public APIs never write the marker).
type Lantern struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec LanternSpec `json:"spec,omitempty"`
}

// LanternList is no kind: its metadata is ListMeta.
type LanternList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Lantern `json:"items"`
}

// Beacon extends the runtime's object base type and is a kind too.
type Beacon struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec LanternSpec `json:"spec,omitempty"`
}

// Ledger declares metadata non-optional: controller-gen lists it in required.
type Ledger struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`

	Spec LanternSpec `json:"spec"`
}
