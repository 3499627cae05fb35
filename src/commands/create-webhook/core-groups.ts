// Built-in Kubernetes API groups a project may add webhooks to without an API of its own, as kubebuilder
// names them: the short group and the domain that completes it (`networking` + `k8s.io`).

const CORE_GROUPS: Record<string, string> = {
  core: '',
  apps: '',
  batch: '',
  autoscaling: '',
  policy: '',
  extensions: '',
  admissionregistration: 'k8s.io',
  apiextensions: 'k8s.io',
  authentication: 'k8s.io',
  authorization: 'k8s.io',
  certificates: 'k8s.io',
  coordination: 'k8s.io',
  discovery: 'k8s.io',
  events: 'k8s.io',
  networking: 'k8s.io',
  node: 'k8s.io',
  'rbac.authorization': 'k8s.io',
  scheduling: 'k8s.io',
  storage: 'k8s.io',
};

/** The domain completing a built-in group ('' when the group stands alone), or undefined for other groups. */
export function coreGroupDomain(group: string): string | undefined {
  return Object.hasOwn(CORE_GROUPS, group) ? CORE_GROUPS[group] : undefined;
}

/** Built-in kinds @opgen/runtime exports with their types (others get a local kind declaration). */
const RUNTIME_KINDS: Record<string, { namespaced: boolean }> = {
  '/v1/ConfigMap': { namespaced: true },
  '/v1/Secret': { namespaced: true },
  '/v1/Service': { namespaced: true },
  '/v1/ServiceAccount': { namespaced: true },
  '/v1/Pod': { namespaced: true },
  '/v1/Namespace': { namespaced: false },
  'apps/v1/Deployment': { namespaced: true },
  'apps/v1/StatefulSet': { namespaced: true },
  'apps/v1/DaemonSet': { namespaced: true },
  'batch/v1/Job': { namespaced: true },
  'batch/v1/CronJob': { namespaced: true },
  'coordination.k8s.io/v1/Lease': { namespaced: true },
};

/** The runtime's declaration of a built-in kind, when it has one. */
export function builtinKind(apiGroup: string, version: string, kind: string): { namespaced: boolean } | undefined {
  return RUNTIME_KINDS[`${apiGroup}/${version}/${kind}`];
}
