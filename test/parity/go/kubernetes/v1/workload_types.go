package v1

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WorkloadSpec defines the desired state of Workload.
type WorkloadSpec struct {
	// Template describes the pods that will be created.
	Template corev1.PodTemplateSpec `json:"template"`

	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// Sidecars run next to the main container.
	// +optional
	// +listType=map
	// +listMapKey=name
	Sidecars []corev1.Container `json:"sidecars,omitempty"`

	// +optional
	Env []corev1.EnvVar `json:"env,omitempty"`

	// Tolerations, at most three.
	// +optional
	// +kubebuilder:validation:MaxItems=3
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`

	// Selector picks the pods.
	Selector *metav1.LabelSelector `json:"selector"`

	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`

	// Password to use.
	// +optional
	Password *corev1.SecretKeySelector `json:"password,omitempty"`

	// Strategy may be null.
	// +optional
	// +nullable
	Strategy *appsv1.DeploymentStrategy `json:"strategy,omitempty"`

	// +optional
	Ports []corev1.ServicePort `json:"ports,omitempty"`

	// +optional
	Owner *corev1.ObjectReference `json:"owner,omitempty"`

	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`

	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`

	// LivenessProbe checks the workload.
	// +optional
	LivenessProbe *corev1.Probe `json:"livenessProbe,omitempty"`

	// +optional
	SecurityContext *corev1.PodSecurityContext `json:"securityContext,omitempty"`

	// +optional
	ClaimTemplate *corev1.PersistentVolumeClaimSpec `json:"claimTemplate,omitempty"`

	// ChildMeta is client-node's ObjectMeta: an object, as controller-gen emits embedded ObjectMeta.
	// +optional
	ChildMeta *metav1.ObjectMeta `json:"childMeta,omitempty"`

	// +optional
	Owners []metav1.OwnerReference `json:"owners,omitempty"`

	// Series uses a model client-node names with its group.
	// +optional
	Series *eventsv1.EventSeries `json:"series,omitempty"`
}

// WorkloadStatus defines the observed state of Workload.
type WorkloadStatus struct {
	// Conditions typed with client-node's V1Condition in the TypeScript twin.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// LastState is the main container's last state.
	// +optional
	LastState *corev1.ContainerState `json:"lastState,omitempty"`
}

// Workload runs pods from a template.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec WorkloadSpec `json:"spec,omitempty"`
	// +optional
	Status WorkloadStatus `json:"status,omitempty"`
}
