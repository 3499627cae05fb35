// The OTEL_* variables the runtime reads, the W3C traceparent it writes and parses, its samplers, and
// the OTLP JSON body (the collector test in test/otelcol checks that a real Collector accepts it).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../log/index.js';
import { tracerFromEnv, tracingConfig } from './env.js';
import { OtlpHttpExporter, otlpTraceRequest } from './otlp.js';
import { instrumentationScope } from './scope.js';
import { parentBased, parseTraceparent, traceIdRatio, traceparent, Tracer, type FinishedSpan } from './tracer.js';

const runtimeDist = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

describe('OTEL_* variables', () => {
  it('is off unless an exporter or an endpoint is named, and off when told', () => {
    expect(tracingConfig({})).toBeUndefined();
    expect(tracingConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeUndefined();
    expect(tracingConfig({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBeUndefined();
    expect(tracingConfig({ OTEL_TRACES_EXPORTER: 'otlp' })?.otlp?.url).toBe('http://localhost:4318/v1/traces');
  });

  it('appends /v1/traces to the general endpoint and uses the traces endpoint as given', () => {
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.otlp?.url).toBe('http://collector:4318/v1/traces');
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:1', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/custom' })?.otlp?.url).toBe('https://b/custom');
  });

  it('reads the service name, resource attributes, headers, timeouts and batch settings', () => {
    const c = tracingConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'memcached-operator',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=ignored,deployment.environment=prod%20eu',
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20x,tenant=a', OTEL_EXPORTER_OTLP_TIMEOUT: '2500', OTEL_BSP_SCHEDULE_DELAY: '100',
    })!;
    expect(c.resource).toMatchObject({ 'service.name': 'memcached-operator', 'deployment.environment': 'prod eu', 'telemetry.sdk.language': 'nodejs' });
    expect(c.otlp!.headers).toEqual({ Authorization: 'Bearer x', tenant: 'a' });
    expect(c.otlp).toMatchObject({ timeoutMs: 2500, scheduleDelayMs: 100, maxExportBatchSize: 512, maxQueueSize: 2048 });
    expect(tracingConfig({ OTEL_TRACES_EXPORTER: 'otlp' })!.resource['service.name']).toBe('unknown_service:node');
  });

  it('refuses what the built-in exporter cannot do, in one line naming the variable, and runs without tracing', () => {
    expect(() => tracingConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: @opgen/runtime exports OTLP over HTTP with the JSON encoding; set it to http/json',
    );
    expect(() => tracingConfig({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow('OTEL_TRACES_EXPORTER=zipkin is not supported; use otlp, console or both (otlp,console), or none');
    expect(() => tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow('the OTLP endpoint collector:4318/v1/traces must be http:// or https://');
    expect(() => tracingConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow('OTEL_TRACES_SAMPLER_ARG=2 must be a number from 0 to 1');
    const lines: string[] = [];
    expect(tracerFromEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }, createLogger({ write: (l) => lines.push(l) }))).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', msg: expect.stringContaining('tracing is off: OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf is not supported') });
  });
});

describe('OTEL_TRACES_EXPORTER=console', () => {
  it('needs no collector: the built runtime writes each span to stdout with the runtime\'s own version as scope', () => {
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string };
    expect(instrumentationScope).toEqual({ name: '@opgen/runtime', version: pkg.version });
    const consoleOnly = tracingConfig({ OTEL_TRACES_EXPORTER: 'console', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' });
    expect([consoleOnly?.console, consoleOnly?.otlp]).toEqual([true, undefined]);
    expect(tracingConfig({ OTEL_TRACES_EXPORTER: 'otlp,console' })).toMatchObject({ console: true, otlp: { url: 'http://localhost:4318/v1/traces' } });
    // The bundle (runtime/dist, from `npm run build`) lives at another depth than src: its scope must still carry the version.
    const script = [
      `import { tracerFromEnv, createLogger } from ${JSON.stringify(runtimeDist)};`,
      'const t = tracerFromEnv(process.env, createLogger());',
      "const s = t.startSpan('reconcile', { attributes: { 'k8s.object.name': 'gb' } });",
      "s.addEvent('k8s.condition.transition', { 'k8s.condition.type': 'Ready' });",
      's.end();',
      'await t.shutdown();',
    ].join('\n');
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'gb-operator' } });
    expect(r.status, r.stderr).toBe(0);
    const spans = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(spans).toEqual([{
      resource: { attributes: expect.objectContaining({ 'service.name': 'gb-operator' }) },
      instrumentationScope: { name: '@opgen/runtime', version: pkg.version },
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/), id: expect.stringMatching(/^[0-9a-f]{16}$/), name: 'reconcile', kind: 'INTERNAL',
      timestamp: expect.any(Number), duration: expect.any(Number), attributes: { 'k8s.object.name': 'gb' }, status: { code: 'UNSET' },
      events: [{ name: 'k8s.condition.transition', time: expect.any(Number), attributes: { 'k8s.condition.type': 'Ready' } }],
    }]);
    expect(r.stderr).toContain('tracing: writing spans to stdout');
  });
});

describe('trace context', () => {
  it('writes and reads W3C traceparent headers', () => {
    const ctx = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', sampled: true };
    expect(traceparent(ctx)).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual(ctx);
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00')?.sampled).toBe(false);
    for (const bad of ['', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', '00-00000000000000000000000000000000-00f067aa0ba902b7-01', '00-4bf92f35-00f067aa0ba902b7-01']) {
      expect(parseTraceparent(bad)).toBeUndefined();
    }
  });

  it('makes children of the active span, and roots when asked', () => {
    const spans: FinishedSpan[] = [];
    const tracer = new Tracer({ export: (s) => void spans.push(s), flush: async () => {}, shutdown: async () => {} });
    const root = tracer.startSpan('reconcile');
    tracer.withSpan(root, () => {
      tracer.startSpan('GET').end();
      tracer.startSpan('other', { root: true }).end();
    });
    root.end();
    const [get, other, r] = spans;
    expect(get!.parentSpanId).toBe(r!.context.spanId);
    expect(get!.context.traceId).toBe(r!.context.traceId);
    expect(other!.parentSpanId).toBeUndefined();
    expect(other!.context.traceId).not.toBe(r!.context.traceId);
  });

  it('samples by trace id ratio, and children follow their parent', () => {
    const ids = Array.from({ length: 2000 }, () => randomBytes(16).toString('hex'));
    const kept = ids.filter((id) => traceIdRatio(0.25)(id, undefined)).length;
    expect(kept / ids.length).toBeGreaterThan(0.2);
    expect(kept / ids.length).toBeLessThan(0.3);
    const sampler = parentBased(() => false);
    expect(sampler('1'.repeat(32), { traceId: '1'.repeat(32), spanId: '2'.repeat(16), sampled: true })).toBe(true);
    expect(sampler('1'.repeat(32), undefined)).toBe(false);
  });
});

describe('OTLP/HTTP JSON', () => {
  const span: FinishedSpan = {
    name: 'reconcile', kind: 1, context: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), sampled: true }, parentSpanId: undefined,
    startNs: 1_700_000_000_000_000_001n, endNs: 1_700_000_000_500_000_000n,
    attributes: { 'controller.name': 'memcached', 'reconcile.requeue': false, 'http.response.status_code': 200, ratio: 0.5, skipped: undefined },
    events: [{ name: 'k8s.condition.transition', timeNs: 1_700_000_000_100_000_000n, attributes: { 'k8s.condition.type': 'Ready' } }],
    status: { code: 2, message: 'boom' },
  };

  it("encodes spans as opentelemetry-proto's JSON mapping", () => {
    expect(otlpTraceRequest([span], { 'service.name': 'op' }, { name: '@opgen/runtime', version: '0.1.0' })).toEqual({
      resourceSpans: [{
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'op' } }] },
        scopeSpans: [{
          scope: { name: '@opgen/runtime', version: '0.1.0' },
          spans: [{
            traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), name: 'reconcile', kind: 1,
            startTimeUnixNano: '1700000000000000001', endTimeUnixNano: '1700000000500000000',
            attributes: [
              { key: 'controller.name', value: { stringValue: 'memcached' } },
              { key: 'reconcile.requeue', value: { boolValue: false } },
              { key: 'http.response.status_code', value: { intValue: '200' } },
              { key: 'ratio', value: { doubleValue: 0.5 } },
            ],
            events: [{ name: 'k8s.condition.transition', timeUnixNano: '1700000000100000000', attributes: [{ key: 'k8s.condition.type', value: { stringValue: 'Ready' } }] }],
            status: { code: 2, message: 'boom' },
          }],
        }],
      }],
    });
  });

  it('batches spans into POSTs and logs a failing endpoint once per failure streak', async () => {
    const bodies: string[] = [];
    let status = 200;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push(`${req.method} ${req.url} ${req.headers['content-type']} ${req.headers.tenant} ${body.length > 0}`);
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const lines: string[] = [];
    const exporter = new OtlpHttpExporter({
      url: `http://127.0.0.1:${port}/v1/traces`, headers: { tenant: 't1' }, resource: {}, maxExportBatchSize: 2, scheduleDelayMs: 60_000,
      log: createLogger({ write: (l) => lines.push(l) }),
    });
    try {
      for (let i = 0; i < 5; i++) exporter.export(span);
      await exporter.flush();
      expect(bodies).toEqual(Array(3).fill('POST /v1/traces application/json t1 true'));
      status = 503;
      exporter.export(span);
      await exporter.flush();
      exporter.export(span);
      await exporter.flush();
      expect(lines.filter((l) => l.includes('could not export spans'))).toHaveLength(1);
    } finally {
      server.close();
    }
  });

  it('gives up at shutdown after its deadline when the endpoint does not answer', async () => {
    // A server that accepts the connection and never answers.
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const lines: string[] = [];
    const exporter = new OtlpHttpExporter({ url: `http://127.0.0.1:${port}/v1/traces`, resource: {}, timeoutMs: 60_000, log: createLogger({ write: (l) => lines.push(l) }) });
    try {
      exporter.export(span);
      const started = Date.now();
      await exporter.shutdown(300);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(lines.some((l) => l.includes('spans still unsent after 300 ms at shutdown were dropped'))).toBe(true);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
