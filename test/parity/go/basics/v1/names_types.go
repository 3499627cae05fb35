package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Greeting holds a line of text.
type Greeting struct {
	// Plain line comments above a field describe it when there is no doc block.
	// They may span lines.
	// +optional
	Text string `json:"text,omitempty"`
}

// Title is a display title.
type Title struct {
	// +optional
	Value string `json:"value,omitempty"`
}

// PersonSpec joins two structs and documents a code block.
//
// Example:
//
//	kind: SalesPerson
//	spec:
//	  text: hello
//
// The last paragraph.
type PersonSpec struct {
	Greeting `json:",inline"`
	Title    `json:",inline"`

	// Region is required.
	Region string `json:"region"`
}

// SalesPerson is pluralised by flect's dictionary: salespeople.
// +kubebuilder:object:root=true
type SalesPerson struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec PersonSpec `json:"spec,omitempty"`
}

// Octopus is pluralised as flect v1.0.3 spells it.
// +kubebuilder:object:root=true
type Octopus struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec Greeting `json:"spec,omitempty"`
}

// Cactus overrides its plural and singular.
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=cactuses,singular=cactus
type Cactus struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec Greeting `json:"spec,omitempty"`
}
