import type { ListMeta, ObjectMeta } from '@opgen/runtime';
import { GroupVersion } from './groupversion-info.js';

/** FrigateSpec defines the desired state of Frigate in v3. */
export interface FrigateSpec {
  /** Foo is in every version. */
  foo: string;
  /** Qux only exists in the skipped version. */
  qux: string;
}

/** FrigateStatus defines the observed state of Frigate. */
export interface FrigateStatus {
  ready?: boolean;
}

/** Frigate is served in several versions. */
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=fg,categories=parity
// +kubebuilder:skipversion
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
