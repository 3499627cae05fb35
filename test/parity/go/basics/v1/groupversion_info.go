// Package v1 is the Go twin of test/parity/ts/basics/v1.
// +groupName=basics.parity.opgen.dev
package v1
