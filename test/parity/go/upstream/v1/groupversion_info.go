// Package v1 is the Go twin of test/parity/ts/upstream/v1: what public Go APIs write that our own tests did not.
// +groupName=upstream.parity.opgen.dev
package v1
