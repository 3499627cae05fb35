// Package v1alpha1 is the Go twin of test/parity/ts/versions/v1alpha1.
// +groupName=versions.parity.opgen.dev
package v1alpha1
