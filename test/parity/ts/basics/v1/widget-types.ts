import type {
  Condition,
  Duration,
  IntOrString,
  int32,
  int64,
  JSON,
  ListMeta,
  MicroTime,
  ObjectMeta,
  Quantity,
  RawExtension,
  Time,
} from '@opgen/runtime';
import { GroupVersion } from './groupversion-info.js';

/** Speed says how fast a widget spins. */
export type Speed = 'Slow' | 'Fast' | 'Very Fast';

/** Color is a widget's paint. */
export enum Color {
  Red = 'red',
  Green = 'green',
  Blue = 'blue',
}

/**
 * Port is a TCP port.
 * +kubebuilder:validation:Minimum=1
 * +kubebuilder:validation:Maximum=65535
 */
export type Port = int32;

/** Endpoint is where a widget listens. */
export interface Endpoint {
  /** Host name or IP address. */
  host: string;
  port?: Port;
  /** Path, if any. */
  path?: string;
}

/**
 * Target is another name for an endpoint. A TypeScript type alias is the twin of a Go defined type
 * (not a Go alias): its own doc comment and markers apply.
 */
export type Target = Endpoint;

/** CommonSpec holds fields shared by specs. */
export interface CommonSpec {
  /** Paused stops reconciliation. */
  paused?: boolean;
  /** Owner is who runs the widget. */
  owner: string;
}

/**
 * WidgetSpec defines the desired state of Widget.
 *
 * It has two paragraphs.
 * TODO: this line is dropped.
 * ---
 * This line is not part of the description.
 */
export interface WidgetSpec extends CommonSpec {
  /** Replicas is the desired number of widgets. */
  replicas?: int32;
  /** Size in bytes. */
  size: int64;
  /** Ratio is a float, which needs crd:allowDangerousTypes=true in controller-gen. */
  ratio?: number;
  enabled?: boolean;
  speed?: Speed;
  /** Color of the widget. */
  color: Color;
  /** Tags are free-form. */
  tags?: string[];
  ports?: Array<Port>;
  /** Aliases are read-only names. */
  aliases?: ReadonlyArray<string>;
  /** Labels to copy onto children. */
  labels?: Record<string, string>;
  /** Limits per queue. */
  limits?: { [queue: string]: int32 };
  endpoints?: Endpoint[];
  /** Primary is the main endpoint. */
  primary: Endpoint;
  target?: Target;
  /** Nickname may be null. */
  nickname?: string | null;
  /** Backup may be null. */
  backup?: Endpoint | null;
  /**
   * Note is optional although it has no question mark.
   * +optional
   */
  note: string;
  /**
   * Mode is required although it has a question mark.
   * +required
   */
  mode?: string;
  /**
   * Legacy is optional through the deprecated marker.
   * +kubebuilder:validation:Optional
   */
  legacy: string;
  /**
   * Strict is required through the deprecated marker.
   * +kubebuilder:validation:Required
   */
  strict?: string;
  /**
   * Both says +optional and +kubebuilder:validation:Required; the latter wins.
   * +optional
   * +kubebuilder:validation:Required
   */
  both?: string;
  /**
   * Either says +required and +kubebuilder:validation:Optional; the latter wins.
   * +required
   * +kubebuilder:validation:Optional
   */
  either: string;
  /** StartedAt is a timestamp. */
  startedAt?: Time;
  observedAt?: MicroTime;
  /** Timeout is a Go duration. */
  timeout?: Duration;
  /** Memory is a resource quantity. */
  memory?: Quantity;
  /** MaxUnavailable is a number or a percentage. */
  maxUnavailable?: IntOrString;
  /** Extension is any embedded object. */
  extension?: RawExtension;
  /** Config is arbitrary JSON. */
  config?: JSON;
  /** TemplateMeta is metadata for objects the widget creates. */
  templateMeta?: ObjectMeta;
}

/** WidgetStatus defines the observed state of Widget. */
export interface WidgetStatus {
  /**
   * conditions represent the current state of the Widget.
   * +listType=map
   * +listMapKey=type
   */
  conditions?: Condition[];
  /** ReadyReplicas counts widgets that are ready. */
  readyReplicas?: int32;
  /** Selector for the scale subresource. */
  selector?: string;
}

/**
 * Widget is the Schema for the widgets API.
 * It spins.
 */
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.readyReplicas,selectorpath=.status.selector
// +kubebuilder:resource:path=widgets,singular=widget,shortName={wg,wdg},categories={all,parity},scope=Namespaced
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`,description="Desired replicas"
// +kubebuilder:printcolumn:name="Speed",type=string,JSONPath=".spec.speed",priority=1
// +kubebuilder:printcolumn:name="Started",type=string,format=date-time,JSONPath=".spec.startedAt"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
// +kubebuilder:selectablefield:JSONPath=`.spec.color`
// +kubebuilder:metadata:annotations="parity.opgen.dev/fixture=basics",labels="parity.opgen.dev/suite=generators"
export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  /** spec defines the desired state of Widget. */
  spec?: WidgetSpec;
  status?: WidgetStatus;
}

/** WidgetList contains a list of Widget. */
// +kubebuilder:object:root=true
export interface WidgetList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: Widget[];
}

export const Widget = GroupVersion.kind<Widget>('Widget', { plural: 'widgets' });

// +kubebuilder:object:root=true
export interface SpeedPolicy {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: SpeedPolicySpec;
}

export interface SpeedPolicySpec {
  /** Limit is the top speed. */
  limit: Speed;
}

export const SpeedPolicy = GroupVersion.kind<SpeedPolicy>('SpeedPolicy', { plural: 'speedpolicies' });
