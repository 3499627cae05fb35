// Package v1 is the Go twin of test/parity/ts/validation/v1.
// +groupName=validation.parity.opgen.dev
package v1
