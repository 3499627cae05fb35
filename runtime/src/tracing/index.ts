export {
  Tracer, SpanKind, activeSpan, traceparent, parseTraceparent, alwaysOn, alwaysOff, traceIdRatio, parentBased, nowNs,
  type Span, type SpanContext, type SpanExporter, type FinishedSpan, type Sampler, type Attributes, type AttributeValue, type StartSpanOptions,
} from './tracer.js';
export { OtlpHttpExporter, otlpTraceRequest, type OtlpHttpExporterOptions } from './otlp.js';
export { tracerFromEnv, tracingConfig, type TracingConfig, type OtlpConfig, type Env } from './env.js';
export { ConsoleSpanExporter } from './console.js';
export { instrumentationScope } from './scope.js';
export { instrumentReconciler, requestObserver, isPanic, type InstrumentOptions } from './instrument.js';
export type { RequestObserver, RequestObservation } from '../transport/observer.js';
