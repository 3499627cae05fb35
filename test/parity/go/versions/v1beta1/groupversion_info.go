// Package v1beta1 is the Go twin of test/parity/ts/versions/v1beta1.
// +groupName=versions.parity.opgen.dev
package v1beta1
