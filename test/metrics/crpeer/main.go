// crpeer: a controller-runtime v0.24.1 manager with what produces every series of its metric set (a
// controller whose requests succeed, fail, fail terminally, panic or requeue; leader election; an
// admission webhook; the certificate watcher), serving /metrics. The metrics comparison test scrapes it
// and @opgen/runtime's manager doing the same work, and compares names, types, help, labels and buckets.
//
//	crpeer --metrics-bind-address 127.0.0.1:PORT --webhook-port PORT --namespace NS --cert-dir DIR
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"
)

// reconciler answers by the ConfigMap's name, so the test decides each result.
type reconciler struct{ client.Client }

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	switch req.Name {
	case "fail":
		return ctrl.Result{}, errors.New("failing on purpose")
	case "terminal":
		return ctrl.Result{}, reconcile.TerminalError(errors.New("bad spec"))
	case "panic":
		panic("panicking on purpose")
	case "requeue-after":
		return ctrl.Result{RequeueAfter: time.Hour}, nil
	}
	return ctrl.Result{}, nil
}

func main() {
	var metricsAddr, namespace, certDir string
	var webhookPort int
	flag.StringVar(&metricsAddr, "metrics-bind-address", "127.0.0.1:0", "")
	flag.IntVar(&webhookPort, "webhook-port", 0, "")
	flag.StringVar(&namespace, "namespace", "default", "")
	flag.StringVar(&certDir, "cert-dir", "", "")
	flag.Parse()
	ctrl.SetLogger(zap.New())
	log := ctrl.Log.WithName("crpeer")
	if err := writeCertificate(certDir); err != nil {
		log.Error(err, "certificate")
		os.Exit(1)
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Metrics:                 metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress:  "0",
		LeaderElection:          true,
		LeaderElectionID:        "crpeer",
		LeaderElectionNamespace: namespace,
		Cache:                   cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		WebhookServer:           webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: webhookPort, CertDir: certDir}),
	})
	if err != nil {
		log.Error(err, "manager")
		os.Exit(1)
	}
	if err := ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Named("configmap").Complete(&reconciler{mgr.GetClient()}); err != nil {
		log.Error(err, "controller")
		os.Exit(1)
	}
	mgr.GetWebhookServer().Register("/validate-configmap", &webhook.Admission{Handler: admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
		return admission.Allowed("")
	})})
	mgr.GetWebhookServer().Register("/convert", conversion.NewWebhookHandler(mgr.GetScheme(), conversion.NewRegistry()))
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped")
		os.Exit(1)
	}
}

// writeCertificate puts a self-signed tls.crt/tls.key for 127.0.0.1 in dir.
func writeCertificate(dir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "crpeer"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, &tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	keyDer, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDer}), 0o600)
}
