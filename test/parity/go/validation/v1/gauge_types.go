package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Percent is a share of a whole.
// +kubebuilder:validation:Minimum=0
// +kubebuilder:validation:Maximum=100
// +kubebuilder:validation:XValidation:rule="self >= 0",message="must not be negative"
type Percent int32

// Hostname is a DNS name.
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern=`^[a-z0-9.-]+$`
type Hostname string

// Phase is where a gauge is in its life.
// +k8s:enum
type Phase string

const (
	PhaseRunning Phase = "Running"
	PhasePending Phase = "Pending"
	PhaseFailed  Phase = "Failed"
)

// Listener is one port a gauge listens on.
type Listener struct {
	// Name of the listener.
	Name string `json:"name"`
	// Protocol spoken.
	// +kubebuilder:default=TCP
	// +kubebuilder:validation:Enum=TCP;UDP
	Protocol string `json:"protocol"`
	// +optional
	Port int32 `json:"port,omitempty"`
}

// Extra carries settings the operator does not know yet.
type Extra struct {
	// Known is the one known setting.
	// +optional
	Known string `json:"known,omitempty"`
}

// Window is a time window.
// +kubebuilder:validation:MinProperties=1
// +structType=atomic
type Window struct {
	// +optional
	Start string `json:"start,omitempty"`
	// +optional
	End string `json:"end,omitempty"`
}

// Names is a set of names.
// +listType=set
// +kubebuilder:validation:MaxItems=4
// +kubebuilder:validation:items:MinLength=1
type Names []string

// Settings is a map replaced as a whole.
// +mapType=atomic
// +kubebuilder:validation:MaxProperties=8
type Settings map[string]string

// Sheet carries a title, external docs and unknown fields at the type level.
// +kubebuilder:title="Sheet"
// +kubebuilder:externalDocs:url="https://example.com/docs/sheets"
// +kubebuilder:pruning:PreserveUnknownFields
type Sheet struct {
	// +optional
	Rows int32 `json:"rows,omitempty"`
}

// Tuning groups settings that default as a whole.
type Tuning struct {
	// +optional
	// +kubebuilder:default=2
	Level int32 `json:"level,omitempty"`
	// +optional
	// +kubebuilder:default={mode: auto, steps: "1,2"}
	Extra map[string]string `json:"extra,omitempty"`
}

// Only has one allowed value.
// +kubebuilder:validation:Enum=Only
type Only string

// GaugeSpec defines the desired state of Gauge.
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas",reason=FieldValueInvalid,fieldPath=".minReplicas"
// +kubebuilder:validation:AtMostOneOf=left;right
// +kubebuilder:validation:ExactlyOneOf=red;blue
// +kubebuilder:validation:AtLeastOneOf=north;south
type GaugeSpec struct {
	// Retries is a plain Go int: an integer without a format.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Retries int `json:"retries,omitempty"`
	// Phase is where the gauge is.
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// Aliases maps a hostname to another; its keys are a validated string type.
	// +kubebuilder:validation:MaxProperties=8
	// +optional
	Aliases map[Hostname]string `json:"aliases,omitempty"`
	// Level is even, from 0 up to (not including) 10.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:validation:ExclusiveMaximum=true
	// +kubebuilder:validation:MultipleOf=2
	Level int32 `json:"level"`

	// +kubebuilder:validation:Minimum=-1.5
	// +kubebuilder:validation:ExclusiveMinimum=true
	// +kubebuilder:validation:MultipleOf=0.5
	// +optional
	Ratio float64 `json:"ratio,omitempty"`

	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// +optional
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=5
	// +kubebuilder:validation:UniqueItems=false
	// +kubebuilder:validation:items:MinLength=2
	// +kubebuilder:validation:items:MaxLength=20
	// +kubebuilder:validation:items:Pattern=`^[a-z]+$`
	// +listType=set
	Tags []string `json:"tags,omitempty"`

	// +optional
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=9
	// +kubebuilder:validation:items:ExclusiveMinimum=false
	// +kubebuilder:validation:items:MultipleOf=3
	// +kubebuilder:validation:items:Enum=3;6;9
	// +kubebuilder:validation:items:XValidation:rule="self != 6",message="six is unlucky"
	// +listType=atomic
	Digits []int32 `json:"digits,omitempty"`

	// +optional
	// +kubebuilder:validation:items:MinProperties=1
	// +kubebuilder:validation:items:MaxProperties=2
	Selectors []map[string]string `json:"selectors,omitempty"`

	// +optional
	// +kubebuilder:validation:items:MinItems=1
	// +kubebuilder:validation:items:MaxItems=3
	Matrix [][]int32 `json:"matrix,omitempty"`

	// +optional
	// +kubebuilder:validation:items:Format=date
	// +kubebuilder:validation:items:Type=string
	Dates []string `json:"dates,omitempty"`

	// +optional
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=3
	// +mapType=atomic
	Labels map[string]string `json:"labels,omitempty"`

	// +optional
	// +mapType=granular
	Annotations map[string]string `json:"annotations,omitempty"`

	// +optional
	// +kubebuilder:validation:Enum=1;2;3
	Tier int32 `json:"tier,omitempty"`

	// +optional
	// +kubebuilder:validation:Enum=on;off;"auto"
	Switch string `json:"switch,omitempty"`

	// +optional
	// +kubebuilder:validation:Format=email
	Contact string `json:"contact,omitempty"`

	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date
	Day string `json:"day,omitempty"`

	// Budget is a count or a percentage.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:Pattern=`^[0-9]+%?$`
	Budget *intstr.IntOrString `json:"budget,omitempty"`

	// +optional
	// +kubebuilder:validation:XEmbeddedResource
	// +kubebuilder:pruning:PreserveUnknownFields
	Embedded runtime.RawExtension `json:"embedded,omitempty"`

	// +optional
	// +kubebuilder:validation:EmbeddedResource
	// +kubebuilder:validation:XPreserveUnknownFields
	Manifest runtime.RawExtension `json:"manifest,omitempty"`

	// Extra keeps unknown fields.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	Extra Extra `json:"extra,omitempty"`

	// Blob is not inspected.
	// +optional
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Blob runtime.RawExtension `json:"blob,omitempty"`

	// +optional
	// +kubebuilder:default=3
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:example=20
	MaxReplicas *int32 `json:"maxReplicas,omitempty"`

	// +optional
	// +kubebuilder:default=fast
	// +kubebuilder:title="Gear"
	Gear string `json:"gear,omitempty"`

	// +optional
	// +kubebuilder:default={a,b}
	Letters []string `json:"letters,omitempty"`

	// +optional
	// +kubebuilder:default={}
	Empties []string `json:"empties,omitempty"`

	// +optional
	// +kubebuilder:default={tier: gold, zone: "eu-1"}
	Placement map[string]string `json:"placement,omitempty"`

	// +optional
	// +default="json"
	Encoding string `json:"encoding,omitempty"`

	// +optional
	// +default=["x","y"]
	Axes []string `json:"axes,omitempty"`

	// +optional
	// +default=true
	// +kubebuilder:default=false
	Verbose *bool `json:"verbose,omitempty"`

	// +optional
	// +kubebuilder:example={host: example.com}
	Example map[string]string `json:"example,omitempty"`

	// +optional
	// +nullable
	Nullables []string `json:"nullables,omitempty"`

	// Listeners keyed by name and protocol.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +listMapKey=protocol
	Listeners []Listener `json:"listeners,omitempty"`

	// +optional
	// +structType=atomic
	Frozen *Extra `json:"frozen,omitempty"`

	// +optional
	Window *Window `json:"window,omitempty"`

	// ClassName cannot change.
	// +k8s:immutable
	ClassName string `json:"className"`

	// Zone cannot change once set.
	// +optional
	// +k8s:immutable
	Zone string `json:"zone,omitempty"`

	// +optional
	// +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || self >= oldSelf.value()",message="may only grow",optionalOldSelf=true
	// +kubebuilder:validation:XValidation:rule="self <= 1000",messageExpression="self > 1000 ? 'capacity is over 1000' : 'capacity is invalid'",reason=FieldValueForbidden
	Capacity int32 `json:"capacity,omitempty"`

	// Share overrides its type's maximum.
	// +optional
	// +kubebuilder:validation:Maximum=50
	// +kubebuilder:validation:XValidation:rule="self % 5 == 0",message="must be a multiple of five"
	Share Percent `json:"share,omitempty"`

	// +optional
	Floor Percent `json:"floor,omitempty"`

	// +optional
	// +kubebuilder:validation:MinLength=3
	Host Hostname `json:"host,omitempty"`

	// +optional
	Left string `json:"left,omitempty"`
	// +optional
	Right string `json:"right,omitempty"`
	// +optional
	Red string `json:"red,omitempty"`
	// +optional
	Blue string `json:"blue,omitempty"`
	// +optional
	North string `json:"north,omitempty"`
	// +optional
	South string `json:"south,omitempty"`

	// Tuning defaults to an empty object so its fields' defaults apply.
	// +optional
	// +kubebuilder:default={}
	Tuning *Tuning `json:"tuning,omitempty"`

	// +optional
	// +kubebuilder:default={level: 7}
	Preset *Tuning `json:"preset,omitempty"`

	// Routes by name.
	// +optional
	Routes map[string]Listener `json:"routes,omitempty"`

	// +optional
	Groups map[string][]string `json:"groups,omitempty"`

	// +optional
	// +kubebuilder:validation:Pattern="^a,b\\d+$"
	Quoted string `json:"quoted,omitempty"`

	// +optional
	// +kubebuilder:validation:Enum={"a,b",c}
	Mixed string `json:"mixed,omitempty"`

	// +optional
	Maybe *string `json:"maybe,omitempty"`

	// +optional
	Single Only `json:"single,omitempty"`

	// +optional
	// +kubebuilder:example={a,b}
	Examples []string `json:"examples,omitempty"`

	// +optional
	Names Names `json:"names,omitempty"`

	// +optional
	Settings Settings `json:"settings,omitempty"`

	// +optional
	Sheet *Sheet `json:"sheet,omitempty"`

	// +optional
	// +kubebuilder:validation:items:XEmbeddedResource
	// +kubebuilder:validation:items:XPreserveUnknownFields
	// +kubebuilder:validation:MaxItems=4
	Objects []runtime.RawExtension `json:"objects,omitempty"`

	// +optional
	// +kubebuilder:validation:items:ExclusiveMaximum=true
	// +kubebuilder:validation:items:Maximum=100
	// +kubebuilder:validation:MaxItems=4
	Limits []int32 `json:"limits,omitempty"`

	// +optional
	// +kubebuilder:validation:items:XIntOrString
	// +kubebuilder:validation:items:MaxLength=4
	// +kubebuilder:validation:MaxItems=4
	Budgets []intstr.IntOrString `json:"budgets,omitempty"`

	// +optional
	// +kubebuilder:externalDocs:url="https://example.com/docs/gauges",description="How gauges are read"
	Reading string `json:"reading,omitempty"`
}

// Gauge measures things, with every validation marker.
// +kubebuilder:object:root=true
type Gauge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GaugeSpec `json:"spec"`
}
