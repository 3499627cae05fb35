import type { KubeObject, ListMeta, ObjectMeta } from '@opgen/runtime';

/** LanternSpec is what a Lantern holds. */
export interface LanternSpec {
  /** Colour of the light. */
  colour?: string;
}

/**
 * Lantern is a kind without +kubebuilder:object:root: its apiVersion, kind and metadata make it one, as
 * embedding TypeMeta and ObjectMeta does in Go (many public APIs never write the marker).
 */
export interface Lantern {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: LanternSpec;
}

/** LanternList is no kind: its metadata is ListMeta. */
export interface LanternList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: Lantern[];
}

/** Beacon extends the runtime's object base type and is a kind too. */
export interface Beacon extends KubeObject {
  spec?: LanternSpec;
}

/** Ledger declares metadata non-optional: controller-gen lists it in required. */
export interface Ledger {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: LanternSpec;
}
