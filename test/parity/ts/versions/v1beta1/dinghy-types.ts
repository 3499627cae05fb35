import type { int32, ObjectMeta } from '@opgen/runtime';
import { GroupVersion } from './groupversion-info.js';

/** Dinghy exists in one version only, which is therefore its storage version. */
// +kubebuilder:object:root=true
export interface Dinghy {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: DinghySpec;
}

/** DinghySpec defines the desired state of Dinghy. */
export interface DinghySpec {
  /** Oars on board. */
  oars: int32;
}

export const Dinghy = GroupVersion.kind<Dinghy>('Dinghy', { plural: 'dinghies' });
