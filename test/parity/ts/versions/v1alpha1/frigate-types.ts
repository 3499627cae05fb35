import type { ListMeta, ObjectMeta } from '@opgen/runtime';
import { GroupVersion } from './groupversion-info.js';

/** FrigateSpec defines the desired state of Frigate in v1alpha1. */
export interface FrigateSpec {
  /** Foo is in every version. */
  foo: string;
}

/** FrigateStatus defines the observed state of Frigate. */
export interface FrigateStatus {
  ready?: boolean;
}

/** Frigate is served in several versions. */
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=fg,categories=parity
// +kubebuilder:printcolumn:name="Foo",type=string,JSONPath=`.spec.foo`
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="versions.parity.opgen.dev/v1alpha1 Frigate is deprecated; use v1beta1"
export interface Frigate {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: FrigateSpec;
  status?: FrigateStatus;
}

/** FrigateList contains a list of Frigate. */
// +kubebuilder:object:root=true
export interface FrigateList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: Frigate[];
}

export const Frigate = GroupVersion.kind<Frigate>('Frigate', { plural: 'frigates' });
