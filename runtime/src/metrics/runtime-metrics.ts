// Prometheus metrics with controller-runtime's names, labels and buckets, so dashboards and alerts
// written for Go operators work unchanged. Everything hangs off one injected registry (no module
// globals), so two managers in one process, or one test after another, never share counters.
// The series only: this file imports nothing above the registry (the server that exposes them is
// server/server.ts), so any layer can report into it.
import { registerProcessMetrics } from './process-metrics.js';
import { Counter, Gauge, Histogram, MetricsRegistry, type CounterSeries, type HistogramSeries } from './registry.js';

export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

/** The workqueue metrics of one named queue (controller-runtime names the queue after its controller). */
export interface WorkqueueMetrics {
  add(): void;
  depth(n: number): void;
  queueDuration(seconds: number): void;
  workDuration(seconds: number): void;
  /** An item added with a non-zero delay (a rate-limited retry, a requeueAfter, an addAfter). */
  retry(): void;
  /**
   * Where the queue keeps the start times (performance.now()) of the items being processed:
   * workqueue_unfinished_work_seconds and _longest_running_processor_seconds are read from it at
   * every scrape (client-go recomputes them every 500 ms).
   */
  processing?(startTimes: () => Iterable<number>): void;
}

/** One controller's series, created (at 0) when the controller is built, as controller-runtime's initMetrics. */
export interface ControllerMetrics {
  /** A worker took a request (controller_runtime_active_workers + 1). */
  workerStarted(): void;
  workerFinished(): void;
  /** A reconcile ended in a TerminalError (not retried). */
  terminalError(): void;
  /** A reconcile threw what in Go would have been a panic (see isPanic in reconcile metrics). */
  panic(): void;
  /** A reconcile was cut short by the controller's reconcile timeout. */
  timeout(): void;
  /** operator_reconcile_duration_seconds{kind,result}. */
  duration(result: ReconcileResult, seconds: number): void;
}

/** The series of one admission or conversion webhook path. */
export interface WebhookMetrics {
  /** A request arrived; call the returned function with the HTTP status once answered. */
  request(): (code: number) => void;
}

// controller-runtime's ReconcileTime buckets.
const reconcileTimeBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** prometheus.ExponentialBuckets, computed by repeated multiplication as Go does, so the `le` bounds are the same floats. */
function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const buckets: number[] = [];
  for (let i = 0, bound = start; i < count; i++, bound *= factor) buckets.push(bound);
  return buckets;
}
const workqueueDurationBuckets = exponentialBuckets(10e-9, 10, 12);

export class RuntimeMetrics {
  readonly registry: MetricsRegistry;
  private readonly reconcileTotalCounter: Counter<'controller' | 'result'>;
  private readonly reconcileErrorsCounter: Counter<'controller'>;
  private readonly reconcileTimeHistogram: Histogram<'controller'>;
  private readonly workqueueDepth: Gauge<'name' | 'controller' | 'priority'>;
  private readonly workqueueAdds: Counter<'name' | 'controller'>;
  private readonly workqueueQueueDuration: Histogram<'name' | 'controller'>;
  private readonly workqueueWorkDuration: Histogram<'name' | 'controller'>;
  private readonly workqueueRetries: Counter<'name' | 'controller'>;
  private readonly workqueueUnfinished: Gauge<'name' | 'controller'>;
  private readonly workqueueLongest: Gauge<'name' | 'controller'>;
  private readonly terminalErrors: Counter<'controller'>;
  private readonly panics: Counter<'controller'>;
  private readonly timeouts: Counter<'controller'>;
  private readonly maxConcurrent: Gauge<'controller'>;
  private readonly activeWorkers: Gauge<'controller'>;
  private readonly leaderStatus: Gauge<'name'>;
  private readonly restRequests: Counter<'code' | 'method' | 'host'>;
  private readonly restSeries = new Map<string, CounterSeries>();
  private readonly webhookLatency: Histogram<'webhook'>;
  private readonly webhookRequests: Counter<'webhook' | 'code'>;
  private readonly webhookInFlight: Gauge<'webhook'>;
  private readonly webhookPanicsCounter: Counter;
  private readonly conversionPanicsCounter: Counter;
  private readonly certReads: Counter;
  private readonly certReadErrors: Counter;
  private readonly operatorReconcileDuration: Histogram<'kind' | 'result'>;
  private readonly operatorUp: Gauge;

  constructor(registry: MetricsRegistry = new MetricsRegistry()) {
    this.registry = registry;
    this.reconcileTotalCounter = registry.counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
    });
    this.reconcileErrorsCounter = registry.counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
    });
    this.reconcileTimeHistogram = registry.histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: reconcileTimeBuckets,
    });
    // controller-runtime added the `priority` label for its priority queue; plain queues leave it empty.
    this.workqueueDepth = registry.gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue by workqueue and priority',
      labelNames: ['name', 'controller', 'priority'],
    });
    this.workqueueAdds = registry.counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name', 'controller'],
    });
    this.workqueueQueueDuration = registry.histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name', 'controller'],
      buckets: workqueueDurationBuckets,
    });
    this.workqueueWorkDuration = registry.histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames: ['name', 'controller'],
      buckets: workqueueDurationBuckets,
    });
    this.workqueueRetries = registry.counter({
      name: 'workqueue_retries_total',
      help: 'Total number of items added to the workqueue with a non-zero delay (rate-limited requeues, explicit RequeueAfter or AddAfter calls)',
      labelNames: ['name', 'controller'],
    });
    this.workqueueUnfinished = registry.gauge({
      name: 'workqueue_unfinished_work_seconds',
      help:
        'How many seconds of work has been done that is in progress and hasn\'t been observed by work_duration. ' +
        'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
      labelNames: ['name', 'controller'],
    });
    this.workqueueLongest = registry.gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running.',
      labelNames: ['name', 'controller'],
    });
    this.terminalErrors = registry.counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
    });
    this.panics = registry.counter({
      name: 'controller_runtime_reconcile_panics_total',
      help: 'Total number of reconciliation panics per controller',
      labelNames: ['controller'],
    });
    this.timeouts = registry.counter({
      name: 'controller_runtime_reconcile_timeouts_total',
      help: 'Total number of reconciliation timeouts per controller',
      labelNames: ['controller'],
    });
    this.maxConcurrent = registry.gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
    });
    this.activeWorkers = registry.gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
    });
    this.leaderStatus = registry.gauge({
      name: 'leader_election_master_status',
      help:
        "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ['name'],
    });
    this.restRequests = registry.counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'],
    });
    this.webhookLatency = registry.histogram({
      name: 'controller_runtime_webhook_latency_seconds',
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'],
      buckets: workqueueDurationBuckets,
    });
    this.webhookRequests = registry.counter({
      name: 'controller_runtime_webhook_requests_total',
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'],
    });
    this.webhookInFlight = registry.gauge({
      name: 'controller_runtime_webhook_requests_in_flight',
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'],
    });
    this.webhookPanicsCounter = registry.counter({ name: 'controller_runtime_webhook_panics_total', help: 'Total number of webhook panics' });
    this.conversionPanicsCounter = registry.counter({ name: 'controller_runtime_conversion_webhook_panics_total', help: 'Total number of conversion webhook panics' });
    this.certReads = registry.counter({ name: 'certwatcher_read_certificate_total', help: 'Total number of certificate reads' });
    this.certReadErrors = registry.counter({ name: 'certwatcher_read_certificate_errors_total', help: 'Total number of certificate read errors' });
    // The guide's two health series beside controller-runtime's: reconcile latency by the kind
    // reconciled and its result, and 1 while the manager runs.
    this.operatorReconcileDuration = registry.histogram({
      name: 'operator_reconcile_duration_seconds',
      help: 'Length of time per reconciliation by the kind reconciled and its result',
      labelNames: ['kind', 'result'],
      buckets: reconcileTimeBuckets,
    });
    this.operatorUp = registry.gauge({ name: 'operator_up', help: '1 while the operator\'s manager is running, 0 once it has stopped' });
    // The Node counterpart of controller-runtime's process and Go runtime collectors.
    registerProcessMetrics(registry);
  }

  reconcileTotal(controller: string, result: ReconcileResult): void {
    this.reconcileTotalCounter.inc({ controller, result });
  }

  reconcileError(controller: string): void {
    this.reconcileErrorsCounter.inc({ controller });
  }

  reconcileTime(controller: string, seconds: number): void {
    this.reconcileTimeHistogram.observe({ controller }, seconds);
  }

  /**
   * The series of controller `name` reconciling `kind`, created at 0 (and max_concurrent_reconciles
   * set) now, as controller-runtime's initMetrics does when a controller starts.
   */
  controller(name: string, kind: string, maxConcurrentReconciles: number): ControllerMetrics {
    const labels = { controller: name };
    for (const result of ['error', 'requeue_after', 'requeue', 'success'] as const) this.reconcileTotalCounter.labels({ controller: name, result });
    this.reconcileErrorsCounter.labels(labels);
    const terminal = this.terminalErrors.labels(labels);
    const panics = this.panics.labels(labels);
    const timeouts = this.timeouts.labels(labels);
    this.maxConcurrent.labels(labels).set(maxConcurrentReconciles);
    const active = this.activeWorkers.labels(labels);
    active.set(0);
    const durations = new Map<ReconcileResult, HistogramSeries>();
    return {
      workerStarted: () => active.inc(),
      workerFinished: () => active.dec(),
      terminalError: () => terminal.inc(),
      panic: () => panics.inc(),
      timeout: () => timeouts.inc(),
      duration: (result, seconds) => {
        let series = durations.get(result);
        if (!series) durations.set(result, (series = this.operatorReconcileDuration.labels({ kind, result })));
        series.observe(seconds);
      },
    };
  }

  /** A reconcile of controller `name` was cut short by its reconcile timeout. */
  reconcileTimeout(name: string): void {
    this.timeouts.inc({ controller: name });
  }

  /** leader_election_master_status{name}: 1 while this replica holds the lease `name`, else 0. */
  leaderElection(name: string, leading: boolean): void {
    this.leaderStatus.set({ name }, leading ? 1 : 0);
  }

  /** One answered API request (client-go's rest_client_requests_total; code '<error>' when none came). */
  restClientRequest(code: string, method: string, host: string): void {
    // Bound once per code/method/host: this runs on every request.
    const key = `${code} ${method} ${host}`;
    let series = this.restSeries.get(key);
    if (!series) this.restSeries.set(key, (series = this.restRequests.labels({ code, method, host })));
    series.inc();
  }

  /** The series of the webhook at `path`, with its 200 and 500 counts at 0 (controller-runtime's InstrumentedHook). */
  webhook(path: string): WebhookMetrics {
    const latency = this.webhookLatency.labels({ webhook: path });
    const inFlight = this.webhookInFlight.labels({ webhook: path });
    const byCode = new Map<number, CounterSeries>();
    const count = (code: number) => {
      let series = byCode.get(code);
      if (!series) byCode.set(code, (series = this.webhookRequests.labels({ webhook: path, code: String(code) })));
      return series;
    };
    count(200);
    count(500);
    return {
      request: () => {
        const started = performance.now();
        inFlight.inc();
        return (code) => {
          inFlight.dec();
          count(code).inc();
          latency.observe((performance.now() - started) / 1000);
        };
      },
    };
  }

  /** An admission (or, with `conversion`, a conversion) handler threw what in Go would have been a panic. */
  webhookPanic(conversion = false): void {
    (conversion ? this.conversionPanicsCounter : this.webhookPanicsCounter).inc();
  }

  /** A serving certificate was read (certwatcher_read_certificate_total), or failed to be. */
  certificateRead(ok: boolean): void {
    this.certReads.inc();
    if (!ok) this.certReadErrors.inc();
  }

  /** operator_up: 1 while a manager using these metrics runs. */
  up(running: boolean): void {
    this.operatorUp.labels().set(running ? 1 : 0);
  }

  /** Metrics for the queue called `name`; like controller-runtime, the `controller` label repeats the queue name. */
  workqueue(name: string): WorkqueueMetrics {
    const labels = { name, controller: name };
    // Bound series, created now so a fresh controller shows depth 0 and adds 0 rather than nothing.
    const depth = this.workqueueDepth.labels({ ...labels, priority: '' });
    const adds = this.workqueueAdds.labels(labels);
    const retries = this.workqueueRetries.labels(labels);
    const queueDuration = this.workqueueQueueDuration.labels(labels);
    const workDuration = this.workqueueWorkDuration.labels(labels);
    const unfinished = this.workqueueUnfinished.labels(labels);
    const longest = this.workqueueLongest.labels(labels);
    return {
      add: () => adds.inc(),
      depth: (n) => depth.set(n),
      queueDuration: (seconds) => queueDuration.observe(seconds),
      workDuration: (seconds) => workDuration.observe(seconds),
      retry: () => retries.inc(),
      processing: (startTimes) => {
        this.registry.onScrape(() => {
          const now = performance.now();
          let total = 0;
          let oldest = 0;
          for (const started of startTimes()) {
            const age = (now - started) / 1000;
            total += age;
            if (age > oldest) oldest = age;
          }
          unfinished.set(total);
          longest.set(oldest);
        });
      },
    };
  }
}
