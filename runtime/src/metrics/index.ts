// Prometheus metrics with controller-runtime's names, labels and buckets, so dashboards and alerts
// written for Go operators work unchanged. Everything hangs off one injected registry (no module
// globals), so two managers in one process, or one test after another, never share counters.
import { hostname } from 'node:os';
import { Transport } from '../transport/index.js';
import { CertWatcher, selfSignedCertificate } from '../internal/serving/cert-watcher.js';
import { serveUntilAborted, type CertificateSource } from '../internal/serving/http-server.js';
import type { KubeConfigLike } from '../kubeconfig/index.js';
import type { Logger } from '../log/index.js';
import { DelegatingAuth } from './internal/auth.js';
import { registerProcessMetrics } from './process-metrics.js';
import { Counter, Gauge, Histogram, MetricsRegistry } from './registry.js';

export { Counter, Gauge, Histogram, MetricsRegistry, type CounterSeries, type GaugeSeries, type HistogramSeries, type HistogramOptions, type MetricOptions, type MetricsSource } from './registry.js';

export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

/** The workqueue metrics of one named queue (controller-runtime names the queue after its controller). */
export interface WorkqueueMetrics {
  add(): void;
  depth(n: number): void;
  queueDuration(seconds: number): void;
  workDuration(seconds: number): void;
  retry(): void;
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
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name', 'controller'],
    });
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

  /** Metrics for the queue called `name`; like controller-runtime, the `controller` label repeats the queue name. */
  workqueue(name: string): WorkqueueMetrics {
    const labels = { name, controller: name };
    // Bound series, created now so a fresh controller shows depth 0 and adds 0 rather than nothing.
    const depth = this.workqueueDepth.labels({ ...labels, priority: '' });
    const adds = this.workqueueAdds.labels(labels);
    const retries = this.workqueueRetries.labels(labels);
    const queueDuration = this.workqueueQueueDuration.labels(labels);
    const workDuration = this.workqueueWorkDuration.labels(labels);
    return {
      add: () => adds.inc(),
      depth: (n) => depth.set(n),
      queueDuration: (seconds) => queueDuration.observe(seconds),
      workDuration: (seconds) => workDuration.observe(seconds),
      retry: () => retries.inc(),
    };
  }
}

export interface MetricsServerOptions {
  /**
   * HTTPS with authentication (TokenReview) and authorization (SubjectAccessReview: the request's verb
   * on the non-resource URL /metrics) by the API server of `kubeConfig`; default plain HTTP, open.
   */
  secure?: {
    kubeConfig: KubeConfigLike;
    /** Folder with tls.crt/tls.key (`--metrics-cert-path`), reloaded when it changes; default a self-signed certificate. */
    certDir?: string;
    certName?: string;
    keyName?: string;
    /**
     * How long an authentication/authorization answer is reused; default controller-runtime's: 1 min
     * for a TokenReview, 5 min for a SubjectAccessReview that allows and 30 s for one that denies. A
     * figure here replaces all three.
     */
    authCacheTtlMs?: number;
    certPollIntervalMs?: number;
    log?: Logger;
  };
}

/**
 * Serves `GET /metrics` in the Prometheus text format on `bindAddress` (':8080' style; '0' disables
 * and resolves `{ port: 0 }`) until `signal` aborts. Resolves with the bound port once listening.
 */
export function startMetricsServer(
  bindAddress: string,
  metrics: RuntimeMetrics,
  signal: AbortSignal,
  opts: MetricsServerOptions = {},
): Promise<{ port: number }> {
  const secure = opts.secure;
  let tls: CertificateSource | undefined;
  let auth: DelegatingAuth | undefined;
  if (secure && bindAddress !== '0' && !signal.aborted) {
    try {
      if (secure.certDir) {
        const watcher = new CertWatcher(secure.certDir, {
          certName: secure.certName,
          keyName: secure.keyName,
          pollIntervalMs: secure.certPollIntervalMs,
          onReload: () => secure.log?.info('metrics serving certificate reloaded', { certDir: secure.certDir }),
        });
        watcher.start(signal);
        tls = watcher;
      } else {
        tls = selfSignedCertificate(['localhost', '127.0.0.1', '::1', hostname()], 'opgen-metrics-server').source;
      }
    } catch (err) {
      return Promise.reject(new Error(`metrics server: ${(err as Error).message}`));
    }
    const transport = new Transport(secure.kubeConfig);
    signal.addEventListener('abort', () => transport.destroy(), { once: true });
    auth = new DelegatingAuth(transport, secure.authCacheTtlMs);
  }
  return serveUntilAborted(
    bindAddress,
    'metrics server',
    async (req, res) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' }).end('method not allowed\n');
        return;
      }
      if (auth) {
        const outcome = await auth.check(req, path);
        if (outcome.code !== 200) {
          res.writeHead(outcome.code, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${outcome.message}\n`);
          return;
        }
      }
      const body = await metrics.registry.metrics();
      res.writeHead(200, { 'Content-Type': metrics.registry.contentType });
      res.end(req.method === 'HEAD' ? undefined : body);
    },
    signal,
    { tls },
  );
}
