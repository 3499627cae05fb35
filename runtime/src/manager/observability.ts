// What a manager emits about itself besides logs, gathered so the manager calls one object at each
// point of its life: the tracer (from OTEL_* unless given), the observer of its transport's requests,
// the condition-transition observer of the kinds its controllers reconcile, operator_up,
// leader_election_master_status, and the event recorders whose series counts are written on shutdown.
import type { ResourceKind } from '../api/kind.js';
import type { Informer } from '../cache/informer.js';
import { ConditionObserver } from '../events/conditions.js';
import { createEventRecorder, type EventRecorder, type SeriesEventRecorder } from '../events/index.js';
import type { Writer } from '../client/client.js';
import type { Logger } from '../log/index.js';
import { tracerFromEnv } from '../tracing/env.js';
import { requestObserver } from '../tracing/instrument.js';
import type { RequestObserver } from '../transport/observer.js';
import type { Tracer } from '../tracing/tracer.js';
import type { RuntimeMetrics } from '../metrics/runtime-metrics.js';

export interface ObservabilityOptions {
  metrics: RuntimeMetrics;
  log: Logger;
  /** A tracer of your own; null turns tracing off; default tracerFromEnv() (OTEL_* variables). */
  tracer?: Tracer | null;
  /** Record an Event on an object when one of its conditions transitions; default true. */
  conditionEvents?: boolean;
}

export class Observability {
  readonly tracer?: Tracer;
  readonly requestObserver?: RequestObserver;
  private readonly recorders = new Set<SeriesEventRecorder>();
  private conditionObserver?: ConditionObserver;

  constructor(private readonly opts: ObservabilityOptions) {
    this.tracer = opts.tracer === undefined ? tracerFromEnv(process.env, opts.log.child({ logger: 'tracing' })) : (opts.tracer ?? undefined);
    this.requestObserver = requestObserver(opts.metrics, this.tracer);
  }

  /**
   * The Runnable (leader only) that turns condition transitions of the kinds given to observeConditions()
   * into Events and series; `recorder` makes the recorder of a kind's Events.
   */
  conditions(informerFor: (kind: ResourceKind) => Informer, recorder: (name: string) => EventRecorder): ConditionObserver {
    this.conditionObserver ??= new ConditionObserver({
      registry: this.opts.metrics.registry,
      informerFor,
      recorder: this.opts.conditionEvents === false ? undefined : (kind) => recorder(`${kind.kind.toLowerCase()}-conditions`),
      log: this.opts.log.child({ logger: 'conditions' }),
    });
    return this.conditionObserver;
  }

  /** Condition transitions of `kind` are observed (once, however many controllers reconcile it). */
  observeConditions(kind: ResourceKind): void {
    this.conditionObserver?.observe(kind);
  }

  /** A recorder whose pending series counts flushRecorders() writes. */
  recorder(opts: { name: string; writer: Writer; log: Logger; track: (p: Promise<unknown>) => void }): SeriesEventRecorder {
    const r = createEventRecorder(opts);
    this.recorders.add(r);
    return r;
  }

  started(): void {
    this.opts.metrics.up(true);
  }

  /** The manager campaigns for, holds or no longer holds the lease `name`. */
  leading(name: string, leading: boolean): void {
    this.opts.metrics.leaderElection(name, leading);
  }

  /** Writes the event series counts the API server does not have yet (before the manager waits for its event writes). */
  flushRecorders(): void {
    for (const r of this.recorders) void r.flush();
  }

  /** The manager stopped: operator_up 0, spans sent. */
  async stopped(): Promise<void> {
    this.opts.metrics.up(false);
    await this.tracer?.shutdown();
  }
}
