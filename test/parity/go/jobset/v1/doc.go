// Package v1 is a JobSet-like API for test/parity/migrate.test.ts, generated with
// crd:generateEmbeddedObjectMeta=true: Kubernetes templates (JobTemplateSpec, PodTemplateSpec,
// PersistentVolumeClaim) whose metadata the option expands, a CEL rule reading t.metadata.namespace, a
// marker in a /* */ comment (controller-gen reads markers only from // comments), and other generators'
// markers (client-gen's +groupGoName and +genclient) that controller-gen ignores.
// +kubebuilder:object:generate=true
// +groupName=jobset.parity.opgen.dev
// +groupGoName=JobSet
package v1
