// Package v3 is the Go twin of test/parity/ts/versions/v3.
// +groupName=versions.parity.opgen.dev
package v3
