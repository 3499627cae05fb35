// The registry's text output, line by line as Prometheus' text format (0.0.4) defines it.
import { describe, expect, it } from 'vitest';
import { MetricsRegistry } from './registry.js';

describe('MetricsRegistry', () => {
  it('writes HELP and TYPE, then each series with its labels in the order they were created', async () => {
    const r = new MetricsRegistry();
    const c = r.counter({ name: 'jobs_total', help: 'Jobs run.', labelNames: ['queue', 'result'] });
    c.inc({ queue: 'a', result: 'ok' });
    c.inc({ queue: 'b', result: 'ok' }, 2);
    c.inc({ queue: 'a', result: 'ok' }, 0.5);
    r.gauge({ name: 'temperature', help: 'Now.' }).labels().set(-3.25);
    expect(await r.metrics()).toBe(
      [
        '# HELP jobs_total Jobs run.',
        '# TYPE jobs_total counter',
        'jobs_total{queue="a",result="ok"} 1.5',
        'jobs_total{queue="b",result="ok"} 2',
        '',
        '# HELP temperature Now.',
        '# TYPE temperature gauge',
        'temperature -3.25',
        '',
        '',
      ].join('\n'),
    );
  });

  it('writes OpenMetrics 1.0, with _created per counter and histogram series, when the scrape accepts it', async () => {
    const r = new MetricsRegistry();
    const before = Math.floor(Date.now() / 1000);
    r.counter({ name: 'jobs_total', help: 'Jobs "run".', labelNames: ['queue'] }).inc({ queue: 'a' });
    r.gauge({ name: 'temperature', help: 'Now.' }).labels().set(2);
    r.histogram({ name: 'wait_seconds', help: 'Waits.', buckets: [1] }).labels().observe(0.5);
    const accept = 'application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4';
    const om = await r.exposition(accept);
    expect(om.contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    const created = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(om.body)![1]);
    expect(created('jobs_created')).toBeGreaterThanOrEqual(before);
    expect(created('wait_seconds_created')).toBeGreaterThanOrEqual(before);
    expect(om.body.replace(/_created(\{[^}]*\})? \S+/g, '_created$1 T')).toBe([
      '# TYPE jobs counter', '# HELP jobs Jobs \\"run\\".', 'jobs_total{queue="a"} 1', 'jobs_created{queue="a"} T',
      '# TYPE temperature gauge', '# HELP temperature Now.', 'temperature 2',
      '# TYPE wait_seconds histogram', '# HELP wait_seconds Waits.', 'wait_seconds_bucket{le="1"} 1', 'wait_seconds_bucket{le="+Inf"} 1',
      'wait_seconds_sum 0.5', 'wait_seconds_count 1', 'wait_seconds_created T', '# EOF', '',
    ].join('\n'));
    // Any other Accept, or another source registered (its 0.0.4 text cannot go into OpenMetrics): the text format.
    expect((await r.exposition('*/*')).contentType).toBe(r.contentType);
    r.register({ metrics: () => 'other_total 1\n' });
    expect(await r.exposition(accept)).toEqual({ contentType: r.contentType, body: await r.metrics() });
  });

  it('a metric without labels shows 0 before its first update; one with labels shows no series yet', async () => {
    const r = new MetricsRegistry();
    r.counter({ name: 'plain_total', help: 'x' });
    r.counter({ name: 'labelled_total', help: 'y', labelNames: ['kind'] });
    const text = await r.metrics();
    expect(text).toContain('\nplain_total 0\n');
    expect(text).not.toMatch(/^labelled_total/m);
    expect(text).toContain('# TYPE labelled_total counter');
  });

  it('escapes backslash, quote and newline in label values, and backslash and newline in help', async () => {
    const r = new MetricsRegistry();
    r.gauge({ name: 'g', help: 'line one\nline two \\ end', labelNames: ['path'] }).set({ path: 'C:\\dir\n"x"' }, 1);
    const text = await r.metrics();
    expect(text).toContain('# HELP g line one\\nline two \\\\ end\n');
    expect(text).toContain('g{path="C:\\\\dir\\n\\"x\\""} 1\n');
  });

  it('histograms: cumulative buckets with inclusive bounds, +Inf, _sum and _count; NaN and infinities spelled as Prometheus does', async () => {
    const r = new MetricsRegistry();
    const h = r.histogram({ name: 'latency_seconds', help: 'h', labelNames: ['op'], buckets: [0.1, 1, 10] });
    const get = h.labels({ op: 'get' });
    for (const v of [0.05, 0.1, 0.5, 20]) get.observe(v);
    r.gauge({ name: 'odd', help: 'o', labelNames: ['v'] }).set({ v: 'nan' }, NaN);
    r.gauge({ name: 'odd2', help: 'o' }).labels().set(-Infinity);
    const text = await r.metrics();
    expect(text).toContain(
      [
        'latency_seconds_bucket{le="0.1",op="get"} 2',
        'latency_seconds_bucket{le="1",op="get"} 3',
        'latency_seconds_bucket{le="10",op="get"} 3',
        'latency_seconds_bucket{le="+Inf",op="get"} 4',
        'latency_seconds_sum{op="get"} 20.65',
        'latency_seconds_count{op="get"} 4',
      ].join('\n'),
    );
    expect(text).toContain('odd{v="nan"} NaN\n');
    expect(text).toContain('odd2 -Inf\n');
  });

  it('refuses what Prometheus would reject: bad names, unknown or reserved labels, a second family of one name, a counter going down', () => {
    const r = new MetricsRegistry();
    expect(() => r.counter({ name: 'bad-name', help: '' })).toThrow('metric name "bad-name" is not a Prometheus name');
    expect(() => r.histogram({ name: 'h', help: '', labelNames: ['le'], buckets: [1] })).toThrow('label name "le" is not allowed');
    expect(() => r.gauge({ name: 'g2', help: '', labelNames: ['__x'] })).toThrow('label name "__x" is not allowed');
    expect(() => r.histogram({ name: 'h2', help: '', buckets: [1, 1] })).toThrow('buckets must be ascending');
    const c = r.counter({ name: 'c_total', help: '', labelNames: ['a'] });
    expect(() => c.inc({ b: 'x' } as never)).toThrow('metric c_total has no label "b"');
    expect(() => c.inc({ a: 'x' }, -1)).toThrow('counter c_total can only go up');
    expect(() => r.gauge({ name: 'c_total', help: '' })).toThrow('a metric named c_total is already registered');
  });

  it('appends registered sources (e.g. a prom-client Registry) and runs scrape hooks first', async () => {
    const r = new MetricsRegistry();
    const g = r.gauge({ name: 'sampled', help: 's' }).labels();
    let n = 0;
    r.onScrape(() => g.set(++n));
    r.register({ metrics: async () => '# TYPE mine counter\nmine 7' });
    const first = await r.metrics();
    expect(first).toContain('\nsampled 1\n');
    expect(first.endsWith('# TYPE mine counter\nmine 7\n')).toBe(true);
    expect(await r.getSingleMetricAsString('sampled')).toBe('# HELP sampled s\n# TYPE sampled gauge\nsampled 2\n');
    expect(await r.getSingleMetricAsString('missing')).toBe('');
  });
});
