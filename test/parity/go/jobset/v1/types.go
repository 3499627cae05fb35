package v1

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReplicatedJob is a Job template run as several copies.
type ReplicatedJob struct {
	// Name of the replicated job.
	Name string `json:"name"`

	// Template of each Job.
	Template batchv1.JobTemplateSpec `json:"template"`

	// +optional
	Replicas int32 `json:"replicas,omitempty"`
}

// JobSetSpec is the desired state.
type JobSetSpec struct {
	// ReplicatedJobs run in the namespace of the JobSet. The rules read the template's metadata, which
	// only crd:generateEmbeddedObjectMeta gives properties.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:XValidation:rule="self.all(t, !has(t.template.metadata.namespace))",message="a replicated job cannot set its namespace"
	// +kubebuilder:validation:XValidation:rule="self.all(t, !has(t.template.metadata.labels) || !('jobset.parity.opgen.dev/name' in t.template.metadata.labels))",message="the JobSet sets this label"
	// +optional
	ReplicatedJobs []ReplicatedJob `json:"replicatedJobs,omitempty"`

	// Pod is a standalone pod template.
	// +optional
	Pod *corev1.PodTemplateSpec `json:"pod,omitempty"`

	// VolumeClaimTemplates are claims made for each job.
	// +kubebuilder:validation:MaxItems=8
	// +optional
	VolumeClaimTemplates []corev1.PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty"`

	/*
		Provider names the backend.
		+kubebuilder:validation:Enum=DSM
	*/
	// +optional
	Provider string `json:"provider,omitempty"`
}

// JobSetStatus is the observed state.
type JobSetStatus struct {
	// +optional
	Restarts int32 `json:"restarts,omitempty"`
}

// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// JobSet runs groups of Jobs.
type JobSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec JobSetSpec `json:"spec,omitempty"`
	// +optional
	Status JobSetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// JobSetList lists JobSets.
type JobSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []JobSet `json:"items"`
}
