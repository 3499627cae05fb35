// webhookFor(mgr, Kind): the webhook counterpart of controllerFor, registering a kind's defaulting
// and validating webhooks at kubebuilder's paths and its conversions at /convert.
import type { ResourceKind } from '../api/kind.js';
import type { KubeObject } from '../api/types.js';
import { defaultingHandler, validatingHandler } from './admission.js';
import type { WebhookServer } from './server.js';
import type { Conversion, Defaulter, SpokeConversion, Validator } from './types.js';

type KindRef = Pick<ResourceKind, 'group' | 'version' | 'kind'>;

/** kubebuilder's path for a kind's webhook: `/<prefix>-<group, dots→dashes>-<version>-<kind lowercased>`. */
function webhookPath(prefix: 'mutate' | 'validate', kind: KindRef): string {
  return `/${prefix}-${kind.group.replace(/\./g, '-')}-${kind.version}-${kind.kind.toLowerCase()}`;
}

/** `/mutate-cache-example-com-v1alpha1-memcached`; the core group gives `/mutate--v1-pod` as kubebuilder. */
export function defaultingPath(kind: KindRef): string {
  return webhookPath('mutate', kind);
}

/** `/validate-cache-example-com-v1alpha1-memcached`. */
export function validationPath(kind: KindRef): string {
  return webhookPath('validate', kind);
}

export class WebhookBuilder<T extends KubeObject> {
  private defaulter?: { d: Defaulter<T>; path: string };
  private validator?: { v: Validator<T>; path: string };
  private conversion?: Conversion<T>;

  constructor(
    private readonly server: WebhookServer,
    private readonly kind: ResourceKind<T>,
  ) {}

  /** A defaulting webhook at `path` (default: defaultingPath(kind), as the +kubebuilder:webhook marker says). */
  withDefaulter(d: Defaulter<T>, opts: { path?: string } = {}): this {
    this.defaulter = { d, path: opts.path ?? defaultingPath(this.kind) };
    return this;
  }

  /** A validating webhook at `path` (default: validationPath(kind)). */
  withValidator(v: Validator<T>, opts: { path?: string } = {}): this {
    this.validator = { v, path: opts.path ?? validationPath(this.kind) };
    return this;
  }

  /**
   * Conversion through this kind's version as the hub (the storage version): `spokes` maps each
   * other version to its toHub/fromHub. `hub`, when given, must be this kind's version.
   */
  withConversion(conversion: { hub?: string; spokes: Record<string, SpokeConversion<any, T>> }): this {
    const hub = conversion.hub ?? this.kind.version;
    if (hub !== this.kind.version) {
      throw new Error(`webhookFor(${this.kind.kind} ${this.kind.version}).withConversion: hub '${hub}' is not this kind's version; pass the hub kind to webhookFor`);
    }
    this.conversion = { hub, spokes: conversion.spokes };
    return this;
  }

  /** Registers what was asked for with the manager's webhook server. */
  complete(): void {
    if (!this.defaulter && !this.validator && !this.conversion) {
      throw new Error(`webhookFor(${this.kind.kind}): give withDefaulter, withValidator or withConversion before complete()`);
    }
    if (this.defaulter) this.server.register(this.defaulter.path, defaultingHandler(this.defaulter.d));
    if (this.validator) this.server.register(this.validator.path, validatingHandler(this.validator.v));
    if (this.conversion) this.server.registerConversion(this.kind.group, this.kind.kind, this.conversion, this.kind.plural);
  }
}

/** `webhookFor(mgr, Memcached).withDefaulter(d).withValidator(v).complete()`. */
export function webhookFor<T extends KubeObject>(mgr: { readonly webhookServer: WebhookServer }, kind: ResourceKind<T>): WebhookBuilder<T> {
  return new WebhookBuilder(mgr.webhookServer, kind);
}
