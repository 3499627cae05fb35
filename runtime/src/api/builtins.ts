// Built-in kinds scaffolded controllers commonly own or read. The object types describe the fields
// operators usually touch and leave the rest open (plain JSON as the API server sends it); users who
// need more can declare their own with `groupVersion('apps', 'v1').kind<MyDeployment>('Deployment')`.
import { groupVersion } from './kind.js';
import type { int32, MicroTime, ObjectMeta, Time } from './types.js';

const core = groupVersion('', 'v1');
const apps = groupVersion('apps', 'v1');
const batch = groupVersion('batch', 'v1');
const coordination = groupVersion('coordination.k8s.io', 'v1');

type Open = { [field: string]: unknown };

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: PodSpec;
}

export interface Container extends Open {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: ({ name: string; value?: string } & Open)[];
  ports?: ({ containerPort: int32; name?: string; protocol?: string } & Open)[];
}

export interface PodSpec extends Open {
  containers: Container[];
  initContainers?: Container[];
  serviceAccountName?: string;
  restartPolicy?: string;
}

interface Root {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

export interface ConfigMap extends Root {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}
export const ConfigMap = core.kind<ConfigMap>('ConfigMap');

export interface Secret extends Root {
  type?: string;
  /** Base64-encoded values. */
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
}
export const Secret = core.kind<Secret>('Secret');

export interface Service extends Root {
  spec?: Open & {
    type?: string;
    selector?: Record<string, string>;
    ports?: ({ port: int32; targetPort?: int32 | string; name?: string; protocol?: string } & Open)[];
    clusterIP?: string;
  };
  status?: Open;
}
export const Service = core.kind<Service>('Service');

export interface ServiceAccount extends Root {
  secrets?: ObjectReference[];
  imagePullSecrets?: { name: string }[];
  automountServiceAccountToken?: boolean;
}
export const ServiceAccount = core.kind<ServiceAccount>('ServiceAccount');

export interface Pod extends Root {
  spec?: PodSpec;
  status?: Open & { phase?: string; podIP?: string };
}
export const Pod = core.kind<Pod>('Pod');

export interface Namespace extends Root {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}
export const Namespace = core.kind<Namespace>('Namespace', { namespaced: false });

/** A core/v1 Event (the older events API; the runtime's EventRecorder writes events.k8s.io/v1). */
export interface Event extends Root {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  type?: string;
  count?: int32;
  firstTimestamp?: Time;
  lastTimestamp?: Time;
  eventTime?: MicroTime;
  source?: { component?: string; host?: string };
  action?: string;
  reportingComponent?: string;
  reportingInstance?: string;
}
export const Event = core.kind<Event>('Event');

interface WorkloadSpec extends Open {
  selector?: LabelSelector;
  template?: PodTemplateSpec;
}

export interface Deployment extends Root {
  spec?: WorkloadSpec & { replicas?: int32; strategy?: Open };
  status?: Open & { replicas?: int32; readyReplicas?: int32; availableReplicas?: int32; observedGeneration?: number };
}
export const Deployment = apps.kind<Deployment>('Deployment');

export interface StatefulSet extends Root {
  spec?: WorkloadSpec & { replicas?: int32; serviceName?: string };
  status?: Open & { replicas?: int32; readyReplicas?: int32; observedGeneration?: number };
}
export const StatefulSet = apps.kind<StatefulSet>('StatefulSet');

export interface DaemonSet extends Root {
  spec?: WorkloadSpec;
  status?: Open & { numberReady?: int32; desiredNumberScheduled?: int32; observedGeneration?: number };
}
export const DaemonSet = apps.kind<DaemonSet>('DaemonSet');

export interface JobSpec extends Open {
  template?: PodTemplateSpec;
  backoffLimit?: int32;
  completions?: int32;
  parallelism?: int32;
}

export interface Job extends Root {
  spec?: JobSpec;
  status?: Open & { active?: int32; succeeded?: int32; failed?: int32 };
}
export const Job = batch.kind<Job>('Job');

export interface CronJob extends Root {
  spec?: Open & { schedule: string; jobTemplate: { metadata?: ObjectMeta; spec?: JobSpec }; suspend?: boolean };
  status?: Open & { lastScheduleTime?: Time };
}
export const CronJob = batch.kind<CronJob>('CronJob');

export interface Lease extends Root {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: int32;
    acquireTime?: MicroTime;
    renewTime?: MicroTime;
    leaseTransitions?: int32;
  };
}
export const Lease = coordination.kind<Lease>('Lease');
