// OTLP/HTTP with the JSON encoding (opentelemetry-proto's JSON mapping: ids as hex, 64-bit integers
// as strings, enums as numbers), batched like the SDK's BatchSpanProcessor: sent every scheduleDelayMs
// or when maxExportBatchSize spans wait, at most maxQueueSize buffered (later spans are dropped and
// counted), each POST bounded by timeoutMs. A failed export is logged once per failure streak and
// dropped: tracing never slows down or stops the operator.
import http from 'node:http';
import https from 'node:https';
import { setTimer, type Timer } from '../internal/timers/index.js';
import type { Logger } from '../log/index.js';
import { instrumentationScope } from './scope.js';
import type { AttributeValue, Attributes, FinishedSpan, SpanExporter } from './tracer.js';

export interface OtlpHttpExporterOptions {
  /** The full traces URL, e.g. http://otel-collector:4318/v1/traces. */
  url: string;
  headers?: Record<string, string>;
  /** Resource attributes (service.name, …). */
  resource: Attributes;
  timeoutMs?: number;
  scheduleDelayMs?: number;
  maxExportBatchSize?: number;
  maxQueueSize?: number;
  log?: Logger;
}

type OtlpValue = { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };

function otlpValue(v: AttributeValue): OtlpValue {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
}

function otlpAttributes(attrs: Attributes): { key: string; value: OtlpValue }[] {
  const out: { key: string; value: OtlpValue }[] = [];
  for (const [key, v] of Object.entries(attrs)) if (v !== undefined) out.push({ key, value: otlpValue(v) });
  return out;
}

/** The ExportTraceServiceRequest body for `spans`. */
export function otlpTraceRequest(spans: readonly FinishedSpan[], resource: Attributes, scope: { name: string; version: string }): object {
  return {
    resourceSpans: [
      {
        resource: { attributes: otlpAttributes(resource) },
        scopeSpans: [
          {
            scope,
            spans: spans.map((s) => ({
              traceId: s.context.traceId,
              spanId: s.context.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: s.kind,
              startTimeUnixNano: String(s.startNs),
              endTimeUnixNano: String(s.endNs),
              attributes: otlpAttributes(s.attributes),
              events: s.events.map((e) => ({ name: e.name, timeUnixNano: String(e.timeNs), attributes: otlpAttributes(e.attributes) })),
              status: s.status ? { code: s.status.code, message: s.status.message } : {},
            })),
          },
        ],
      },
    ],
  };
}

export class OtlpHttpExporter implements SpanExporter {
  private queue: FinishedSpan[] = [];
  private timer?: Timer;
  private sending: Promise<void> = Promise.resolve();
  private dropped = 0;
  private failing = false;
  private readonly url: URL;

  constructor(private readonly opts: OtlpHttpExporterOptions) {
    this.url = new URL(opts.url);
  }

  export(span: FinishedSpan): void {
    if (this.queue.length >= (this.opts.maxQueueSize ?? 2048)) {
      this.dropped++;
      return;
    }
    this.queue.push(span);
    if (this.queue.length >= (this.opts.maxExportBatchSize ?? 512)) void this.flush();
    else if (!this.timer) {
      this.timer = setTimer(() => void this.flush(), this.opts.scheduleDelayMs ?? 5000);
      // A pending export must not keep a finished operator process alive.
      this.timer.unref();
    }
  }

  flush(): Promise<void> {
    this.timer?.clear();
    this.timer = undefined;
    const max = this.opts.maxExportBatchSize ?? 512;
    // One POST at a time, in order.
    this.sending = this.sending.then(async () => {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, max);
        await this.send(batch);
      }
    });
    return this.sending;
  }

  /** Sends what is buffered, giving up after `deadlineMs` (default 5 s) so a dead endpoint cannot hold up a stopping manager. */
  async shutdown(deadlineMs = 5000): Promise<void> {
    let timer: Timer | undefined;
    const gaveUp = new Promise<boolean>((resolve) => (timer = setTimer(() => resolve(true), deadlineMs)));
    const late = await Promise.race([this.flush().then(() => false), gaveUp]);
    timer?.clear();
    if (late) {
      this.dropped += this.queue.length;
      this.queue = [];
      this.opts.log?.error(`tracing: spans still unsent after ${deadlineMs} ms at shutdown were dropped`, undefined, { url: this.url.href });
    }
    if (this.dropped > 0) this.opts.log?.info('tracing: spans dropped because the export queue was full', { dropped: this.dropped });
  }

  private async send(batch: FinishedSpan[]): Promise<void> {
    const body = JSON.stringify(otlpTraceRequest(batch, this.opts.resource, instrumentationScope));
    try {
      const code = await post(this.url, body, this.opts.headers ?? {}, this.opts.timeoutMs ?? 10_000);
      if (code < 200 || code > 299) throw new Error(`HTTP ${code}`);
      if (this.failing) this.opts.log?.info('tracing: exporting spans again', { url: this.url.href });
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.opts.log?.error(`tracing: could not export spans to ${this.url.href}; dropping them until it answers`, err);
      this.failing = true;
    }
  }
}

function post(url: URL, body: string, headers: Record<string, string>, timeoutMs: number): Promise<number> {
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', reject);
      },
    );
    req.once('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.once('error', reject);
    req.end(body);
  });
}
