// The webhook server's series: requests by path and code, in flight, latency, and what would have been a
// panic in Go (a handler or conversion throwing a TypeError) counted in the two panic counters.
import https from 'node:https';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { expect, it } from 'vitest';
import { silentLogger } from '../log/index.js';
import { WebhookServer } from '../webhook/server.js';
import { RuntimeMetrics } from './index.js';

function post(port: number, path: string, body: object): Promise<{ code: number; text: string }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, method: 'POST', rejectUnauthorized: false, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } }, (res) => {
      let out = '';
      res.on('data', (d: Buffer) => (out += d.toString()));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, text: out }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

const admission = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', operation: 'CREATE', object: {} } };
const conversion = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'u', desiredAPIVersion: 'example.com/v1', objects: [{ apiVersion: 'example.com/v2', kind: 'Thing', metadata: { name: 't' } }] } };

it('counts requests per path and code, and handlers or conversions that throw a TypeError as panics', async () => {
  const metrics = new RuntimeMetrics();
  const server = new WebhookServer({
    host: '127.0.0.1', port: 0, certDir: join(tmpdir(), 'no-such-webhook-certs'), selfSigned: { hosts: ['127.0.0.1'] }, logger: silentLogger(), metrics,
  });
  server.register('/ok', async () => ({ allowed: true }));
  server.register('/bug', async (req) => ({ allowed: (req.object as unknown as { spec: { on: boolean } }).spec.on }));
  server.register('/denied', async () => { throw new Error('not a bug: an error'); });
  server.registerConversion('example.com', 'Thing', { hub: 'v1', spokes: { v2: { toHub: (o: { spec: { x: number } }) => o.spec.x, fromHub: (o) => o } } });
  const ctl = new AbortController();
  const running = server.start(ctl.signal);
  try {
    const port = await server.listening();
    expect((await post(port, '/ok', admission)).code).toBe(200);
    expect((await post(port, '/ok', admission)).code).toBe(200);
    expect((await post(port, '/bug', admission)).text).toContain('"allowed":false');
    expect((await post(port, '/denied', admission)).text).toContain('not a bug');
    expect((await post(port, '/convert', conversion)).text).toContain('"status":"Failure"');
  } finally {
    ctl.abort();
    await running;
  }
  const text = await metrics.registry.metrics();
  const line = (prefix: string) => text.split('\n').filter((l) => l.startsWith(prefix));
  expect(line('controller_runtime_webhook_requests_total{')).toEqual([
    'controller_runtime_webhook_requests_total{webhook="/ok",code="200"} 2',
    'controller_runtime_webhook_requests_total{webhook="/ok",code="500"} 0',
    'controller_runtime_webhook_requests_total{webhook="/bug",code="200"} 1',
    'controller_runtime_webhook_requests_total{webhook="/bug",code="500"} 0',
    'controller_runtime_webhook_requests_total{webhook="/denied",code="200"} 1',
    'controller_runtime_webhook_requests_total{webhook="/denied",code="500"} 0',
    'controller_runtime_webhook_requests_total{webhook="/convert",code="200"} 1',
    'controller_runtime_webhook_requests_total{webhook="/convert",code="500"} 0',
  ]);
  expect(line('controller_runtime_webhook_requests_in_flight{')).toEqual([
    'controller_runtime_webhook_requests_in_flight{webhook="/ok"} 0',
    'controller_runtime_webhook_requests_in_flight{webhook="/bug"} 0',
    'controller_runtime_webhook_requests_in_flight{webhook="/denied"} 0',
    'controller_runtime_webhook_requests_in_flight{webhook="/convert"} 0',
  ]);
  expect(line('controller_runtime_webhook_latency_seconds_count{webhook="/ok"}')).toEqual(['controller_runtime_webhook_latency_seconds_count{webhook="/ok"} 2']);
  expect(line('controller_runtime_webhook_panics_total')).toEqual(['controller_runtime_webhook_panics_total 1']);
  expect(line('controller_runtime_conversion_webhook_panics_total')).toEqual(['controller_runtime_conversion_webhook_panics_total 1']);
});
