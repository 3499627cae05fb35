// Package shared holds types the edges API uses from another package of its module; its fields are
// optional unless marked, by the package marker below.
// +kubebuilder:validation:Optional
package shared

// Common is embedded inline.
type Common struct {
	// Owner is optional: the package says so.
	Owner string `json:"owner"`
}

// Ref points at something.
type Ref struct {
	// Name is optional by the package default.
	Name string `json:"name"`
	// Kind is required by its marker.
	// +required
	Kind string `json:"kind"`
}
