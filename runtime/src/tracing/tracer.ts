// Spans for reconciles and API calls, W3C trace context on outgoing requests, exported over OTLP.
// The runtime carries its own small tracer and OTLP/HTTP JSON exporter instead of depending on
// @opentelemetry/api + sdk-trace-base + an exporter: those are several packages and megabytes an operator
// image would load for a feature that is off by default, and the runtime needs only spans, span events
// and parent/child context. The wire format is OTLP's JSON encoding, which every OTLP/HTTP receiver
// (the Collector, Jaeger, Tempo) accepts on its /v1/traces endpoint.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue | undefined>;

/** OTLP's SpanKind numbers. */
export const SpanKind = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export interface SpanContext {
  /** 32 lower-case hex digits. */
  traceId: string;
  /** 16 lower-case hex digits. */
  spanId: string;
  sampled: boolean;
}

export interface Span {
  readonly context: SpanContext;
  setAttribute(key: string, value: AttributeValue | undefined): void;
  /** A timestamped event on the span, e.g. `k8s.condition.transition`. */
  addEvent(name: string, attributes?: Attributes): void;
  /** Marks the span failed (OTLP status ERROR) with `message`. */
  setError(message: string): void;
  end(): void;
}

/** A finished, sampled span as the exporter receives it. */
export interface FinishedSpan {
  name: string;
  kind: number;
  context: SpanContext;
  parentSpanId?: string;
  startNs: bigint;
  endNs: bigint;
  attributes: Attributes;
  events: { name: string; timeNs: bigint; attributes: Attributes }[];
  status?: { code: 2; message: string };
}

export interface SpanExporter {
  export(span: FinishedSpan): void;
  /** Sends what is buffered; resolves once sent (or given up on). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export type Sampler = (traceId: string, parent: SpanContext | undefined) => boolean;

export interface StartSpanOptions {
  kind?: number;
  attributes?: Attributes;
  /** Default: the span active in this async context (withSpan), if any. */
  parent?: SpanContext;
  /** Start a new trace even when a span is active. */
  root?: boolean;
}

// The active span of the current async context. One per process, like OpenTelemetry's context manager:
// helpers that were handed no tracer (setConditions) find the reconcile's span through it.
const storage = new AsyncLocalStorage<Span>();

/** The span active in this async context (a reconcile's, inside reconcile()), if tracing is on. */
export function activeSpan(): Span | undefined {
  return storage.getStore();
}

export class Tracer {
  constructor(
    private readonly exporter: SpanExporter,
    private readonly sampler: Sampler = parentBased(() => true),
  ) {}

  startSpan(name: string, opts: StartSpanOptions = {}): Span {
    const parent = opts.root ? undefined : (opts.parent ?? storage.getStore()?.context);
    const traceId = parent?.traceId ?? randomHex(16);
    const context: SpanContext = { traceId, spanId: randomHex(8), sampled: this.sampler(traceId, parent) };
    if (!context.sampled) return nonRecordingSpan(context);
    return new RecordingSpan(name, opts.kind ?? SpanKind.internal, context, parent?.spanId, { ...opts.attributes }, this.exporter);
  }

  /** Runs `fn` with `span` as the active span of everything it awaits (client calls become its children). */
  withSpan<T>(span: Span, fn: () => T): T {
    return storage.run(span, fn);
  }

  /** The span active in this async context. */
  activeSpan(): Span | undefined {
    return storage.getStore();
  }

  flush(): Promise<void> {
    return this.exporter.flush();
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }
}

/** The W3C `traceparent` header value of `ctx` (version 00). */
export function traceparent(ctx: SpanContext): string {
  return `00-${ctx.traceId}-${ctx.spanId}-${ctx.sampled ? '01' : '00'}`;
}

/** Parses a W3C `traceparent` header; undefined when it is not one. */
export function parseTraceparent(header: string | undefined): SpanContext | undefined {
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(header?.trim() ?? '');
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return { traceId: m[2]!, spanId: m[3]!, sampled: (parseInt(m[4]!, 16) & 1) === 1 };
}

/** Samplers by OTEL_TRACES_SAMPLER's names. */
export function alwaysOn(): Sampler {
  return () => true;
}
export function alwaysOff(): Sampler {
  return () => false;
}
/** Keeps a trace when the low 8 bytes of its id fall under `ratio` (the spec's TraceIdRatioBased idea). */
export function traceIdRatio(ratio: number): Sampler {
  const bound = BigInt(Math.floor(Math.min(1, Math.max(0, ratio)) * 2 ** 53)) << 11n;
  return (traceId) => BigInt(`0x${traceId.slice(16)}`) < bound;
}
/** A child follows its parent's decision; a root asks `root`. */
export function parentBased(root: Sampler): Sampler {
  return (traceId, parent) => (parent ? parent.sampled : root(traceId, parent));
}

/** Nanoseconds since the Unix epoch, as precise as performance.now() allows. */
export function nowNs(): bigint {
  const ms = performance.timeOrigin + performance.now();
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6));
}

function randomHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (!/^0+$/.test(hex)) return hex;
  }
}

class RecordingSpan implements Span {
  private readonly startNs = nowNs();
  private readonly events: FinishedSpan['events'] = [];
  private status?: FinishedSpan['status'];
  private ended = false;

  constructor(
    private readonly name: string,
    private readonly kind: number,
    readonly context: SpanContext,
    private readonly parentSpanId: string | undefined,
    private readonly attributes: Attributes,
    private readonly exporter: SpanExporter,
  ) {}

  setAttribute(key: string, value: AttributeValue | undefined): void {
    if (!this.ended) this.attributes[key] = value;
  }

  addEvent(name: string, attributes: Attributes = {}): void {
    if (!this.ended) this.events.push({ name, timeNs: nowNs(), attributes });
  }

  setError(message: string): void {
    if (!this.ended) this.status = { code: 2, message };
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.exporter.export({
      name: this.name,
      kind: this.kind,
      context: this.context,
      parentSpanId: this.parentSpanId,
      startNs: this.startNs,
      endNs: nowNs(),
      attributes: this.attributes,
      events: this.events,
      status: this.status,
    });
  }
}

/** A span that is not sampled: it carries its context (propagated with flags 00) and records nothing. */
function nonRecordingSpan(context: SpanContext): Span {
  return { context, setAttribute() {}, addEvent() {}, setError() {}, end() {} };
}
