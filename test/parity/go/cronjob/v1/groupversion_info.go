// Package v1 is the Go twin of test/parity/ts/cronjob/v1: the shape of kubebuilder's CronJob tutorial API.
// +groupName=batch.parity.opgen.dev
package v1
