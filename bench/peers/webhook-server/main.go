// webhook-server is the controller-runtime side of bench/webhook: controller-runtime's webhook server
// with one validating webhook whose handler allows everything, the same trivial handler
// bench/webhook/server.ts registers with opgen's server, so the two servers are compared on equal work.
package main

import (
	"context"
	"flag"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

func main() {
	var port int
	var certDir string
	flag.IntVar(&port, "port", 9443, "webhook port")
	flag.StringVar(&certDir, "cert-dir", "", "folder with tls.crt and tls.key")
	flag.Parse()

	server := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: port, CertDir: certDir})
	server.Register("/validate", &admission.Webhook{Handler: admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
		return admission.Allowed("")
	})})
	if err := server.Start(ctrl.SetupSignalHandler()); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}
