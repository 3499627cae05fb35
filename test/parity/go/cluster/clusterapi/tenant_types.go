package clusterapi

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TenantSpec defines the desired state of Tenant.
type TenantSpec struct {
	// DisplayName is optional: the package is optional by default.
	DisplayName string `json:"displayName"`

	// Owner is required despite the package default.
	// +required
	Owner string `json:"owner"`

	// Region is required through the field-level deprecated marker.
	// +kubebuilder:validation:Required
	Region string `json:"region"`

	// Quota in namespaces.
	// +kubebuilder:validation:Minimum=1
	Quota int32 `json:"quota"`

	// Namespaces the tenant owns.
	// +listType=set
	Namespaces []string `json:"namespaces"`
}

// TenantStatus defines the observed state of Tenant.
type TenantStatus struct {
	// Phase of the tenant.
	// +kubebuilder:validation:Enum=Pending;Active;Terminating
	Phase string `json:"phase"`
}

// Tenant is a cluster-scoped kind.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,path=tenants,shortName=tn
// +kubebuilder:printcolumn:name="Owner",type=string,JSONPath=".spec.owner"
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=".status.phase"
type Tenant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TenantSpec   `json:"spec,omitempty"`
	Status TenantStatus `json:"status,omitempty"`
}

// TenantList contains a list of Tenant.
// +kubebuilder:object:root=true
type TenantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Tenant `json:"items"`
}
