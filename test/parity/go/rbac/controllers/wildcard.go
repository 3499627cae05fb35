package controllers

// A marker block in a file with no controller still counts.
// +kubebuilder:rbac:groups=*,resources=*,verbs=list
// +kubebuilder:rbac:groups=apps,resources=statefulsets;daemonsets,verbs=get;list
// +kubebuilder:rbac:groups=apps,resources=statefulsets;daemonsets,verbs=watch
