package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// groupVersion matches bench/runtime/widget-crd.yaml.
var groupVersion = schema.GroupVersion{Group: "bench.opgen.dev", Version: "v1"}

// WidgetSpec is the data the operator copies into the Widget's ConfigMap.
type WidgetSpec struct {
	Data map[string]string `json:"data,omitempty"`
}

// WidgetStatus carries the Ready condition the operator sets.
type WidgetStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Widget is the benchmark's custom resource, typed as kubebuilder would generate it.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// The deep copies controller-gen would write for these types.

func (in *Widget) DeepCopyInto(out *Widget) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Spec.Data != nil {
		out.Spec.Data = make(map[string]string, len(in.Spec.Data))
		for k, v := range in.Spec.Data {
			out.Spec.Data[k] = v
		}
	}
	if in.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(in.Status.Conditions))
		for i := range in.Status.Conditions {
			in.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
}

func (in *Widget) DeepCopy() *Widget {
	if in == nil {
		return nil
	}
	out := new(Widget)
	in.DeepCopyInto(out)
	return out
}

func (in *Widget) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *WidgetList) DeepCopyInto(out *WidgetList) {
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Widget, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

func (in *WidgetList) DeepCopy() *WidgetList {
	if in == nil {
		return nil
	}
	out := new(WidgetList)
	in.DeepCopyInto(out)
	return out
}

func (in *WidgetList) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func addWidgetTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(groupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(scheme, groupVersion)
	return nil
}
