// Package v1 is the Go twin of test/parity/ts/merging/v1.
// +groupName=merging.parity.opgen.dev
package v1
