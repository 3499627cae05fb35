// A Tenant: a team that gets its own namespaces, with its groups bound to roles there. Cluster-scoped,
// like the Namespaces it owns; its name is the tenant id every object it creates is labelled with.
import type { Condition, ListMeta, ObjectMeta } from '@opgen/runtime';
import { GroupVersion } from './groupversion-info.js';

export interface TenantSpec {
  /**
   * namespaces the tenant gets, created and labelled by the operator.
   * +kubebuilder:validation:MinItems=1
   * +listType=set
   */
  namespaces: string[];
  /**
   * adminGroups are the groups (as the cluster's authenticator names them) that may manage workloads
   * in the tenant's namespaces: the tenant-admin Role.
   * +listType=set
   */
  adminGroups: string[];
  /**
   * viewerGroups may read them: the tenant-viewer Role.
   * +listType=set
   */
  viewerGroups?: string[];
}

export interface TenantStatus {
  /** namespaces set up so far. */
  namespaces?: string[];
  /**
   * conditions: Ready is True once every namespace, Role and RoleBinding is in place.
   * +listType=map
   * +listMapKey=type
   */
  conditions?: Condition[];
}

/**
 * Tenant is the Schema for the tenants API.
 * +kubebuilder:object:root=true
 * +kubebuilder:subresource:status
 * +kubebuilder:resource:scope=Cluster
 */
export interface Tenant {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: TenantSpec;
  status?: TenantStatus;
}

/**
 * TenantList contains a list of Tenant.
 * +kubebuilder:object:root=true
 */
export interface TenantList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: Tenant[];
}

export const Tenant = GroupVersion.kind<Tenant>('Tenant', { plural: 'tenants', namespaced: false });
