package v1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Speed says how fast a widget spins.
// +kubebuilder:validation:Enum=Slow;Fast;"Very Fast"
type Speed string

// Color is a widget's paint.
// +kubebuilder:validation:Enum=red;green;blue
type Color string

// Port is a TCP port.
// +kubebuilder:validation:Minimum=1
// +kubebuilder:validation:Maximum=65535
type Port int32

// Endpoint is where a widget listens.
type Endpoint struct {
	// Host name or IP address.
	Host string `json:"host"`

	// +optional
	Port Port `json:"port,omitempty"`

	// Path, if any.
	// +optional
	Path *string `json:"path,omitempty"`
}

// Target is another name for an endpoint. A TypeScript type alias is the twin of a Go defined type
// (not a Go alias): its own doc comment and markers apply.
type Target Endpoint

// CommonSpec holds fields shared by specs.
type CommonSpec struct {
	// Paused stops reconciliation.
	// +optional
	Paused bool `json:"paused,omitempty"`

	// Owner is who runs the widget.
	Owner string `json:"owner"`
}

// WidgetSpec defines the desired state of Widget.
//
// It has two paragraphs.
// TODO: this line is dropped.
// ---
// This line is not part of the description.
type WidgetSpec struct {
	CommonSpec `json:",inline"`

	// Replicas is the desired number of widgets.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Size in bytes.
	Size int64 `json:"size"`

	// Ratio is a float, which needs crd:allowDangerousTypes=true in controller-gen.
	// +optional
	Ratio float64 `json:"ratio,omitempty"`

	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// +optional
	Speed Speed `json:"speed,omitempty"`

	// Color of the widget.
	Color Color `json:"color"`

	// Tags are free-form.
	// +optional
	Tags []string `json:"tags,omitempty"`

	// +optional
	Ports []Port `json:"ports,omitempty"`

	// Aliases are read-only names.
	// +optional
	Aliases []string `json:"aliases,omitempty"`

	// Labels to copy onto children.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// Limits per queue.
	// +optional
	Limits map[string]int32 `json:"limits,omitempty"`

	// +optional
	Endpoints []Endpoint `json:"endpoints,omitempty"`

	// Primary is the main endpoint.
	Primary Endpoint `json:"primary"`

	// +optional
	Target *Target `json:"target,omitempty"`

	// Nickname may be null.
	// +nullable
	// +optional
	Nickname *string `json:"nickname,omitempty"`

	// Backup may be null.
	// +nullable
	// +optional
	Backup *Endpoint `json:"backup,omitempty"`

	// Note is optional although it has no question mark.
	// +optional
	Note string `json:"note"`

	// Mode is required although it has a question mark.
	// +required
	Mode string `json:"mode,omitempty"`

	// Legacy is optional through the deprecated marker.
	// +kubebuilder:validation:Optional
	Legacy string `json:"legacy"`

	// Strict is required through the deprecated marker.
	// +kubebuilder:validation:Required
	Strict string `json:"strict,omitempty"`

	// Both says +optional and +kubebuilder:validation:Required; the latter wins.
	// +optional
	// +kubebuilder:validation:Required
	Both string `json:"both,omitempty"`

	// Either says +required and +kubebuilder:validation:Optional; the latter wins.
	// +required
	// +kubebuilder:validation:Optional
	Either string `json:"either"`

	// StartedAt is a timestamp.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`

	// +optional
	ObservedAt *metav1.MicroTime `json:"observedAt,omitempty"`

	// Timeout is a Go duration.
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// Memory is a resource quantity.
	// +optional
	Memory *resource.Quantity `json:"memory,omitempty"`

	// MaxUnavailable is a number or a percentage.
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// Extension is any embedded object.
	// +optional
	Extension *runtime.RawExtension `json:"extension,omitempty"`

	// Config is arbitrary JSON.
	// +optional
	Config *apiextensionsv1.JSON `json:"config,omitempty"`

	// TemplateMeta is metadata for objects the widget creates.
	// +optional
	TemplateMeta metav1.ObjectMeta `json:"templateMeta,omitempty"`
}

// WidgetStatus defines the observed state of Widget.
type WidgetStatus struct {
	// conditions represent the current state of the Widget.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ReadyReplicas counts widgets that are ready.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// Selector for the scale subresource.
	// +optional
	Selector string `json:"selector,omitempty"`
}

// Widget is the Schema for the widgets API.
// It spins.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.readyReplicas,selectorpath=.status.selector
// +kubebuilder:resource:path=widgets,singular=widget,shortName={wg,wdg},categories={all,parity},scope=Namespaced
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`,description="Desired replicas"
// +kubebuilder:printcolumn:name="Speed",type=string,JSONPath=".spec.speed",priority=1
// +kubebuilder:printcolumn:name="Started",type=string,format=date-time,JSONPath=".spec.startedAt"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
// +kubebuilder:selectablefield:JSONPath=`.spec.color`
// +kubebuilder:metadata:annotations="parity.opgen.dev/fixture=basics",labels="parity.opgen.dev/suite=generators"
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec defines the desired state of Widget.
	// +optional
	Spec WidgetSpec `json:"spec,omitempty"`

	// +optional
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetList contains a list of Widget.
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// +kubebuilder:object:root=true
type SpeedPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec SpeedPolicySpec `json:"spec,omitempty"`
}

type SpeedPolicySpec struct {
	// Limit is the top speed.
	Limit Speed `json:"limit"`
}
