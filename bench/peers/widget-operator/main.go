// widget-operator is the controller-runtime side of bench/runtime: the same Widget → ConfigMap +
// Ready condition reconciler as bench/runtime/operator.ts, written the way a kubebuilder project
// would write it, so the two runtimes are compared on equal work.
package main

import (
	"context"
	"errors"
	"flag"
	"maps"
	"net/http"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

type widgetReconciler struct {
	client.Client
}

func (r *widgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var widget Widget
	if err := r.Get(ctx, req.NamespacedName, &widget); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	var configMap corev1.ConfigMap
	err := r.Get(ctx, req.NamespacedName, &configMap)
	switch {
	case apierrors.IsNotFound(err):
		configMap = corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Name:      widget.Name,
				Namespace: widget.Namespace,
				Labels:    map[string]string{"app.kubernetes.io/managed-by": "widget-operator"},
			},
			Data: widget.Spec.Data,
		}
		if err := ctrl.SetControllerReference(&widget, &configMap, r.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, &configMap); err != nil {
			return ctrl.Result{}, err
		}
	case err != nil:
		return ctrl.Result{}, err
	case !maps.Equal(configMap.Data, widget.Spec.Data):
		configMap.Data = widget.Spec.Data
		if err := r.Update(ctx, &configMap); err != nil {
			return ctrl.Result{}, err
		}
	}

	changed := meta.SetStatusCondition(&widget.Status.Conditions, metav1.Condition{
		Type:               "Ready",
		Status:             metav1.ConditionTrue,
		Reason:             "ConfigMapReady",
		Message:            "ConfigMap " + configMap.Name + " holds the widget data",
		ObservedGeneration: widget.Generation,
	})
	if changed {
		if err := r.Status().Update(ctx, &widget); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

func main() {
	var probeAddr, metricsAddr, namespace string
	var concurrency int
	var qps float64
	var burst int
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "address the probe endpoint binds to")
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0", "address the metrics endpoint binds to; 0 disables")
	flag.StringVar(&namespace, "namespace", "", "namespace the caches are restricted to (required)")
	flag.IntVar(&concurrency, "max-concurrent-reconciles", 1, "concurrent reconciles of the widget controller")
	flag.Float64Var(&qps, "kube-api-qps", -1, "client-side rate limit (negative: none)")
	flag.IntVar(&burst, "kube-api-burst", 0, "client-side burst")
	// What @opgen/runtime's cache does by default, so memory per cached object compares like with like.
	stripManagedFields := flag.Bool("strip-managed-fields", false, "cache objects without metadata.managedFields (cache.TransformStripManagedFields)")
	flag.Parse()
	ctrl.SetLogger(zap.New())
	log := ctrl.Log.WithName("widget-operator")
	if namespace == "" {
		log.Error(errors.New("--namespace is required"), "bad flags")
		os.Exit(2)
	}

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		log.Error(err, "scheme")
		os.Exit(1)
	}
	if err := addWidgetTypes(scheme); err != nil {
		log.Error(err, "scheme")
		os.Exit(1)
	}

	cfg := ctrl.GetConfigOrDie()
	cfg.QPS = float32(qps)
	cfg.Burst = burst
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: probeAddr,
		Cache:                  cacheOptions(namespace, *stripManagedFields),
	})
	if err != nil {
		log.Error(err, "unable to create manager")
		os.Exit(1)
	}

	err = ctrl.NewControllerManagedBy(mgr).
		For(&Widget{}).
		Owns(&corev1.ConfigMap{}).
		Named("widget").
		WithOptions(controller.Options{MaxConcurrentReconciles: concurrency}).
		Complete(&widgetReconciler{Client: mgr.GetClient()})
	if err != nil {
		log.Error(err, "unable to create controller")
		os.Exit(1)
	}

	// Ready once both informers have synced, like the TypeScript manager's readyz.
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		log.Error(err, "healthz")
		os.Exit(1)
	}
	err = mgr.AddReadyzCheck("informers", func(req *http.Request) error {
		for _, obj := range []client.Object{&Widget{}, &corev1.ConfigMap{}} {
			informer, err := mgr.GetCache().GetInformer(req.Context(), obj, cache.BlockUntilSynced(false))
			if err != nil {
				return err
			}
			if !informer.HasSynced() {
				return errors.New("informers not synced")
			}
		}
		return nil
	})
	if err != nil {
		log.Error(err, "readyz")
		os.Exit(1)
	}

	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped")
		os.Exit(1)
	}
}

func cacheOptions(namespace string, stripManagedFields bool) cache.Options {
	opts := cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}}
	if stripManagedFields {
		opts.DefaultTransform = cache.TransformStripManagedFields()
	}
	return opts
}
