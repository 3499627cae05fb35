// Package v1 is the Go twin of test/parity/ts/divergent/cel-rule/v1, which opgen refuses.
// +groupName=celrule.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MeterSpec defines the desired state of Meter.
// +kubebuilder:validation:XValidation:rule="self.position > 'zero'",message="the meter reads something"
type MeterSpec struct {
	// Position is how far the meter reads something.
	// +optional
	Position int32 `json:"position,omitempty"`
}

// Meter is the kind of this fixture.
// +kubebuilder:object:root=true
type Meter struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec MeterSpec `json:"spec,omitempty"`
}
