// Package webhooks is the Go twin of test/parity/ts/webhook/webhooks: webhook markers only.
package webhooks

// +kubebuilder:webhook:path=/mutate-basics-parity-opgen-dev-v1-widget,mutating=true,failurePolicy=fail,sideEffects=None,groups=basics.parity.opgen.dev,resources=widgets,verbs=create;update,versions=v1,name=mwidget-v1.kb.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-basics-parity-opgen-dev-v1-widget,mutating=false,failurePolicy=fail,sideEffects=None,groups=basics.parity.opgen.dev,resources=widgets,verbs=create;update;delete,versions=v1,name=vwidget-v1.kb.io,admissionReviewVersions=v1
// +kubebuilder:webhookconfiguration:mutating=true,name=parity-mutating-webhook-configuration

// WidgetWebhook defaults and validates Widgets.
type WidgetWebhook struct{}
