package v1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"opgen.dev/parity/migrate/shared"
	"opgen.dev/parity/migrate/widened"
)

// Phase is where an Edge is in its life.
// +k8s:enum
type Phase string

const (
	// PhaseRunning: running.
	PhaseRunning Phase = "Running"
	PhaseDone    Phase = "Done"
)

// +kubebuilder:validation:MinLength=1

// Name is separated from its marker block by a blank line.
type Name string

// Tags is a named list.
// +kubebuilder:validation:MaxItems=8
type Tags []string

type (
	// Grouped is declared in a parenthesized type block.
	// +kubebuilder:validation:Pattern=`^[a-z]+$`
	Grouped string
)

// EdgeSpec holds the cases.
type EdgeSpec struct {
	// +kubebuilder:validation:Minimum=1

	// Replicas has its marker block above the doc, a blank line between.
	Replicas *int32 `json:"replicas,omitempty"`

	Small uint16 `json:"small"` // +kubebuilder:validation:Maximum=3 (a trailing comment holds no marker)

	// +optional
	Big uint64 `json:"big,omitempty"`

	// +optional
	Counter int `json:"counter,omitempty"`

	// Data is bytes.
	// +optional
	Data []byte `json:"data,omitempty"`

	// +optional.
	// Typo: the marker above ends with a dot, controller-gen ignores it, so this field is required.
	Typo string `json:"typo"`

	// Unknown carries a marker controller-gen does not define.
	// +kubebuilder:validation:OneOf=a,b
	// +optional
	Unknown string `json:"unknown,omitempty"`

	/* Block is documented
	   with a block comment. */
	// +optional
	Block string `json:"block,omitempty"`

	// Cron runs on */5 * * * * (a JSDoc block would end at the star and slash).
	// +optional
	Cron string `json:"cron,omitempty"`

	Hidden string `json:"-"`

	// Notes has an indented TODO that controller-gen keeps.
	//   TODO: kept, it is indented.
	// TODO: dropped.
	// +optional
	Notes string `json:"notes,omitempty"`

	// Phase of the edge.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// +required
	Name Name `json:"name,omitempty"`

	// +optional
	Tags Tags `json:"tags,omitempty"`

	// +optional
	Grouped Grouped `json:"grouped,omitempty"`

	// Resources uses a core type opgen has.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`

	// PullPolicy is a core named string, read from source.
	// +optional
	PullPolicy corev1.PullPolicy `json:"pullPolicy,omitempty"`

	// Limits is a core named map, read from source.
	// +optional
	Limits corev1.ResourceList `json:"limits,omitempty"`

	// +optional
	Size *resource.Quantity `json:"size,omitempty"`

	// +optional
	Port *intstr.IntOrString `json:"port,omitempty"`

	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// Records is a map of a type named Record.
	// +optional
	Records map[string]Record `json:"records,omitempty"`

	// Labels is a map.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	shared.Common `json:",inline"`

	// Ref is a type of another package of the module.
	// +optional
	Ref *shared.Ref `json:"ref,omitempty"`

	// Settings come from a package made optional by a marker above one of its types.
	// +optional
	Settings *widened.Settings `json:"settings,omitempty"`

	// +kubebuilder:validation:XValidation:rule="has(self.a) || has(self.b)",message="a or b"
	// Nested has a rule on the field and one on its type.
	// +optional
	Nested *Nested `json:"nested,omitempty"`
}

// Nested has two optional fields.
// +kubebuilder:validation:XValidation:rule="!has(self.a) || self.a != 'x'",message="not x"
type Nested struct {
	// +optional
	A string `json:"a,omitempty"`
	// +optional
	B string `json:"b,omitempty"`
}

// Record is named like TypeScript's Record: maps in this package cannot be written Record<string, T>.
type Record struct {
	// +optional
	Value string `json:"value,omitempty"`
}

// EdgeStatus is what was observed.
type EdgeStatus struct {
	// Conditions are the standard ones.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// +optional
	Started *metav1.Time `json:"started,omitempty"`
}

// +genclient
// +genclient:nonNamespaced
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=edg
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.spec.phase`

// Edge has no +kubebuilder:object:root: controller-gen finds it by its embedded TypeMeta and ObjectMeta.
type Edge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec EdgeSpec `json:"spec"`
	// +optional
	Status EdgeStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// EdgeList lists Edges.
type EdgeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Edge `json:"items"`
}

// NotAKind has the root marker but no ObjectMeta: controller-gen makes no CRD of it.
// +kubebuilder:object:root=true
type NotAKind struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	Value string `json:"value,omitempty"`
}
