// Package v1 holds the cases test/parity/migrate.test.ts migrates beside the public APIs: marker blocks,
// markers controller-gen ignores, a kind without +kubebuilder:object:root, Go integer kinds, []byte,
// Kubernetes types opgen has and those it reads from source, and a package of the module.
// +kubebuilder:object:generate=true
// +k8s:deepcopy-gen=package
// +groupName=edges.parity.opgen.dev
package v1
