// Prometheus metrics: the series (runtime-metrics.ts, over the registry) and the server that exposes them (server/).
export { Counter, Gauge, Histogram, MetricsRegistry, type CounterSeries, type GaugeSeries, type HistogramSeries, type HistogramOptions, type MetricOptions, type MetricsSource } from './registry.js';
export { RuntimeMetrics, type ReconcileResult, type WorkqueueMetrics, type ControllerMetrics, type WebhookMetrics } from './runtime-metrics.js';
export { startMetricsServer, type MetricsServerOptions } from './server/server.js';
