import type { V1JobTemplateSpec, V1ObjectReference } from '@kubernetes/client-node';
import type { int32, int64, ListMeta, ObjectMeta, Time } from '@opgen/runtime';
import { GroupVersion } from './groupversion-info.js';

/**
 * ConcurrencyPolicy says what happens when a run is due while the previous one still runs.
 * Only one policy applies; without one, runs may overlap.
 */
export type ConcurrencyPolicy = 'Allow' | 'Forbid' | 'Replace';

/** CronJobSpec defines the desired state of CronJob. */
export interface CronJobSpec {
  // +kubebuilder:validation:MinLength=0
  /** The schedule, in cron format. */
  schedule: string;

  // +kubebuilder:validation:Minimum=0

  /** Deadline in seconds for starting a run that missed its time. */
  startingDeadlineSeconds?: int64;

  concurrencyPolicy?: ConcurrencyPolicy;

  /** Suspend stops later runs; runs already started are not affected. */
  suspend?: boolean;

  /** JobTemplate is the job to create on each run. */
  jobTemplate: V1JobTemplateSpec;

  // +kubebuilder:validation:Minimum=0

  /** How many finished jobs to keep. */
  successfulJobsHistoryLimit?: int32;

  // +kubebuilder:validation:Minimum=0

  /** How many failed jobs to keep. */
  failedJobsHistoryLimit?: int32;
}

/** CronJobStatus defines the observed state of CronJob. */
export interface CronJobStatus {
  /** Active lists the jobs that are running. */
  active?: V1ObjectReference[];
  /** LastScheduleTime is when a job was last started. */
  lastScheduleTime?: Time;
}

/** CronJob runs a job on a schedule. */
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
export interface CronJob {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: CronJobSpec;
  status?: CronJobStatus;
}

/** CronJobList contains a list of CronJob. */
// +kubebuilder:object:root=true
export interface CronJobList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: CronJob[];
}

export const CronJob = GroupVersion.kind<CronJob>('CronJob', { plural: 'cronjobs' });
