// Package v1 contains API Schema definitions for the batch v1 API group: the kubebuilder project
// test/parity/migrate-project.test.ts migrates with `opgen migrate project`.
// +kubebuilder:object:generate=true
// +groupName=batch.parity.opgen.dev
package v1
