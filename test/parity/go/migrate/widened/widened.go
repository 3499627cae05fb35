// Package widened holds a type the edges API uses.
package widened

// +kubebuilder:validation:Optional

// Settings has a package marker in a comment block of its own above it: controller-gen reads it as the
// package's, so every field of the package is optional by default.
type Settings struct {
	// Mode is optional by the package default.
	Mode string `json:"mode"`
}
