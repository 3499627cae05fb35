// @opgen/runtime's /metrics text judged by the Prometheus Go libraries (test/metrics/promcheck): the
// text parser a Prometheus scrape uses reads back exactly the series and values the runtime holds, and
// promlint (`promtool check metrics`) finds nothing to report.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MetricsRegistry, RuntimeMetrics } from '../../runtime/src/metrics/index.js';
import { ciTool } from '../../src/testdata/ci-tools.js';

interface Sample { labels: Record<string, string>; value?: number | 'NaN' | '+Inf' | '-Inf'; buckets?: Record<string, number>; sum?: number; count?: number }
interface Checked { families: Record<string, { type: string; help: string; samples: Sample[] }>; problems: string[] }

function promcheck(text: string): Checked {
  return JSON.parse(execFileSync(ciTool('OPGEN_PROMCHECK', 'promcheck.sh'), { input: text, encoding: 'utf8' })) as Checked;
}

describe('the metrics text, read by the Prometheus libraries', () => {
  it("controller-runtime's series and the process metrics parse to the values recorded, and promlint has nothing to say", async () => {
    const metrics = new RuntimeMetrics();
    metrics.reconcileTotal('memcached', 'success');
    metrics.reconcileTotal('memcached', 'success');
    metrics.reconcileTotal('memcached', 'error');
    metrics.reconcileError('memcached');
    metrics.reconcileTime('memcached', 0.2);
    metrics.reconcileTime('memcached', 7);
    const queue = metrics.workqueue('memcached');
    queue.add();
    queue.depth(4);
    queue.workDuration(0.04);
    const { families, problems } = promcheck(await metrics.registry.metrics());

    expect(problems).toEqual([]);
    expect(families.controller_runtime_reconcile_total).toMatchObject({
      type: 'COUNTER',
      samples: [{ labels: { controller: 'memcached', result: 'success' }, value: 2 }, { labels: { controller: 'memcached', result: 'error' }, value: 1 }],
    });
    const time = families.controller_runtime_reconcile_time_seconds!;
    expect(time.type).toBe('HISTOGRAM');
    expect(time.samples[0]).toMatchObject({ labels: { controller: 'memcached' }, sum: 7.2, count: 2 });
    // Bounds are inclusive: 0.2 is in le=0.2, 7 from le=7 on.
    expect(time.samples[0]!.buckets).toMatchObject({ '0.15': 0, '0.2': 1, '6': 1, '7': 2, '60': 2 });
    expect(families.workqueue_depth!.samples).toEqual([{ labels: { name: 'memcached', controller: 'memcached', priority: '' }, value: 4 }]);
    expect(families.workqueue_work_duration_seconds!.samples[0]!.buckets).toMatchObject({ '0.01': 0, '0.1': 1 });
    expect(families.process_resident_memory_bytes!.samples[0]!.value).toBeGreaterThan(1_000_000);
    expect(families.process_cpu_seconds_total!.type).toBe('COUNTER');
    expect(families.nodejs_version_info!.samples[0]!.labels.version).toBe(process.version);
  });

  it('label values and help with backslashes, quotes and newlines, NaN and infinities read back exactly', async () => {
    const registry = new MetricsRegistry();
    const path = 'C:\\dir\n"quoted"';
    registry.gauge({ name: 'odd_values', help: 'two lines\nand a \\ backslash', labelNames: ['path'] }).set({ path }, NaN);
    registry.gauge({ name: 'infinite', help: 'x' }).labels().set(Infinity);
    registry.counter({ name: 'plain_total', help: 'never incremented' });
    const { families, problems } = promcheck(await registry.metrics());
    expect(problems).toEqual([]);
    expect(families.odd_values!.help).toBe('two lines\nand a \\ backslash');
    expect(families.odd_values!.samples).toEqual([{ labels: { path }, value: 'NaN' }]);
    expect(families.infinite!.samples).toEqual([{ labels: {}, value: '+Inf' }]);
    expect(families.plain_total!.samples).toEqual([{ labels: {}, value: 0 }]);
  });
});
