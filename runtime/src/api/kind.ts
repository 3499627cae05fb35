import { pluralize } from './pluralize.js';
import type { KubeObject } from './types.js';

/**
 * What the runtime needs to know about a kind at run time. TypeScript interfaces vanish when compiled,
 * so each types module pairs its `interface Memcached` with a `const Memcached` of this shape
 * (declaration merging keeps one name for both), and the client, cache and builder take that value.
 */
export interface ResourceKind<T extends KubeObject = KubeObject> {
  /** API group; '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Lower-case plural used in URLs, e.g. `memcacheds`. */
  readonly plural: string;
  readonly namespaced: boolean;
  /** `group/version`, or `version` for the core group. */
  readonly apiVersion: string;
  /**
   * Which status is the healthy one, per condition type of this kind, beside the defaults for well-known
   * types (conditionPolarity in @opgen/runtime's helpers): condition Events, metrics and alerts use it.
   */
  readonly conditionPolarity?: Readonly<Record<string, ConditionPolarity>>;
  /** Phantom field carrying the object type; never set at run time. */
  readonly __type?: T;
}

/**
 * A condition type's polarity (Kubernetes API conventions, kstatus): `normal-true` when True is the healthy
 * status (Ready, Available), `abnormal-true` when True reports a problem (Degraded, Stalled), `neutral`
 * when neither status is one (Progressing: True while a rollout runs, False once it is done).
 */
export type ConditionPolarity = 'normal-true' | 'abnormal-true' | 'neutral';

/** What `kind()` accepts besides the kind's name. */
export interface KindOptions {
  plural?: string;
  namespaced?: boolean;
  /** Polarity of this kind's own condition types, e.g. `{ Degraded: 'abnormal-true', BackupFailed: 'abnormal-true' }`. */
  conditionPolarity?: Readonly<Record<string, ConditionPolarity>>;
}

export interface GroupVersion {
  readonly group: string;
  readonly version: string;
  /**
   * Describes a kind of this group-version. `plural` defaults to kubebuilder's (flect's) plural of the
   * kind, the one `opgen generate` gives its CRD (`Policy` → `policies`); scaffolded code passes it anyway.
   */
  kind<T extends KubeObject>(kind: string, options?: KindOptions): ResourceKind<T>;
}

export function groupVersion(group: string, version: string): GroupVersion {
  const apiVersion = group === '' ? version : `${group}/${version}`;
  return {
    group,
    version,
    kind<T extends KubeObject>(kind: string, options: KindOptions = {}): ResourceKind<T> {
      return Object.freeze({
        group,
        version,
        kind,
        plural: options.plural ?? pluralize(kind),
        namespaced: options.namespaced ?? true,
        apiVersion,
        ...(options.conditionPolarity ? { conditionPolarity: Object.freeze({ ...options.conditionPolarity }) } : {}),
      });
    },
  };
}
