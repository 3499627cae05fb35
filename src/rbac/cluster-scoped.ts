// Built-in Kubernetes resources that exist outside namespaces (kubectl api-resources --namespaced=false,
// Kubernetes 1.36): only a ClusterRole can grant access to them, so a namespace-scoped operator, which
// holds Roles, cannot use them.
const CLUSTER_SCOPED: Record<string, readonly string[]> = {
  '': ['componentstatuses', 'namespaces', 'nodes', 'persistentvolumes'],
  'admissionregistration.k8s.io': ['mutatingadmissionpolicies', 'mutatingadmissionpolicybindings', 'mutatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'validatingwebhookconfigurations'],
  'apiextensions.k8s.io': ['customresourcedefinitions'],
  'apiregistration.k8s.io': ['apiservices'],
  'authentication.k8s.io': ['selfsubjectreviews', 'tokenreviews'],
  'authorization.k8s.io': ['selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'subjectaccessreviews'],
  'certificates.k8s.io': ['certificatesigningrequests', 'clustertrustbundles'],
  'flowcontrol.apiserver.k8s.io': ['flowschemas', 'prioritylevelconfigurations'],
  'networking.k8s.io': ['ingressclasses', 'ipaddresses', 'servicecidrs'],
  'node.k8s.io': ['runtimeclasses'],
  'rbac.authorization.k8s.io': ['clusterrolebindings', 'clusterroles'],
  'resource.k8s.io': ['deviceclasses'],
  'scheduling.k8s.io': ['priorityclasses'],
  'storage.k8s.io': ['csidrivers', 'csinodes', 'storageclasses', 'volumeattachments', 'volumeattributesclasses'],
};

/** Whether `resource` (a plural, optionally with /subresource) of API `group` ("" or "core" for core) is cluster-scoped. */
export function clusterScopedResource(group: string, resource: string): boolean {
  const plural = resource.split('/')[0]!;
  return CLUSTER_SCOPED[group === 'core' ? '' : group]?.includes(plural) ?? false;
}
