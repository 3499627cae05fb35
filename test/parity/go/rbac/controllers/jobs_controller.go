package controllers

// +kubebuilder:rbac:groups=apps;batch,resources=jobs,verbs=get
// +kubebuilder:rbac:groups=core,resources=configmaps,resourceNames=widget-config;widget-extra,verbs=get;update
// +kubebuilder:rbac:urls=/metrics;/healthz,verbs=get
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=*
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get
// +kubebuilder:rbac:groups=core,resources=pods,verbs=delete
// +kubebuilder:rbac:groups=core,resources=secrets,verbs=get;watch,namespace=parity-system
// +kubebuilder:rbac:groups=core,resources=configmaps,verbs=list,namespace=parity-system
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get,namespace=another-ns
// +kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=get;list,roleName=reader
// +kubebuilder:rbac:groups=core,resources=secrets,verbs=get,namespace=parity-system,roleName=secret-reader
// +kubebuilder:rbac:groups=core,resources=services,verbs=list,namespace=another-ns,roleName=secret-reader

// JobReconciler reconciles Jobs.
type JobReconciler struct{}
