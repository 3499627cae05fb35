import type { ObjectMeta } from '@opgen/runtime';

/** Greeting holds a line of text. */
export interface Greeting {
  // Plain line comments above a field describe it when there is no doc block.
  // They may span lines.
  text?: string;
}

/** Title is a display title. */
export interface Title {
  value?: string;
}

// The example's indentation (a tab after the ` * ` prefix) belongs to the description, as it does after
// `// ` in the Go twin: kubebuilder users indent code blocks in doc comments and expect them kept.
/**
 * PersonSpec joins two structs and documents a code block.
 *
 * Example:
 *
 * 	kind: SalesPerson
 * 	spec:
 * 	  text: hello
 *
 * The last paragraph.
 */
export interface PersonSpec extends Greeting, Title {
  /** Region is required. */
  region: string;
}

/** SalesPerson is pluralised by flect's dictionary: salespeople. */
// +kubebuilder:object:root=true
export interface SalesPerson {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: PersonSpec;
}

/** Octopus is pluralised as flect v1.0.3 spells it. */
// +kubebuilder:object:root=true
export interface Octopus {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: Greeting;
}

/** Cactus overrides its plural and singular. */
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=cactuses,singular=cactus
export interface Cactus {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: Greeting;
}
