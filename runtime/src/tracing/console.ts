// OTEL_TRACES_EXPORTER=console: each span written to stdout as it ends, one JSON object per line, in the
// shape of the OpenTelemetry JS SDK's ConsoleSpanExporter (ids, parent, times and duration in
// microseconds, attributes, events, status), with the resource and instrumentation scope: a look at
// what an operator traces without running a collector. The logs go to stderr, so `2>/dev/null` or a
// `jq` on stdout shows the spans alone.
import { instrumentationScope } from './scope.js';
import { type Attributes, type FinishedSpan, SpanKind, type SpanExporter } from './tracer.js';

const kindNames = Object.fromEntries(Object.entries(SpanKind).map(([name, n]) => [n, name.toUpperCase()]));
const micros = (ns: bigint) => Number(ns / 1000n);

export class ConsoleSpanExporter implements SpanExporter {
  constructor(
    private readonly resource: Attributes,
    private readonly write: (line: string) => void = (line) => void process.stdout.write(line),
  ) {}

  export(s: FinishedSpan): void {
    this.write(`${JSON.stringify({
      resource: { attributes: this.resource },
      instrumentationScope,
      traceId: s.context.traceId,
      parentId: s.parentSpanId,
      name: s.name,
      id: s.context.spanId,
      kind: kindNames[s.kind] ?? s.kind,
      timestamp: micros(s.startNs),
      duration: micros(s.endNs - s.startNs),
      attributes: s.attributes,
      status: s.status ? { code: 'ERROR', message: s.status.message } : { code: 'UNSET' },
      events: s.events.map((e) => ({ name: e.name, time: micros(e.timeNs), attributes: e.attributes })),
    })}\n`);
  }

  async flush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

/** One exporter that hands every span to each of `exporters` (OTEL_TRACES_EXPORTER=otlp,console). */
export function fanOut(exporters: SpanExporter[]): SpanExporter {
  if (exporters.length === 1) return exporters[0]!;
  return {
    export: (span) => { for (const e of exporters) e.export(span); },
    flush: async () => { await Promise.all(exporters.map((e) => e.flush())); },
    shutdown: async () => { await Promise.all(exporters.map((e) => e.shutdown())); },
  };
}
