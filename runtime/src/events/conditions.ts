// Condition transitions, observed where they are true: in what the API server stored. The observer
// watches (through the manager's shared informers) every kind a controller reconciles and compares each
// stored version of an object with the one before. A condition that appears, or whose status or
// lastTransitionTime changes, has made a transition: one Event on the object and one count. A write
// that leaves lastTransitionTime alone — a retry, a second replica setting the same condition, a
// reason-only refresh — is not one. The observer runs on the leader only (like the controllers), so
// several replicas count each transition once.
//
// Whether a state is a problem is the condition type's polarity (helpers/conditions.ts): Degraded=True
// and Ready=False are abnormal, Degraded=False and Ready=True are not. An Event into an abnormal state
// is a Warning, every other one Normal; every series carries abnormal="true"|"false".
//
// Series (bounded: see maxReasonsPerType):
//   operator_condition_objects{kind,type,status,reason,abnormal}           objects whose condition is in that state
//   operator_condition_transitions_total{kind,type,status,reason,abnormal} transitions into that state; a state
//                                                    seen on an object is exported at 0 before its first transition
//   operator_condition_last_transition_time_seconds{kind,namespace,name,type,status,reason,abnormal}
//                                                    one per object and condition type: dwell = time() - it
//   operator_condition_state_duration_seconds{kind,type,status,abnormal}   (histogram) how long objects stayed
//                                                    in the state a transition leaves
import type { ResourceKind } from '../api/kind.js';
import type { Condition, KubeObject } from '../api/types.js';
import type { EventHandlers, Informer } from '../cache/informer.js';
import { conditionPolarity, isAbnormalStatus, secondsBetween } from '../helpers/conditions.js';
import type { Logger } from '../log/index.js';
import type { Counter, Gauge, Histogram, MetricsRegistry } from '../metrics/registry.js';
import type { EventRecorder } from './index.js';

/**
 * Distinct reasons kept as label values per kind and condition type; later new reasons are counted
 * under reason="other", so a reason carrying an id or a message cannot grow the series without bound.
 */
export const maxReasonsPerType = 32;
export const otherReason = 'other';

export interface ConditionTransition {
  kind: string;
  type: string;
  from?: Condition;
  to: Condition;
}

export interface ConditionObserverOptions {
  registry?: MetricsRegistry;
  /** The recorder of a kind's transition Events; undefined records none. */
  recorder?: (kind: ResourceKind) => EventRecorder;
  informerFor: (kind: ResourceKind) => Informer;
  log?: Logger;
}

/** The labels of one condition's state: abnormal is "true" or "false", from the type's polarity. */
interface StateLabels { status: string; reason: string; abnormal: string }

interface Tracked {
  kind: ResourceKind;
  namespace: string;
  name: string;
  /** Per condition type: the labels its series carry now. */
  conditions: Map<string, StateLabels>;
}

/**
 * Upper bounds of operator_condition_state_duration_seconds: from a second (a flapping condition) to a
 * week (an outage nobody noticed).
 */
export const stateDurationBuckets = [1, 5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 43200, 86400, 259200, 604800];

export class ConditionMetrics {
  readonly objects: Gauge<'kind' | 'type' | 'status' | 'reason' | 'abnormal'>;
  readonly transitions: Counter<'kind' | 'type' | 'status' | 'reason' | 'abnormal'>;
  readonly lastTransition: Gauge<'kind' | 'namespace' | 'name' | 'type' | 'status' | 'reason' | 'abnormal'>;
  readonly stateDuration: Histogram<'kind' | 'type' | 'status' | 'abnormal'>;
  private readonly reasons = new Map<string, Set<string>>();

  constructor(registry: MetricsRegistry) {
    this.objects = registry.gauge({
      name: 'operator_condition_objects',
      help: 'Objects whose status condition of this type has this status and reason (at most 32 reasons per kind and type; more are reason="other"); abnormal="true" when the status is the problem one for the type\'s polarity',
      labelNames: ['kind', 'type', 'status', 'reason', 'abnormal'],
    });
    this.transitions = registry.counter({
      name: 'operator_condition_transitions_total',
      help: 'Condition transitions (a new condition, or a new status or lastTransitionTime) by the status and reason transitioned to',
      labelNames: ['kind', 'type', 'status', 'reason', 'abnormal'],
    });
    this.lastTransition = registry.gauge({
      name: 'operator_condition_last_transition_time_seconds',
      help: "The condition's lastTransitionTime, in seconds since the Unix epoch: time() minus it is how long the condition has been in its status",
      labelNames: ['kind', 'namespace', 'name', 'type', 'status', 'reason', 'abnormal'],
    });
    this.stateDuration = registry.histogram({
      name: 'operator_condition_state_duration_seconds',
      help: 'How long a condition stayed in the status a transition leaves (from its lastTransitionTime to the next), by that status',
      labelNames: ['kind', 'type', 'status', 'abnormal'],
      buckets: stateDurationBuckets,
    });
  }

  /** The state labels of condition `c` of `kind`. */
  state(kind: ResourceKind, c: Condition): StateLabels {
    return { status: c.status, reason: this.reasonLabel(kind.kind, c.type, c.reason), abnormal: String(isAbnormalStatus(conditionPolarity(kind, c.type), c.status)) };
  }

  /** The reason as a label value: itself while fewer than maxReasonsPerType were seen for kind/type, else "other". */
  reasonLabel(kind: string, type: string, reason: string | undefined): string {
    const key = `${kind}\u0000${type}`;
    let seen = this.reasons.get(key);
    if (!seen) this.reasons.set(key, (seen = new Set()));
    const r = reason ?? '';
    if (seen.has(r)) return r;
    if (seen.size >= maxReasonsPerType) return otherReason;
    seen.add(r);
    return r;
  }
}

/** A Runnable (leader only) that observes the conditions of the kinds given to observe(). */
export class ConditionObserver {
  readonly needLeaderElection = true;
  private readonly kinds = new Map<string, ResourceKind>();
  private readonly metrics?: ConditionMetrics;
  private readonly tracked = new Map<string, Tracked>();
  private attach?: (kind: ResourceKind) => void;

  constructor(private readonly opts: ConditionObserverOptions) {
    if (opts.registry) this.metrics = new ConditionMetrics(opts.registry);
  }

  /** Observes `kind` (once, however many controllers reconcile it). */
  observe(kind: ResourceKind): void {
    const key = `${kind.group}/${kind.kind}`;
    if (this.kinds.has(key)) return;
    this.kinds.set(key, kind);
    this.attach?.(kind);
  }

  async start(signal: AbortSignal): Promise<void> {
    const attached: { informer: Informer; handlers: EventHandlers }[] = [];
    this.attach = (kind) => {
      const informer = this.opts.informerFor(kind);
      const handlers = this.handlersFor(kind);
      informer.addEventHandler(handlers);
      attached.push({ informer, handlers });
    };
    for (const kind of this.kinds.values()) this.attach(kind);
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    this.attach = undefined;
    for (const { informer, handlers } of attached) informer.removeEventHandler(handlers);
  }

  private handlersFor(kind: ResourceKind): EventHandlers {
    const recorder = this.opts.recorder?.(kind);
    return {
      // Objects listed when the observer starts (a new leader) are counted, not announced: their
      // transitions happened before, under whoever led then.
      onAdd: (obj) => this.track(kind, obj),
      onUpdate: (oldObj, newObj) => {
        for (const t of conditionTransitions(kind.kind, conditionsOf(oldObj), conditionsOf(newObj))) {
          const { from, to } = t;
          const abnormal = isAbnormalStatus(conditionPolarity(kind, to.type), to.status);
          const m = this.metrics;
          if (m) {
            m.transitions.inc({ kind: kind.kind, type: to.type, ...m.state(kind, to) });
            const stayed = from && secondsBetween(from.lastTransitionTime, to.lastTransitionTime);
            if (from && stayed !== undefined) {
              m.stateDuration.observe({ kind: kind.kind, type: from.type, status: from.status, abnormal: m.state(kind, from).abnormal }, stayed);
            }
          }
          recorder?.event(newObj, abnormal ? 'Warning' : 'Normal', to.reason || 'ConditionChanged', transitionNote(t), 'ConditionTransition');
          this.opts.log?.debug('condition transition', { kind: kind.kind, namespace: newObj.metadata?.namespace, name: newObj.metadata?.name, type: to.type, from: from?.status, to: to.status, reason: to.reason, abnormal });
        }
        this.track(kind, newObj);
      },
      onDelete: (obj) => this.forget(obj),
    };
  }

  /** Moves the object's series to what its conditions say now. */
  private track(kind: ResourceKind, obj: KubeObject): void {
    const m = this.metrics;
    if (!m) return;
    const key = objectKey(obj);
    let t = this.tracked.get(key);
    if (!t) {
      t = { kind, namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '', conditions: new Map() };
      this.tracked.set(key, t);
    }
    const now = new Map<string, Condition>(conditionsOf(obj).map((c) => [c.type, c]));
    for (const [type, labels] of t.conditions) {
      const c = now.get(type);
      if (c && c.status === labels.status && m.reasonLabel(kind.kind, type, c.reason) === labels.reason) continue;
      this.drop(t, type, labels);
    }
    for (const [type, c] of now) {
      const state = m.state(kind, c);
      const seconds = Date.parse(c.lastTransitionTime) / 1000;
      if (!t.conditions.has(type)) {
        m.objects.labels({ kind: kind.kind, type, ...state }).inc();
        // The state's transitions series exists from now on (at 0 until counted), so the next
        // transition into it is an increase Prometheus sees.
        m.transitions.labels({ kind: kind.kind, type, ...state });
        t.conditions.set(type, state);
      }
      if (Number.isFinite(seconds)) m.lastTransition.set({ kind: kind.kind, namespace: t.namespace, name: t.name, type, ...state }, seconds);
    }
    if (t.conditions.size === 0) this.tracked.delete(key);
  }

  private forget(obj: KubeObject): void {
    const key = objectKey(obj);
    const t = this.tracked.get(key);
    if (!t) return;
    for (const [type, labels] of t.conditions) this.drop(t, type, labels);
    this.tracked.delete(key);
  }

  private drop(t: Tracked, type: string, labels: StateLabels): void {
    const m = this.metrics!;
    m.objects.labels({ kind: t.kind.kind, type, ...labels }).dec();
    m.lastTransition.remove({ kind: t.kind.kind, namespace: t.namespace, name: t.name, type, ...labels });
    t.conditions.delete(type);
  }
}

/**
 * The transitions between two stored versions of an object's conditions: a condition that is new, or
 * whose status or lastTransitionTime changed. Reason, message or observedGeneration alone do not count.
 */
export function conditionTransitions(kind: string, before: readonly Condition[], after: readonly Condition[]): ConditionTransition[] {
  const out: ConditionTransition[] = [];
  for (const to of after) {
    const from = before.find((c) => c.type === to.type);
    if (from && from.status === to.status && from.lastTransitionTime === to.lastTransitionTime) continue;
    out.push({ kind, type: to.type, from, to });
  }
  return out;
}

/**
 * `Ready: False → True after 2m5s: 3 of 3 replicas ready (was DeploymentProgressing: 1 of 3 replicas ready)`:
 * "after" is how long the condition stayed in the status it leaves.
 */
export function transitionNote(t: ConditionTransition): string {
  const stayed = t.from && secondsBetween(t.from.lastTransitionTime, t.to.lastTransitionTime);
  const after = stayed === undefined ? '' : ` after ${formatDuration(stayed)}`;
  const now = `${t.type}: ${t.from?.status ?? 'absent'} → ${t.to.status}${after}${t.to.message ? `: ${t.to.message}` : ''}`;
  if (!t.from) return now;
  const was = [t.from.reason, t.from.message].filter(Boolean).join(': ');
  return was ? `${now} (was ${was})` : now;
}

/** Whole seconds as Go's time.Duration prints them: `45s`, `2m5s`, `26h0m0s`. */
export function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  return m > 0 ? `${m}m${s}s` : `${s}s`;
}

function conditionsOf(obj: KubeObject): Condition[] {
  const list = (obj as { status?: { conditions?: unknown } }).status?.conditions;
  return Array.isArray(list) ? (list as Condition[]).filter((c) => c && typeof c.type === 'string' && typeof c.status === 'string') : [];
}

function objectKey(obj: KubeObject): string {
  return obj.metadata?.uid ?? `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}
