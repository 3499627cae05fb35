// Package v1 is the Go twin of test/parity/ts/divergent/field-path/v1, which opgen refuses.
// +groupName=fieldpath.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Limits bound the gauge.
type Limits struct {
	// +optional
	Max *int32 `json:"max,omitempty"`
}

// GaugeSpec defines the desired state of Gauge.
type GaugeSpec struct {
	// Limits names a field that does not exist in its rule's fieldPath.
	// +kubebuilder:validation:XValidation:rule="!has(self.max) || self.max < 10",fieldPath=".maximum"
	// +optional
	Limits *Limits `json:"limits,omitempty"`
}

// Gauge is the kind of this fixture.
// +kubebuilder:object:root=true
type Gauge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec GaugeSpec `json:"spec,omitempty"`
}
