import type { ObjectMeta, Quantity, Time } from '@opgen/runtime';

/**
 * Shade is a string type whose values are its constants below.
 * +k8s:enum
 */
export type Shade = string;

export const ShadeWarm: Shade = 'Warm';
export const ShadeCold: Shade = 'Cold';

/** Wick is a small struct. */
export interface Wick {
  /** Length of the wick. */
  length?: string;
}

/**
 * Glass says how the lamp is closed.
 * +kubebuilder:title="Glass"
 * +kubebuilder:externalDocs:url="https://example.com/glass",description="About glass"
 * +kubebuilder:validation:AtMostOneOf=clear;frosted
 * +kubebuilder:validation:ExactlyOneOf=round;square
 * +kubebuilder:validation:AtLeastOneOf=thin;thick
 */
export interface Glass {
  clear?: boolean;
  frosted?: boolean;
  round?: boolean;
  square?: boolean;
  thin?: boolean;
  thick?: boolean;
}

/** LampSpec carries the markers of controller-tools v0.17 to v0.23. */
export interface LampSpec {
  /**
   * Declarative defaulting's reference to a Go constant writes no default.
   * +default=ref(DefaultShade)
   * +optional
   */
  shade?: Shade;
  /**
   * A null default writes none either.
   * +default=null
   * +optional
   */
  none?: string;
  /**
   * A JSON default.
   * +default="bright"
   * +optional
   */
  mode?: string;
  /**
   * Required and not empty.
   * +k8s:required
   */
  name: string;
  /**
   * An explicit MinLength wins over +k8s:required's 1.
   * +k8s:required
   * +kubebuilder:validation:MinLength=3
   */
  code: string;
  /**
   * +k8s:required
   */
  bulbs: string[];
  /**
   * +k8s:required
   */
  labels: Record<string, string>;
  /**
   * +k8s:required
   */
  wick: Wick;
  /**
   * A Go struct type: controller-gen sees a bare reference.
   * +k8s:required
   */
  lit: Time;
  /**
   * +k8s:required
   */
  power: Quantity;
  /**
   * Optional despite no question mark.
   * +k8s:optional
   */
  note: string;
  /**
   * +k8s:maxItems=4
   * +optional
   */
  spares?: string[];
  /**
   * +k8s:minimum=1
   * +k8s:maximum=10
   * +optional
   */
  brightness?: number;
  /**
   * A title and external docs on a field.
   * +kubebuilder:title="Watts"
   * +kubebuilder:externalDocs:url="https://example.com/watts"
   * +optional
   */
  watts?: number;
  /**
   * A transition rule that also runs when there is no old value.
   * +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || self >= oldSelf.value()",message="may only grow",optionalOldSelf=true
   * +optional
   */
  hours?: number;
  /** +optional */
  glass?: Glass;
}

/**
 * Lamp is a kind with selectable fields.
 * +kubebuilder:selectablefield:JSONPath=`.spec.mode`
 * +kubebuilder:selectablefield:JSONPath=".spec.name"
 */
export interface Lamp {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: LampSpec;
}
