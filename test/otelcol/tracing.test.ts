// The runtime's spans, sent over OTLP/HTTP to a real OpenTelemetry Collector (test/otelcol, built by
// .ci/otelcol.sh) and read back from its file exporter: a manager configured by nothing but the OTEL_*
// variables exports one `reconcile` span per reconcile with its API calls as children, and the W3C
// traceparent it sends makes kube-apiserver's own spans (exported to the same collector over OTLP/gRPC)
// children of those client spans.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigMap, Namespace } from '../../runtime/src/api/builtins.js';
import { createClient, type Client } from '../../runtime/src/client/client.js';
import { eventually, startTestEnv, type TestEnv } from '../../runtime/src/envtest/index.js';
import { silentLogger } from '../../runtime/src/log/index.js';
import { createManager } from '../../runtime/src/manager/manager.js';
import { Result } from '../../runtime/src/reconcile/index.js';
import { ciTool } from '../../src/testdata/ci-tools.js';
import { freePort } from '../../src/testdata/ports.js';

interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: { key: string; value: Record<string, unknown> }[]; events?: { name: string }[]; status?: { code?: number } }
interface OtlpLine { resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { scope?: { name?: string }; spans: OtlpSpan[] }[] }[] }

const dir = mkdtempSync(join(tmpdir(), 'otelcol-'));
const spansFile = join(dir, 'spans.jsonl');
let collector: ChildProcess | undefined;
let collectorLog = '';
let env: TestEnv;
let client: Client;
let httpPort = 0;

const listening = (port: number) => new Promise<boolean>((resolve) => {
  const s = connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
  s.on('error', () => resolve(false));
});

beforeAll(async () => {
  httpPort = await freePort();
  const grpcPort = await freePort();
  writeFileSync(join(dir, 'config.yaml'), [
    'receivers:',
    '  otlp:',
    '    protocols:',
    `      http: { endpoint: "127.0.0.1:${httpPort}" }`,
    `      grpc: { endpoint: "127.0.0.1:${grpcPort}" }`,
    'exporters:',
    `  file: { path: "${spansFile}", flush_interval: 100ms }`,
    'service:',
    '  telemetry: { metrics: { level: none } }',
    '  pipelines:',
    '    traces: { receivers: [otlp], exporters: [file] }',
    '',
  ].join('\n'));
  collector = spawn(ciTool('OPGEN_OTELCOL', 'otelcol.sh'), ['--config', join(dir, 'config.yaml')], { stdio: ['ignore', 'pipe', 'pipe'] });
  collector.stdout!.on('data', (d: Buffer) => (collectorLog += d.toString()));
  collector.stderr!.on('data', (d: Buffer) => (collectorLog += d.toString()));
  await eventually(async () => expect(await listening(httpPort), collectorLog.slice(-2000)).toBe(true), { timeoutMs: 30_000 });
  // kube-apiserver exports its own spans to the collector's OTLP/gRPC receiver and follows incoming traceparents.
  writeFileSync(join(dir, 'apiserver-tracing.yaml'), [
    'apiVersion: apiserver.config.k8s.io/v1',
    'kind: TracingConfiguration',
    `endpoint: 127.0.0.1:${grpcPort}`,
    'samplingRatePerMillion: 0',
    '',
  ].join('\n'));
  env = await startTestEnv({ apiServerFlags: { 'tracing-config-file': join(dir, 'apiserver-tracing.yaml') } });
  client = createClient(env.kubeConfig);
  await client.create(Namespace, { metadata: { name: 'traced' } });
}, 600_000);

afterAll(async () => {
  await env?.stop();
  collector?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

function receivedSpans(): { service: string; span: OtlpSpan }[] {
  if (!existsSync(spansFile)) return [];
  return readFileSync(spansFile, 'utf8').split('\n').filter(Boolean).flatMap((line) =>
    (JSON.parse(line) as OtlpLine).resourceSpans.flatMap((rs) => {
      const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
      return rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ service, span })));
    }));
}

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v ? Object.values(v)[0] : undefined;
};

it('exports reconcile spans with their API calls as children, and the API server continues the trace', async () => {
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${httpPort}`, OTEL_SERVICE_NAME: 'traced-operator', OTEL_BSP_SCHEDULE_DELAY: '200' };
  Object.assign(process.env, otel);
  let mgr;
  try {
    mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: ['traced'] });
  } finally {
    for (const k of Object.keys(otel)) delete process.env[k];
  }
  // The Manager interface has no tracer; the ManagerImpl createManager returns does.
  expect((mgr as { tracer?: unknown }).tracer).toBeDefined();
  mgr.controllerFor(ConfigMap).complete({
    async reconcile(req) {
      // A read from the API server (not the cache) and a write: two client spans.
      const cm = await mgr.apiReader.get(ConfigMap, req);
      if (cm.data?.seen !== 'yes') await mgr.client.patch(ConfigMap, req, { type: 'merge', body: { data: { seen: 'yes' } } });
      return Result.requeueAfter(3_600_000);
    },
  });
  const ctl = new AbortController();
  const done = mgr.start(ctl.signal);
  try {
    await client.create(ConfigMap, { metadata: { name: 'traced-cm', namespace: 'traced' } });
    await eventually(async () => expect((await client.get(ConfigMap, { namespace: 'traced', name: 'traced-cm' })).data?.seen).toBe('yes'));
  } finally {
    ctl.abort();
    await done; // the manager's stop sends the spans still buffered
  }

  let ours: OtlpSpan[] = [];
  let reconcile: OtlpSpan | undefined;
  await eventually(() => {
    ours = receivedSpans().filter((r) => r.service === 'traced-operator').map((r) => r.span);
    reconcile = ours.find((s) => s.name === 'reconcile' && ours.some((c) => c.parentSpanId === s.spanId && c.name === 'PATCH'));
    expect(reconcile, collectorLog.slice(-2000)).toBeDefined();
  }, { timeoutMs: 20_000 });
  expect(attr(reconcile!, 'controller.name')).toBe('configmap');
  expect(attr(reconcile!, 'k8s.object.name')).toBe('traced-cm');
  expect(attr(reconcile!, 'k8s.namespace.name')).toBe('traced');
  expect(attr(reconcile!, 'reconcile.result')).toBe('requeue_after');
  expect(attr(reconcile!, 'reconcile.requeue')).toBe(true);
  expect(reconcile!.parentSpanId ?? '').toBe('');
  const children = ours.filter((s) => s.parentSpanId === reconcile!.spanId);
  expect(children.map((s) => s.name).sort()).toEqual(['GET', 'PATCH']);
  for (const c of children) {
    expect(c.traceId).toBe(reconcile!.traceId);
    expect(c.kind).toBe(3); // SPAN_KIND_CLIENT
    expect(attr(c, 'http.response.status_code')).toBe('200');
  }
  // The list and watch requests of the caches, outside any reconcile, start no traces.
  expect(ours.every((s) => s.name === 'reconcile' || s.parentSpanId)).toBe(true);

  // kube-apiserver received our traceparent: its server span for the PATCH is a child of our client span.
  const patch = children.find((s) => s.name === 'PATCH')!;
  await eventually(() => {
    const server = receivedSpans().filter((r) => r.service === 'apiserver' && r.span.parentSpanId === patch.spanId);
    expect(server.map((r) => r.span.traceId)).toContain(reconcile!.traceId);
  }, { timeoutMs: 20_000 });
}, 600_000);
