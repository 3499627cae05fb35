// Package v1 is the Go twin of test/parity/ts/kubernetes/v1: Kubernetes' own types in a Spec.
// +groupName=kubernetes.parity.opgen.dev
package v1
