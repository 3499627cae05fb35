// @opgen/runtime/helm: Helm-based operators (docs/helm-operator.md). A subpath of its own, so operators
// without a chart do not load it.
export { HelmReconciler, setupHelmController, helmUninstallFinalizer, digestFolder, type HelmReconcilerOptions, type HelmControllerOptions, type HelmReleaseObject, type HelmReleaseStatus } from './reconciler.js';
export { HelmCli, HelmError, kubeconfigFile, type HelmCliOptions, type HelmRelease } from './helm-cli.js';
export { manifestObjects, firstDifference } from './drift.js';
