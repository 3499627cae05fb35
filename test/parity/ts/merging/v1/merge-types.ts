import type { int32, ObjectMeta } from '@opgen/runtime';

/**
 * Base carries type markers that must survive embedding.
 * +kubebuilder:validation:MinProperties=1
 * +kubebuilder:validation:XValidation:rule="!has(self.name) || self.name != 'forbidden'",message="name must not be forbidden"
 * +structType=atomic
 */
export interface Base {
  /** Name is optional. */
  name?: string;
  /**
   * Size is shared by every embedder.
   * +kubebuilder:validation:Maximum=10
   */
  size: int32;
}

/**
 * Extra has limits of its own.
 * +kubebuilder:validation:MaxProperties=5
 * +kubebuilder:validation:XValidation:rule="!has(self.note) || size(self.note) < 20",message="note is short"
 */
export interface Extra {
  note?: string;
}

/**
 * Derived embeds Base and adds markers: its MinProperties differs from Base's (both kept, in allOf), its
 * rule joins Base's.
 * +kubebuilder:validation:MinProperties=2
 * +kubebuilder:validation:XValidation:rule="self.mode != ''",message="mode is set"
 */
export interface Derived extends Base {
  /** Mode is required. */
  mode: string;
}

/**
 * Chain embeds a type that itself embeds Base.
 * +kubebuilder:validation:MaxProperties=4
 */
export interface Chain extends Derived {
  level?: int32;
}

/** MergeSpec uses each merged type as a field. */
export interface MergeSpec {
  /** Derived extends Base. */
  derived: Derived;
  /**
   * Both is an intersection, with a field marker of its own.
   * +kubebuilder:validation:XValidation:rule="self.size > 0",message="size is positive"
   */
  both?: Base & Extra;
  /** Chain extends twice. */
  chain?: Chain;
}

/** Merge holds merged types. */
// +kubebuilder:object:root=true
export interface Merge {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: MergeSpec;
}
