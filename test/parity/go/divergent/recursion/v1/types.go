// Package v1 is the Go twin of test/parity/ts/divergent/recursion/v1, which opgen refuses.
// +groupName=recursion.divergent.parity.opgen.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TreeSpec defines the desired state of Tree.
type TreeSpec struct {
	// Root node of the tree.
	// +optional
	Root *Node `json:"root,omitempty"`
}

// Node is a tree node.
type Node struct {
	// +optional
	Value string `json:"value,omitempty"`
	// +optional
	Children []Node `json:"children,omitempty"`
}

// Tree is the kind of this fixture.
// +kubebuilder:object:root=true
type Tree struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec TreeSpec `json:"spec,omitempty"`
}
