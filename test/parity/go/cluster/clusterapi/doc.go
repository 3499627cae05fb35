// Package clusterapi is the Go twin of test/parity/ts/cluster/clusterapi: its version comes from
// +versionName, and every field is optional unless marked.
// +groupName=cluster.parity.opgen.dev
// +versionName=v1beta1
// +kubebuilder:validation:Optional
package clusterapi
