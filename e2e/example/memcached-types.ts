import type { Condition, ListMeta, ObjectMeta, int32 } from '@opgen/runtime';
import { GroupVersion } from './groupversion-info.js';

// The user's part of the example: the Memcached API from kubebuilder's tutorial, written in TypeScript.

/**
 * MemcachedSpec defines the desired state of Memcached.
 */
export interface MemcachedSpec {
  /**
   * size defines the number of Memcached instances.
   * +kubebuilder:validation:Minimum=1
   * +kubebuilder:validation:Maximum=3
   * +kubebuilder:validation:ExclusiveMaximum=false
   * +kubebuilder:default=1
   */
  size?: int32;

  /**
   * containerPort is the port the memcached container listens on.
   * +kubebuilder:validation:Minimum=1
   * +kubebuilder:validation:Maximum=65535
   */
  containerPort: int32;

  /**
   * image overrides the memcached image.
   * +kubebuilder:validation:MinLength=1
   */
  image?: string;

  /**
   * logLevel of the memcached process.
   */
  logLevel?: 'info' | 'verbose' | 'debug';
}

/**
 * MemcachedStatus defines the observed state of Memcached.
 */
export interface MemcachedStatus {
  /**
   * conditions report how the Memcached is doing: Available, Progressing, Degraded.
   * +listType=map
   * +listMapKey=type
   */
  conditions?: Condition[];
}

/**
 * Memcached is the Schema for the memcacheds API.
 * +kubebuilder:object:root=true
 * +kubebuilder:subresource:status
 * +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=`.spec.size`
 * +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
 */
export interface Memcached {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  /** spec defines the desired state of Memcached */
  spec?: MemcachedSpec;
  /** status defines the observed state of Memcached */
  status?: MemcachedStatus;
}

/**
 * MemcachedList contains a list of Memcached.
 * +kubebuilder:object:root=true
 */
export interface MemcachedList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: Memcached[];
}

/** The Memcached kind, for the client, the cache and the controller builder. */
export const Memcached = GroupVersion.kind<Memcached>('Memcached', { plural: 'memcacheds', namespaced: true });
