import type {
  EventsV1EventSeries,
  V1Condition,
  V1Container,
  V1ContainerState,
  V1DeploymentStrategy,
  V1EnvVar,
  V1LabelSelector,
  V1LocalObjectReference,
  V1ObjectMeta,
  V1ObjectReference,
  V1OwnerReference,
  V1PersistentVolumeClaimSpec,
  V1PodSecurityContext,
  V1PodTemplateSpec,
  V1Probe,
  V1ResourceRequirements,
  V1SecretKeySelector,
  V1ServicePort,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
// Users import client-node models by name, renamed, or as a namespace; all three resolve the same way.
import type * as k8s from '@kubernetes/client-node';
import type { V1Toleration as Toleration } from '@kubernetes/client-node';
import type { ObjectMeta } from '@opgen/runtime';
import { GroupVersion } from './groupversion-info.js';

/** WorkloadSpec defines the desired state of Workload. */
export interface WorkloadSpec {
  /** Template describes the pods that will be created. */
  template: V1PodTemplateSpec;
  resources?: V1ResourceRequirements;
  /**
   * Sidecars run next to the main container.
   * +listType=map
   * +listMapKey=name
   */
  sidecars?: V1Container[];
  env?: V1EnvVar[];
  /**
   * Tolerations, at most three.
   * +kubebuilder:validation:MaxItems=3
   */
  tolerations?: Toleration[];
  affinity?: k8s.V1Affinity;
  /** Selector picks the pods. */
  selector: V1LabelSelector;
  imagePullSecrets?: V1LocalObjectReference[];
  /** Password to use. */
  password?: V1SecretKeySelector;
  /** Strategy may be null. */
  strategy?: V1DeploymentStrategy | null;
  ports?: V1ServicePort[];
  owner?: V1ObjectReference;
  volumes?: V1Volume[];
  volumeMounts?: V1VolumeMount[];
  /** LivenessProbe checks the workload. */
  livenessProbe?: V1Probe;
  securityContext?: V1PodSecurityContext;
  claimTemplate?: V1PersistentVolumeClaimSpec;
  /** ChildMeta is client-node's ObjectMeta: an object, as controller-gen emits embedded ObjectMeta. */
  childMeta?: V1ObjectMeta;
  owners?: V1OwnerReference[];
  /** Series uses a model client-node names with its group. */
  series?: EventsV1EventSeries;
}

/** WorkloadStatus defines the observed state of Workload. */
export interface WorkloadStatus {
  /**
   * Conditions typed with client-node's V1Condition in the TypeScript twin.
   * +listType=map
   * +listMapKey=type
   */
  conditions?: V1Condition[];
  /** LastState is the main container's last state. */
  lastState?: V1ContainerState;
}

/** Workload runs pods from a template. */
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
export interface Workload {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: WorkloadSpec;
  status?: WorkloadStatus;
}

export const Workload = GroupVersion.kind<Workload>('Workload', { plural: 'workloads' });
