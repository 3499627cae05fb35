package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Shade is a string type whose values are its constants below.
// +k8s:enum
type Shade string

const ShadeWarm Shade = "Warm"
const ShadeCold Shade = "Cold"

// Wick is a small struct.
type Wick struct {
	// Length of the wick.
	// +optional
	Length string `json:"length,omitempty"`
}

// Glass says how the lamp is closed.
// +kubebuilder:title="Glass"
// +kubebuilder:externalDocs:url="https://example.com/glass",description="About glass"
// +kubebuilder:validation:AtMostOneOf=clear;frosted
// +kubebuilder:validation:ExactlyOneOf=round;square
// +kubebuilder:validation:AtLeastOneOf=thin;thick
type Glass struct {
	Clear   *bool `json:"clear,omitempty"`
	Frosted *bool `json:"frosted,omitempty"`
	Round   *bool `json:"round,omitempty"`
	Square  *bool `json:"square,omitempty"`
	Thin    *bool `json:"thin,omitempty"`
	Thick   *bool `json:"thick,omitempty"`
}

// LampSpec carries the markers of controller-tools v0.17 to v0.23.
type LampSpec struct {
	// Declarative defaulting's reference to a Go constant writes no default.
	// +default=ref(DefaultShade)
	// +optional
	Shade Shade `json:"shade,omitempty"`
	// A null default writes none either.
	// +default=null
	// +optional
	None string `json:"none,omitempty"`
	// A JSON default.
	// +default="bright"
	// +optional
	Mode string `json:"mode,omitempty"`
	// Required and not empty.
	// +k8s:required
	Name string `json:"name"`
	// An explicit MinLength wins over +k8s:required's 1.
	// +k8s:required
	// +kubebuilder:validation:MinLength=3
	Code string `json:"code"`
	// +k8s:required
	Bulbs []string `json:"bulbs"`
	// +k8s:required
	Labels map[string]string `json:"labels"`
	// +k8s:required
	Wick Wick `json:"wick"`
	// A Go struct type: controller-gen sees a bare reference.
	// +k8s:required
	Lit metav1.Time `json:"lit"`
	// +k8s:required
	Power resource.Quantity `json:"power"`
	// Optional despite no question mark.
	// +k8s:optional
	Note string `json:"note"`
	// +k8s:maxItems=4
	// +optional
	Spares []string `json:"spares,omitempty"`
	// +k8s:minimum=1
	// +k8s:maximum=10
	// +optional
	Brightness float64 `json:"brightness,omitempty"`
	// A title and external docs on a field.
	// +kubebuilder:title="Watts"
	// +kubebuilder:externalDocs:url="https://example.com/watts"
	// +optional
	Watts float64 `json:"watts,omitempty"`
	// A transition rule that also runs when there is no old value.
	// +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || self >= oldSelf.value()",message="may only grow",optionalOldSelf=true
	// +optional
	Hours float64 `json:"hours,omitempty"`
	// +optional
	Glass *Glass `json:"glass,omitempty"`
}

// Lamp is a kind with selectable fields.
// +kubebuilder:selectablefield:JSONPath=`.spec.mode`
// +kubebuilder:selectablefield:JSONPath=".spec.name"
type Lamp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec LampSpec `json:"spec,omitempty"`
}
