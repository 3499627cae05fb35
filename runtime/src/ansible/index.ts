// @opgen/runtime/ansible: Ansible-based operators (docs/ansible-operator.md): a role or playbook per
// kind, run by ansible-runner, in operator-sdk's conventions. A subpath of its own, so operators without
// a role do not load it.
export { AnsibleReconciler, setupAnsibleController, selectorMatcher, reconcilePeriodAnnotation, verbosityAnnotation, maxRunnerArtifactsAnnotation, type AnsibleCondition, type AnsibleObject, type AnsibleControllerOptions, type AnsibleReconcilerOptions } from './reconciler.js';
export { loadWatches, parseWatches, parseDuration, WatchesError, type AnsibleWatch, type AnsibleFinalizer, type GroupVersionKind, type LabelSelector, type LoadWatchesOptions } from './watches.js';
export { extraVars, mapToSnake, objectVariable, toSnake } from './params.js';
export { OwnerInjectingProxy, collectionOf, markOwned, primaryResourceAnnotation, primaryResourceTypeAnnotation, type ProxyOwner, type ProxySession } from './proxy.js';
export { runAnsible, AnsibleRunnerMissingError, installHint, type AnsibleResult, type FailedTask, type JobEvent, type RunRequest, type RunResult } from './runner.js';
