package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SieveSpec uses apimachinery's types as public APIs do.
type SieveSpec struct {
	// Which pods to sift.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// The same type, imported from the runtime's root.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
	// Who owns the result.
	// +optional
	Owner *metav1.OwnerReference `json:"owner,omitempty"`
	// Requirements on their own.
	// +optional
	Requirements []metav1.LabelSelectorRequirement `json:"requirements,omitempty"`
}

// Sieve selects objects by label.
type Sieve struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec SieveSpec `json:"spec,omitempty"`
}
