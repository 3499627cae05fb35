// Package controller stands for a kubebuilder project's controllers: `opgen migrate project` points the
// TypeScript controller of each kind at the Go reconciler it replaces (only its location is read).
package controller

import "context"

// CronJobReconciler reconciles a CronJob object.
type CronJobReconciler struct{}

// Reconcile moves the cluster toward the state a CronJob declares.
func (r *CronJobReconciler) Reconcile(ctx context.Context, name string) error {
	_ = ctx
	_ = name
	return nil
}
