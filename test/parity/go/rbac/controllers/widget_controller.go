// Package controllers is the Go twin of test/parity/ts/rbac/controllers: RBAC markers only.
package controllers

// +kubebuilder:rbac:groups=basics.parity.opgen.dev,resources=widgets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=basics.parity.opgen.dev,resources=widgets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=basics.parity.opgen.dev,resources=widgets/finalizers,verbs=update
// +kubebuilder:rbac:groups=core,resources=pods;services,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs={get,list,watch,create,update,patch,delete}

// WidgetReconciler reconciles Widgets.
type WidgetReconciler struct{}
