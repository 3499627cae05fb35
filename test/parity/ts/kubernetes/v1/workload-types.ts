import type {
  EventsV1EventSeries,
  V1Affinity,
  V1Container,
  V1ContainerState,
  V1DeploymentStrategy,
  V1EnvVar,
  V1LabelSelector,
  V1LocalObjectReference,
  V1ObjectReference,
  V1PodTemplateSpec,
  V1ResourceRequirements,
  V1SecretKeySelector,
  V1ServicePort,
  V1Toleration,
} from '@kubernetes/client-node';
import type { Condition, ObjectMeta } from '@opgen/runtime';
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
  tolerations?: V1Toleration[];
  affinity?: V1Affinity;
  /** Selector picks the pods. */
  selector: V1LabelSelector;
  imagePullSecrets?: V1LocalObjectReference[];
  /** Password to use. */
  password?: V1SecretKeySelector;
  /** Strategy may be null. */
  strategy?: V1DeploymentStrategy | null;
  ports?: V1ServicePort[];
  owner?: V1ObjectReference;
  /** Series uses a model client-node names with its group. */
  series?: EventsV1EventSeries;
}

/** WorkloadStatus defines the observed state of Workload. */
export interface WorkloadStatus {
  conditions?: Condition[];
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
