// What a manager emits about itself besides logs, gathered so the manager calls one object at each
// point of its life: the tracer (when given), the observer of its transport's requests, operator_up,
// leader_election_master_status, and the event recorders whose series counts are written on shutdown.
import { createEventRecorder, type SeriesEventRecorder } from '../events/index.js';
import type { Writer } from '../client/client.js';
import type { Logger } from '../log/index.js';
import { requestObserver, type RequestObserver } from '../tracing/instrument.js';
import type { Tracer } from '../tracing/tracer.js';
import type { RuntimeMetrics } from './index.js';

export interface ObservabilityOptions {
  metrics: RuntimeMetrics;
  log: Logger;
  /** Spans of reconciles and their API calls; default none. */
  tracer?: Tracer | null;
}

export class Observability {
  readonly tracer?: Tracer;
  readonly requestObserver?: RequestObserver;
  private readonly recorders = new Set<SeriesEventRecorder>();

  constructor(private readonly opts: ObservabilityOptions) {
    this.tracer = opts.tracer ?? undefined;
    this.requestObserver = requestObserver(opts.metrics, this.tracer);
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
