// Package v1 is the Go twin of test/parity/ts/divergent/scale-path/v1, which opgen refuses.
// +groupName=scalepath.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PumpSpec defines the desired state of Pump.
type PumpSpec struct {
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
}

// Pump is the kind of this fixture.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:scale:specpath=.replicas,statuspath=.status.replicas
type Pump struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec PumpSpec `json:"spec,omitempty"`
}
