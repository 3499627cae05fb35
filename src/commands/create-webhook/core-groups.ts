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

/** The built-in groups' short names, as kubebuilder spells them. */
export const CORE_GROUP_NAMES: readonly string[] = Object.keys(CORE_GROUPS);

/** The API group of built-in group `name` (`networking` → networking.k8s.io, `core` → ''), or undefined for other groups. */
export function coreApiGroup(name: string): string | undefined {
  const domain = coreGroupDomain(name);
  if (domain === undefined) return undefined;
  return name === 'core' ? '' : domain ? `${name}.${domain}` : name;
}

/** The domain completing a built-in group ('' when the group stands alone), or undefined for other groups. */
export function coreGroupDomain(group: string): string | undefined {
  return Object.hasOwn(CORE_GROUPS, group) ? CORE_GROUPS[group] : undefined;
}

/** Built-in kinds @opgen/runtime exports with their types (others get a local kind declaration). */
const RUNTIME_KINDS = new Set([
  '/v1/ConfigMap', '/v1/Secret', '/v1/Service', '/v1/ServiceAccount', '/v1/Pod', '/v1/Namespace',
  'apps/v1/Deployment', 'apps/v1/StatefulSet', 'apps/v1/DaemonSet', 'batch/v1/Job', 'batch/v1/CronJob', 'coordination.k8s.io/v1/Lease',
]);

/** Whether `import { <kind> } from '@opgen/runtime'` gives this built-in kind. */
export function runtimeExportsKind(apiGroup: string, version: string, kind: string): boolean {
  return RUNTIME_KINDS.has(`${apiGroup}/${version}/${kind}`);
}
