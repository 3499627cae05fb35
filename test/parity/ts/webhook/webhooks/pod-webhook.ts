// +kubebuilder:webhook:path=/mutate-v1-pod,mutating=true,failurePolicy=ignore,sideEffects=NoneOnDryRun,groups=core,resources=pods,verbs=create;connect,versions=v1,name=mpod.kb.io,admissionReviewVersions=v1;v1beta1,matchPolicy=Equivalent,reinvocationPolicy=IfNeeded,timeoutSeconds=10,serviceName=custom-svc,serviceNamespace=custom-ns,servicePort=9443
// +kubebuilder:webhook:url="https://hooks.example.com/validate",mutating=false,failurePolicy=ignore,sideEffects=None,groups=apps,resources=deployments;replicasets,verbs=*,versions=v1,name=vdeploy.kb.io,admissionReviewVersions=v1,matchPolicy=Exact,webhookVersions=v1
// +kubebuilder:webhook:path=/validate-v1-configmap,mutating=false,failurePolicy=fail,sideEffects=None,groups=core,resources=configmaps,verbs=create;update,versions=v1,name=vconfigmap.kb.io,admissionReviewVersions=v1,patch=`{"namespaceSelector":{"matchLabels":{"webhook-enabled":"true"}},"timeoutSeconds":5}`

/** PodWebhook defaults Pods. */
export class PodWebhook {}

// +kubebuilder:webhook:path=/mutate-v1-secret,mutating=true,failurePolicy=fail,sideEffects=None,groups=core,resources=secrets,verbs=create,versions=v1,name=msecret.kb.io,admissionReviewVersions=v1,matchPolicy=equivalent,reinvocationPolicy=Never
// +kubebuilder:webhookconfiguration:mutating=false,name=parity-validating-webhook-configuration
