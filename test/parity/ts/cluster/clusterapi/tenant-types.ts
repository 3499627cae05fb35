import type { int32, ListMeta, ObjectMeta } from '@opgen/runtime';
import { GroupVersion } from './groupversion-info.js';

/** TenantSpec defines the desired state of Tenant. */
export interface TenantSpec {
  /** DisplayName is optional: the package is optional by default. */
  displayName: string;
  /**
   * Owner is required despite the package default.
   * +required
   */
  owner: string;
  /**
   * Region is required through the field-level deprecated marker.
   * +kubebuilder:validation:Required
   */
  region?: string;
  /**
   * Quota in namespaces.
   * +kubebuilder:validation:Minimum=1
   */
  quota: int32;
  /**
   * Namespaces the tenant owns.
   * +listType=set
   */
  namespaces: string[];
}

/** TenantStatus defines the observed state of Tenant. */
export interface TenantStatus {
  /** Phase of the tenant. */
  phase: 'Pending' | 'Active' | 'Terminating';
}

/** Tenant is a cluster-scoped kind. */
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,path=tenants,shortName=tn
// +kubebuilder:printcolumn:name="Owner",type=string,JSONPath=".spec.owner"
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=".status.phase"
export interface Tenant {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: TenantSpec;
  status?: TenantStatus;
}

/** TenantList contains a list of Tenant. */
// +kubebuilder:object:root=true
export interface TenantList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: Tenant[];
}

export const Tenant = GroupVersion.kind<Tenant>('Tenant', { plural: 'tenants', namespaced: false });
