import type { int32, ListMeta, ObjectMeta } from '@opgen/runtime';
import { GroupVersion } from './groupversion-info.js';

/** FrigateSpec defines the desired state of Frigate in v2. */
export interface FrigateSpec {
  /** Foo is in every version. */
  foo: string;
  /** Bar arrived in v1beta1. */
  bar?: int32;
  /** Baz arrived in v2. */
  baz?: string[];
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
// +kubebuilder:deprecatedversion
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
