// The TypeScript twin of test/parity/go/rbac/controllers: RBAC markers only.

// +kubebuilder:rbac:groups=basics.parity.opgen.dev,resources=widgets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=basics.parity.opgen.dev,resources=widgets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=basics.parity.opgen.dev,resources=widgets/finalizers,verbs=update
// +kubebuilder:rbac:groups=core,resources=pods;services,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs={get,list,watch,create,update,patch,delete}

/** WidgetReconciler reconciles Widgets. */
export class WidgetReconciler {}
