package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Base carries type markers that must survive embedding.
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:XValidation:rule="!has(self.name) || self.name != 'forbidden'",message="name must not be forbidden"
// +structType=atomic
type Base struct {
	// Name is optional.
	// +optional
	Name string `json:"name,omitempty"`

	// Size is shared by every embedder.
	// +kubebuilder:validation:Maximum=10
	Size int32 `json:"size"`
}

// Extra has limits of its own.
// +kubebuilder:validation:MaxProperties=5
// +kubebuilder:validation:XValidation:rule="!has(self.note) || size(self.note) < 20",message="note is short"
type Extra struct {
	// +optional
	Note string `json:"note,omitempty"`
}

// Derived embeds Base and adds markers: its MinProperties differs from Base's (both kept, in allOf), its
// rule joins Base's.
// +kubebuilder:validation:MinProperties=2
// +kubebuilder:validation:XValidation:rule="self.mode != ''",message="mode is set"
type Derived struct {
	Base `json:",inline"`

	// Mode is required.
	Mode string `json:"mode"`
}

// Both is the twin of the TypeScript intersection Base & Extra.
type Both struct {
	Base  `json:",inline"`
	Extra `json:",inline"`
}

// Chain embeds a type that itself embeds Base.
// +kubebuilder:validation:MaxProperties=4
type Chain struct {
	Derived `json:",inline"`

	// +optional
	Level int32 `json:"level,omitempty"`
}

// MergeSpec uses each merged type as a field.
type MergeSpec struct {
	// Derived extends Base.
	Derived Derived `json:"derived"`

	// Both is an intersection, with a field marker of its own.
	// +kubebuilder:validation:XValidation:rule="self.size > 0",message="size is positive"
	// +optional
	Both *Both `json:"both,omitempty"`

	// Chain extends twice.
	// +optional
	Chain *Chain `json:"chain,omitempty"`
}

// Merge holds merged types.
// +kubebuilder:object:root=true
type Merge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec MergeSpec `json:"spec"`
}
