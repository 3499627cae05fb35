// The TypeScript twin of test/parity/go/divergent/list-map-key/v1, which opgen refuses.
// +groupName=listmapkey.divergent.parity.opgen.dev
import type { ObjectMeta } from '@opgen/runtime';

/** RosterSpec defines the desired state of Roster. */
export interface RosterSpec {
  /**
   * Members keyed by name, but name is optional.
   * +listType=map
   * +listMapKey=name
   */
  members?: Member[];
}

/** Member of a roster. */
export interface Member {
  name?: string;
  role?: string;
}

/** Roster is the kind of this fixture. */
// +kubebuilder:object:root=true
export interface Roster {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: RosterSpec;
}
