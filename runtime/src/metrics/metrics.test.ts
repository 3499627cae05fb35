import { MetricsRegistry } from './registry.js';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeMetrics, startMetricsServer } from './index.js';
import { sample } from './testdata/sample.js';

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});
function stopper(): AbortSignal {
  const c = new AbortController();
  stops.push(c);
  return c.signal;
}

async function scrape(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one sample line, e.g. sample(text, 'workqueue_adds_total{name="a",controller="a"}'). */
describe('RuntimeMetrics on /metrics', () => {
  it("serves controller-runtime's reconcile and workqueue series with their labels", async () => {
    const metrics = new RuntimeMetrics();
    metrics.reconcileTotal('memcached', 'success');
    metrics.reconcileTotal('memcached', 'success');
    metrics.reconcileTotal('memcached', 'requeue_after');
    metrics.reconcileTotal('memcached', 'error');
    metrics.reconcileError('memcached');
    metrics.reconcileTime('memcached', 0.2);
    metrics.reconcileTime('memcached', 7);
    const queue = metrics.workqueue('memcached');
    queue.add();
    queue.add();
    queue.add();
    queue.depth(2);
    queue.queueDuration(0.003);
    queue.workDuration(0.04);
    queue.retry();

    const { port } = await startMetricsServer('127.0.0.1:0', metrics, stopper());
    expect(port).toBeGreaterThan(0);
    const text = await scrape(port);

    expect(sample(text, 'controller_runtime_reconcile_total{controller="memcached",result="success"}')).toBe(2);
    expect(sample(text, 'controller_runtime_reconcile_total{controller="memcached",result="requeue_after"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_total{controller="memcached",result="error"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_errors_total{controller="memcached"}')).toBe(1);
    expect(text).toContain('# TYPE controller_runtime_reconcile_time_seconds histogram');
    // 0.2 falls in le=0.2 (bounds are inclusive), 7 only from le=7 on; 40 buckets plus +Inf.
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_bucket{le="0.15",controller="memcached"}')).toBe(0);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_bucket{le="0.2",controller="memcached"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_bucket{le="6",controller="memcached"}')).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_bucket{le="7",controller="memcached"}')).toBe(2);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_count{controller="memcached"}')).toBe(2);
    expect(text.match(/^controller_runtime_reconcile_time_seconds_bucket/gm)).toHaveLength(41);

    expect(sample(text, 'workqueue_adds_total{name="memcached",controller="memcached"}')).toBe(3);
    expect(sample(text, 'workqueue_depth{name="memcached",controller="memcached",priority=""}')).toBe(2);
    expect(sample(text, 'workqueue_retries_total{name="memcached",controller="memcached"}')).toBe(1);
    expect(sample(text, 'workqueue_queue_duration_seconds_count{name="memcached",controller="memcached"}')).toBe(1);
    expect(sample(text, 'workqueue_queue_duration_seconds_bucket{le="0.001",name="memcached",controller="memcached"}')).toBe(0);
    expect(sample(text, 'workqueue_queue_duration_seconds_bucket{le="0.01",name="memcached",controller="memcached"}')).toBe(1);
    expect(sample(text, 'workqueue_work_duration_seconds_sum{name="memcached",controller="memcached"}')).toBeCloseTo(0.04);
    // controller-runtime's exponential buckets: 1e-8 s up to 1000 s, 12 of them plus +Inf.
    expect(text).toContain('workqueue_work_duration_seconds_bucket{le="1e-8",name="memcached",controller="memcached"}');
    expect(text).toContain('workqueue_work_duration_seconds_bucket{le="1000",name="memcached",controller="memcached"}');
    expect(text.match(/^workqueue_work_duration_seconds_bucket/gm)).toHaveLength(13);
  });

  it('shows a new queue at depth 0 and includes the Node process metrics', async () => {
    const metrics = new RuntimeMetrics();
    metrics.workqueue('idle');
    const { port } = await startMetricsServer('127.0.0.1:0', metrics, stopper());
    const text = await scrape(port);
    expect(sample(text, 'workqueue_depth{name="idle",controller="idle",priority=""}')).toBe(0);
    expect(sample(text, 'workqueue_adds_total{name="idle",controller="idle"}')).toBe(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(1_000_000);
    expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE nodejs_heap_size_used_bytes gauge');
  });

  it('keeps two instances apart and uses the registry it is given', async () => {
    const shared = new MetricsRegistry();
    const a = new RuntimeMetrics(shared);
    const b = new RuntimeMetrics();
    a.reconcileTotal('a', 'success');
    b.reconcileTotal('b', 'success');
    expect(a.registry).toBe(shared);
    const textA = await shared.metrics();
    const textB = await b.registry.metrics();
    expect(sample(textA, 'controller_runtime_reconcile_total{controller="a",result="success"}')).toBe(1);
    expect(textA).not.toContain('controller="b"');
    expect(sample(textB, 'controller_runtime_reconcile_total{controller="b",result="success"}')).toBe(1);
    expect(textB).not.toContain('controller="a"');
  });

  it('answers 404 off /metrics, stops listening when the signal aborts, and does not listen for "0"', async () => {
    const stop = new AbortController();
    const metrics = new RuntimeMetrics();
    const { port } = await startMetricsServer('127.0.0.1:0', metrics, stop.signal);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    stop.abort();
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();

    expect(await startMetricsServer('0', metrics, stopper())).toEqual({ port: 0 });
  });

  it('listens on all interfaces for ":port" and names a bad bind address or a busy port', async () => {
    const metrics = new RuntimeMetrics();
    const first = await startMetricsServer('127.0.0.1:0', metrics, stopper());
    await expect(startMetricsServer(`127.0.0.1:${first.port}`, metrics, stopper())).rejects.toThrow(
      `metrics server: cannot listen on '127.0.0.1:${first.port}': EADDRINUSE`,
    );
    await expect(startMetricsServer('8080', metrics, stopper())).rejects.toThrow(
      "metrics server: invalid bind address '8080'; use host:port such as ':8080'",
    );
    const wildcard = await startMetricsServer(':0', metrics, stopper());
    expect((await fetch(`http://127.0.0.1:${wildcard.port}/metrics`)).status).toBe(200);
  });
});
