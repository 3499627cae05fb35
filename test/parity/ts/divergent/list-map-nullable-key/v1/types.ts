// The TypeScript twin of test/parity/go/divergent/list-map-nullable-key/v1, which opgen refuses.
// +groupName=listmapnullablekey.divergent.parity.opgen.dev
import type { ObjectMeta } from '@opgen/runtime';

/** CrewSpec defines the desired state of Crew. */
export interface CrewSpec {
  /**
   * Sailors keyed by name, but name may be null.
   * +listType=map
   * +listMapKey=name
   */
  sailors?: Sailor[];
}

/** Sailor of a crew. */
export interface Sailor {
  name: string | null;
  rank?: string;
}

/** Crew is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Crew {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: CrewSpec;
}
