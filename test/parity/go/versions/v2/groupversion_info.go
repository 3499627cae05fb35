// Package v2 is the Go twin of test/parity/ts/versions/v2.
// +groupName=versions.parity.opgen.dev
package v2
