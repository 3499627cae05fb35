import type { IntOrString, int, int32, ObjectMeta, RawExtension } from '@opgen/runtime';
import { GroupVersion } from './groupversion-info.js';

/**
 * Percent is a share of a whole.
 * +kubebuilder:validation:Minimum=0
 * +kubebuilder:validation:Maximum=100
 * +kubebuilder:validation:XValidation:rule="self >= 0",message="must not be negative"
 */
export type Percent = int32;

/**
 * Hostname is a DNS name.
 * +kubebuilder:validation:MaxLength=253
 * +kubebuilder:validation:Pattern=`^[a-z0-9.-]+$`
 */
export type Hostname = string;

/**
 * Phase is where a gauge is in its life.
 * +k8s:enum
 */
export type Phase = string;
export const PhaseRunning: Phase = 'Running';
export const PhasePending: Phase = 'Pending';
export const PhaseFailed: Phase = 'Failed';

/** Listener is one port a gauge listens on. */
export interface Listener {
  /** Name of the listener. */
  name: string;
  /**
   * Protocol spoken.
   * +kubebuilder:default=TCP
   * +kubebuilder:validation:Enum=TCP;UDP
   */
  protocol: string;
  port?: int32;
}

/** Extra carries settings the operator does not know yet. */
export interface Extra {
  /** Known is the one known setting. */
  known?: string;
}

/**
 * Window is a time window.
 * +kubebuilder:validation:MinProperties=1
 * +structType=atomic
 */
export interface Window {
  start?: string;
  end?: string;
}

/**
 * Names is a set of names.
 * +listType=set
 * +kubebuilder:validation:MaxItems=4
 * +kubebuilder:validation:items:MinLength=1
 */
export type Names = string[];

/**
 * Settings is a map replaced as a whole.
 * +mapType=atomic
 * +kubebuilder:validation:MaxProperties=8
 */
export type Settings = Record<string, string>;

/**
 * Sheet carries a title, external docs and unknown fields at the type level.
 * +kubebuilder:title="Sheet"
 * +kubebuilder:externalDocs:url="https://example.com/docs/sheets"
 * +kubebuilder:pruning:PreserveUnknownFields
 */
export interface Sheet {
  rows?: int32;
}

/** Tuning groups settings that default as a whole. */
export interface Tuning {
  // +kubebuilder:default=2
  level?: int32;
  // +kubebuilder:default={mode: auto, steps: "1,2"}
  extra?: Record<string, string>;
}

/** Only has one allowed value. */
export type Only = 'Only';

/** GaugeSpec defines the desired state of Gauge. */
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas",reason=FieldValueInvalid,fieldPath=".minReplicas"
// +kubebuilder:validation:AtMostOneOf=left;right
// +kubebuilder:validation:ExactlyOneOf=red;blue
// +kubebuilder:validation:AtLeastOneOf=north;south
export interface GaugeSpec {
  /**
   * Retries is a plain Go int: an integer without a format.
   * +kubebuilder:validation:Minimum=0
   */
  retries?: int;
  /** Phase is where the gauge is. */
  phase?: Phase;
  /**
   * Aliases maps a hostname to another; its keys are a validated string type.
   * +kubebuilder:validation:MaxProperties=8
   */
  aliases?: Record<Hostname, string>;
  /**
   * Level is even, from 0 up to (not including) 10.
   * +kubebuilder:validation:Minimum=0
   * +kubebuilder:validation:Maximum=10
   * +kubebuilder:validation:ExclusiveMaximum=true
   * +kubebuilder:validation:MultipleOf=2
   */
  level: int32;

  // +kubebuilder:validation:Minimum=-1.5
  // +kubebuilder:validation:ExclusiveMinimum=true
  // +kubebuilder:validation:MultipleOf=0.5
  ratio?: number;

  // +kubebuilder:validation:MinLength=1
  // +kubebuilder:validation:MaxLength=63
  // +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
  name: string;

  // +kubebuilder:validation:MinItems=1
  // +kubebuilder:validation:MaxItems=5
  // +kubebuilder:validation:UniqueItems=false
  // +kubebuilder:validation:items:MinLength=2
  // +kubebuilder:validation:items:MaxLength=20
  // +kubebuilder:validation:items:Pattern=`^[a-z]+$`
  // +listType=set
  tags?: string[];

  // +kubebuilder:validation:MaxItems=10
  // +kubebuilder:validation:items:Minimum=1
  // +kubebuilder:validation:items:Maximum=9
  // +kubebuilder:validation:items:ExclusiveMinimum=false
  // +kubebuilder:validation:items:MultipleOf=3
  // +kubebuilder:validation:items:Enum=3;6;9
  // +kubebuilder:validation:items:XValidation:rule="self != 6",message="six is unlucky"
  // +listType=atomic
  digits?: int32[];

  // +kubebuilder:validation:items:MinProperties=1
  // +kubebuilder:validation:items:MaxProperties=2
  selectors?: Array<Record<string, string>>;

  // +kubebuilder:validation:items:MinItems=1
  // +kubebuilder:validation:items:MaxItems=3
  matrix?: int32[][];

  // +kubebuilder:validation:items:Format=date
  // +kubebuilder:validation:items:Type=string
  dates?: string[];

  // +kubebuilder:validation:MinProperties=1
  // +kubebuilder:validation:MaxProperties=3
  // +mapType=atomic
  labels?: Record<string, string>;

  // +mapType=granular
  annotations?: Record<string, string>;

  // +kubebuilder:validation:Enum=1;2;3
  tier?: int32;

  // +kubebuilder:validation:Enum=on;off;"auto"
  switch?: string;

  // +kubebuilder:validation:Format=email
  contact?: string;

  // +kubebuilder:validation:Type=string
  // +kubebuilder:validation:Format=date
  day?: string;

  /**
   * Budget is a count or a percentage.
   * +kubebuilder:validation:XIntOrString
   * +kubebuilder:validation:Pattern=`^[0-9]+%?$`
   */
  budget?: IntOrString;

  // +kubebuilder:validation:XEmbeddedResource
  // +kubebuilder:pruning:PreserveUnknownFields
  embedded?: RawExtension;

  // +kubebuilder:validation:EmbeddedResource
  // +kubebuilder:validation:XPreserveUnknownFields
  manifest?: RawExtension;

  /**
   * Extra keeps unknown fields.
   * +kubebuilder:pruning:PreserveUnknownFields
   */
  extra?: Extra;

  /**
   * Blob is not inspected.
   * +kubebuilder:validation:Schemaless
   * +kubebuilder:validation:Type=object
   * +kubebuilder:pruning:PreserveUnknownFields
   */
  blob?: RawExtension;

  // +kubebuilder:default=3
  minReplicas?: int32;

  // +kubebuilder:default=10
  // +kubebuilder:example=20
  maxReplicas?: int32;

  // +kubebuilder:default=fast
  // +kubebuilder:title="Gear"
  gear?: string;

  // +kubebuilder:default={a,b}
  letters?: string[];

  // +kubebuilder:default={}
  empties?: string[];

  // +kubebuilder:default={tier: gold, zone: "eu-1"}
  placement?: Record<string, string>;

  // +default="json"
  encoding?: string;

  // +default=["x","y"]
  axes?: string[];

  // +default=true
  // +kubebuilder:default=false
  verbose?: boolean;

  // +kubebuilder:example={host: example.com}
  example?: Record<string, string>;

  // +nullable
  nullables?: string[];

  /**
   * Listeners keyed by name and protocol.
   * +listType=map
   * +listMapKey=name
   * +listMapKey=protocol
   */
  listeners?: Listener[];

  // +structType=atomic
  frozen?: Extra;

  window?: Window;

  /**
   * ClassName cannot change.
   * +k8s:immutable
   */
  className: string;

  /**
   * Zone cannot change once set.
   * +k8s:immutable
   */
  zone?: string;

  // +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || self >= oldSelf.value()",message="may only grow",optionalOldSelf=true
  // +kubebuilder:validation:XValidation:rule="self <= 1000",messageExpression="self > 1000 ? 'capacity is over 1000' : 'capacity is invalid'",reason=FieldValueForbidden
  capacity?: int32;

  /**
   * Share overrides its type's maximum.
   * +kubebuilder:validation:Maximum=50
   * +kubebuilder:validation:XValidation:rule="self % 5 == 0",message="must be a multiple of five"
   */
  share?: Percent;

  floor?: Percent;

  // +kubebuilder:validation:MinLength=3
  host?: Hostname;

  left?: string;
  right?: string;
  red?: string;
  blue?: string;
  north?: string;
  south?: string;

  /**
   * Tuning defaults to an empty object so its fields' defaults apply.
   * +kubebuilder:default={}
   */
  tuning?: Tuning;

  // +kubebuilder:default={level: 7}
  preset?: Tuning;

  /** Routes by name. */
  routes?: Record<string, Listener>;

  groups?: { [name: string]: string[] };

  // +kubebuilder:validation:Pattern="^a,b\\d+$"
  quoted?: string;

  // +kubebuilder:validation:Enum={"a,b",c}
  mixed?: string;

  maybe?: string | undefined;

  single?: Only;

  // +kubebuilder:example={a,b}
  examples?: string[];

  names?: Names;

  settings?: Settings;

  sheet?: Sheet;

  // +kubebuilder:validation:items:XEmbeddedResource
  // +kubebuilder:validation:items:XPreserveUnknownFields
  // +kubebuilder:validation:MaxItems=4
  objects?: RawExtension[];

  // +kubebuilder:validation:items:ExclusiveMaximum=true
  // +kubebuilder:validation:items:Maximum=100
  // +kubebuilder:validation:MaxItems=4
  limits?: int32[];

  // +kubebuilder:validation:items:XIntOrString
  // +kubebuilder:validation:items:MaxLength=4
  // +kubebuilder:validation:MaxItems=4
  budgets?: IntOrString[];

  // +kubebuilder:externalDocs:url="https://example.com/docs/gauges",description="How gauges are read"
  reading?: string;
}

/** Gauge measures things, with every validation marker. */
// +kubebuilder:object:root=true
export interface Gauge {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: GaugeSpec;
}

export const Gauge = GroupVersion.kind<Gauge>('Gauge', { plural: 'gauges' });
