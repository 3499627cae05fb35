// Status conditions with apimachinery's meta.SetStatusCondition semantics: one condition per type,
// lastTransitionTime moves only when status changes, and reason/message/observedGeneration are
// refreshed in place.
import { metaTime } from '../api/internal/micro-time.js';
import type { ConditionPolarity, ResourceKind } from '../api/kind.js';
import type { Condition } from '../api/types.js';
import { activeSpan } from '../tracing/tracer.js';

export type ConditionInput = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string };

/** metav1.Time: RFC 3339 with second precision. */
export function nowTime(): string {
  return metaTime(new Date());
}

/**
 * Sets `c` in a copy of `conditions` and says whether anything changed. The input array is not
 * modified; assign the result: `({ conditions: obj.status.conditions } = setStatusCondition(...))`.
 */
export function setStatusCondition(conditions: Condition[] | undefined, c: ConditionInput): { conditions: Condition[]; changed: boolean } {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((x) => x.type === c.type);
  if (i < 0) {
    list.push({ ...c, lastTransitionTime: c.lastTransitionTime ?? nowTime() });
    spanEvent(undefined, c);
    return { conditions: list, changed: true };
  }
  const existing = list[i]!;
  const next: Condition = { ...existing };
  let changed = false;
  if (existing.status !== c.status) {
    next.status = c.status;
    next.lastTransitionTime = c.lastTransitionTime ?? nowTime();
    changed = true;
    spanEvent(existing, c, secondsBetween(existing.lastTransitionTime, next.lastTransitionTime));
  }
  if (existing.reason !== c.reason) {
    next.reason = c.reason;
    changed = true;
  }
  if (existing.message !== c.message) {
    next.message = c.message;
    changed = true;
  }
  if (existing.observedGeneration !== c.observedGeneration) {
    next.observedGeneration = c.observedGeneration;
    changed = true;
  }
  list[i] = next;
  return { conditions: list, changed };
}

/**
 * `k8s.condition.transition` on the reconcile's span (when tracing is on): this reconcile moved the
 * condition. Whether the write then lands is the stored object's business; the Event and the
 * transition count come from there (events/conditions.ts).
 */
function spanEvent(from: Condition | undefined, to: ConditionInput, previousSeconds?: number): void {
  activeSpan()?.addEvent('k8s.condition.transition', {
    'k8s.condition.type': to.type,
    'k8s.condition.status': to.status,
    'k8s.condition.previous_status': from?.status ?? 'absent',
    'k8s.condition.previous_status_duration_seconds': previousSeconds,
    'k8s.condition.reason': to.reason,
    'k8s.condition.message': to.message,
  });
}

/** Whole seconds from one lastTransitionTime to the next; undefined when either does not parse or time ran back. */
export function secondsBetween(from: string | undefined, to: string | undefined): number | undefined {
  const s = (Date.parse(to ?? '') - Date.parse(from ?? '')) / 1000;
  return s >= 0 ? Math.round(s) : undefined;
}

/**
 * The polarity of well-known condition types, after the Kubernetes API conventions and kstatus: Ready
 * and Available are healthy when True; Degraded, Stalled and Reconciling report a problem (or, for
 * Reconciling, unfinished work) when True. Progressing is neutral: a Deployment keeps it True once
 * done, the operator convention (the tutorial's, OpenShift's) sets it True only while a change rolls
 * out; declare it on your kind when yours means one of them.
 */
export const defaultConditionPolarity: Readonly<Record<string, ConditionPolarity>> = Object.freeze({
  Ready: 'normal-true',
  Available: 'normal-true',
  Progressing: 'neutral',
  Degraded: 'abnormal-true',
  Stalled: 'abnormal-true',
  Reconciling: 'abnormal-true',
});

/**
 * The polarity of condition `type` on `kind`: the kind's own declaration (its `conditionPolarity`),
 * else the default for a well-known type, else normal-true (True is healthy, as with Ready).
 */
export function conditionPolarity(kind: Pick<ResourceKind, 'conditionPolarity'> | undefined, type: string): ConditionPolarity {
  return kind?.conditionPolarity?.[type] ?? defaultConditionPolarity[type] ?? 'normal-true';
}

/** Whether `status` is the problem one for this polarity: False when normal-true, True when abnormal-true. Unknown never is. */
export function isAbnormalStatus(polarity: ConditionPolarity, status: string): boolean {
  return (polarity === 'normal-true' && status === 'False') || (polarity === 'abnormal-true' && status === 'True');
}

/**
 * The printer-column markers that make `kubectl get <kind>` show the Ready condition: its status, its
 * reason and how long ago it last changed (a `date` column prints lastTransitionTime as an age). Put
 * them above the kind's interface, beside +kubebuilder:object:root=true, and regenerate the CRD.
 */
export const readyPrinterColumnMarkers: readonly string[] = [
  '+kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\\"Ready\\")].status"',
  '+kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type==\\"Ready\\")].reason"',
  '+kubebuilder:printcolumn:name="Since",type="date",JSONPath=".status.conditions[?(@.type==\\"Ready\\")].lastTransitionTime"',
];

export function findStatusCondition(conditions: Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isStatusConditionTrue(conditions: Condition[] | undefined, type: string): boolean {
  return findStatusCondition(conditions, type)?.status === 'True';
}

export function isStatusConditionFalse(conditions: Condition[] | undefined, type: string): boolean {
  return findStatusCondition(conditions, type)?.status === 'False';
}

/** Removes the condition of `type`; `changed` is false when there was none. */
export function removeStatusCondition(conditions: Condition[] | undefined, type: string): { conditions: Condition[]; changed: boolean } {
  const list = conditions ?? [];
  const kept = list.filter((c) => c.type !== type);
  return { conditions: kept, changed: kept.length !== list.length };
}

/** A condition to set on an object: observedGeneration defaults to the object's metadata.generation. */
export type ObjectConditionInput = Omit<ConditionInput, 'observedGeneration'> & { observedGeneration?: number };

/** Any object whose status may carry conditions (every kind with a `status.conditions` list). */
export interface WithConditions {
  metadata?: { generation?: number };
  status?: { conditions?: Condition[] };
}

/**
 * Sets each condition on `obj.status.conditions` in place (creating `status` and the list when
 * missing), with setStatusCondition's rules, and fills observedGeneration from metadata.generation.
 * Returns whether anything changed, i.e. whether the status needs writing:
 *
 *   if (setConditions(memcached, { type: 'Available', status: 'True', reason: 'Ready', message: 'all pods up' },
 *                                { type: 'Degraded', status: 'False', reason: 'Ready', message: '' })) {
 *     await client.status().update(Memcached, memcached);
 *   }
 */
export function setConditions(obj: WithConditions, ...conditions: ObjectConditionInput[]): boolean {
  const status = (obj.status ??= {});
  let list = status.conditions ?? [];
  let changed = false;
  for (const c of conditions) {
    const observedGeneration = c.observedGeneration ?? obj.metadata?.generation;
    const next = setStatusCondition(list, observedGeneration === undefined ? c : { ...c, observedGeneration });
    list = next.conditions;
    changed ||= next.changed;
  }
  if (changed || status.conditions === undefined) status.conditions = list;
  return changed;
}

/** Removes the conditions of the given types from `obj.status.conditions` in place; true if any was there. */
export function removeConditions(obj: WithConditions, ...types: string[]): boolean {
  const before = obj.status?.conditions;
  if (!before) return false;
  const kept = before.filter((c) => !types.includes(c.type));
  if (kept.length === before.length) return false;
  obj.status!.conditions = kept;
  return true;
}
