// Where reconciles and API requests meet metrics and tracing: a reconciler wrapped with its span and
// controller-runtime's per-controller series, and the observer the transport calls around each request
// (rest_client_requests_total, a client span under the active reconcile span, the W3C traceparent).
import type { ResourceKind } from '../api/kind.js';
import type { ControllerMetrics, ReconcileResult, RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { isTerminal, type Reconciler, type Result } from '../reconcile/index.js';
import type { RequestObserver } from '../transport/observer.js';
import { SpanKind, traceparent, type Span, type Tracer } from './tracer.js';

/**
 * The observer of a manager's transport: counts every request as client-go's rest_client_requests_total
 * (code '<error>' when no answer came), and inside a traced reconcile opens a client span and sends
 * its traceparent. Requests outside any span (the caches' lists and watches) get no span of their own.
 */
export function requestObserver(metrics: RuntimeMetrics | undefined, tracer: Tracer | undefined): RequestObserver | undefined {
  if (!metrics && !tracer) return undefined;
  return {
    begin(method, url) {
      const parent = tracer?.activeSpan();
      const span = parent && tracer
        ? tracer.startSpan(method, {
          kind: SpanKind.client,
          attributes: {
            'http.request.method': method,
            'server.address': url.hostname,
            'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
            'url.full': url.href,
          },
        })
        : undefined;
      return {
        headers: span ? { traceparent: traceparent(span.context) } : undefined,
        end(status) {
          metrics?.restClientRequest(status === undefined ? '<error>' : String(status), method, url.host);
          if (!span) return;
          if (status !== undefined) span.setAttribute('http.response.status_code', status);
          if (status === undefined || status >= 400) span.setError(status === undefined ? 'no response' : `HTTP ${status}`);
          span.end();
        },
      };
    },
  };
}

export interface InstrumentOptions {
  controller: string;
  kind: ResourceKind;
  maxConcurrentReconciles: number;
  metrics?: RuntimeMetrics;
  tracer?: Tracer;
}

/**
 * `reconciler` with a `reconcile` span per call (the root of a trace: controller, object, result,
 * requeue) under which its client calls are children, and the per-controller series controller-runtime
 * keeps besides the queue's and reconcile totals: active workers, terminal errors, panics, and the
 * guide's operator_reconcile_duration_seconds{kind,result}.
 */
export function instrumentReconciler(reconciler: Reconciler, opts: InstrumentOptions): Reconciler {
  const metrics: ControllerMetrics | undefined = opts.metrics?.controller(opts.controller, opts.kind.kind, opts.maxConcurrentReconciles);
  const tracer = opts.tracer;
  if (!metrics && !tracer) return reconciler;
  const group = opts.kind.group;
  return {
    async reconcile(req, ctx) {
      metrics?.workerStarted();
      const started = performance.now();
      let outcome: ReconcileResult = 'error';
      const span: Span | undefined = tracer?.startSpan('reconcile', {
        root: true,
        attributes: {
          'controller.name': opts.controller,
          'k8s.resource.group': group,
          'k8s.resource.kind': opts.kind.kind,
          'k8s.namespace.name': req.namespace,
          'k8s.object.name': req.name,
          'reconcile.id': ctx.reconcileID,
        },
      });
      try {
        const result = span ? await tracer!.withSpan(span, () => reconciler.reconcile(req, ctx)) : await reconciler.reconcile(req, ctx);
        outcome = resultOf(result);
        if (result && outcome === 'requeue_after') span?.setAttribute('reconcile.requeue_after_ms', result.requeueAfter);
        return result;
      } catch (err) {
        if (isTerminal(err)) metrics?.terminalError();
        if (isPanic(err)) metrics?.panic();
        span?.setError(err instanceof Error ? err.message : String(err));
        span?.setAttribute('reconcile.terminal', isTerminal(err));
        throw err;
      } finally {
        metrics?.workerFinished();
        metrics?.duration(outcome, (performance.now() - started) / 1000);
        span?.setAttribute('reconcile.result', outcome);
        span?.setAttribute('reconcile.requeue', outcome === 'requeue' || outcome === 'requeue_after');
        span?.end();
      }
    },
  };
}

/** The controller's result label for what reconcile() returned (the same rules the controller applies). */
function resultOf(result: Result | void): ReconcileResult {
  if (result && result.requeueAfter !== undefined && result.requeueAfter > 0) return 'requeue_after';
  if (result && result.requeue) return 'requeue';
  return 'success';
}

/**
 * What a Go reconciler would have panicked on: a programming error (TypeError — reading a property of
 * undefined —, ReferenceError, RangeError) or a thrown value that is not an Error at all.
 * controller-runtime recovers those panics and counts them in controller_runtime_reconcile_panics_total.
 */
export function isPanic(err: unknown): boolean {
  return !(err instanceof Error) || err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError;
}
