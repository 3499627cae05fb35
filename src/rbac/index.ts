// RBAC generation: +kubebuilder:rbac markers → ClusterRole/Role objects.
export { generateRoles } from './generate.js';
export { RBAC_MARKER, registerRbacMarkers } from './markers.js';
