import { argTypes, type MarkerDefinition, type Registry } from '../markers/index.js';

export const RBAC_MARKER: MarkerDefinition = {
  name: 'kubebuilder:rbac',
  targets: ['package'],
  shape: 'struct',
  args: [
    { name: 'groups', type: argTypes.stringList, optional: true, help: 'API groups ("core" is the core group)' },
    { name: 'resources', type: argTypes.stringList, optional: true, help: 'resources, e.g. deployments or deployments/status' },
    { name: 'resourceNames', type: argTypes.stringList, optional: true, help: 'restrict to these object names' },
    { name: 'verbs', type: argTypes.stringList, help: 'get, list, watch, create, update, patch, delete, deletecollection or *' },
    { name: 'urls', type: argTypes.stringList, optional: true, help: 'non-resource URLs such as /metrics' },
    { name: 'namespace', type: argTypes.string, optional: true, help: 'emit a Role in this namespace instead of the ClusterRole' },
    { name: 'roleName', type: argTypes.string, optional: true, help: 'role name (default manager-role)' },
  ],
  help: 'a permission the manager needs: becomes a rule of config/rbac/role.yaml',
};

export function registerRbacMarkers(registry: Registry): void {
  registry.define(RBAC_MARKER);
}
