// A Prometheus registry of our own: counters, gauges and histograms with labels, written in the text
// exposition format (0.0.4) that Prometheus and controller-runtime's /metrics speak, or in OpenMetrics
// 1.0 when the scraper asks for it, with each counter's and histogram's `_created` timestamp: the
// start a Prometheus run with --enable-feature=created-timestamp-zero-ingestion needs to count a
// series' first increment (without it, a series that appears at 1 is no increase()). It replaces
// prom-client, which cost an idle operator ~2 MB of RSS and three packages in its image for the eight
// series the runtime keeps (docs/runtime-performance.md). A label set can be bound once (`labels()`,
// as each work queue's are), so a hot path is a number update with no per-call label lookup.

/** Anything that writes Prometheus text: another registry, or a prom-client `Registry` (`register()`). */
export interface MetricsSource {
  metrics(): string | Promise<string>;
}

export interface MetricOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}

export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  /** Upper bounds, ascending; `+Inf` is added. */
  buckets: readonly number[];
}

type Labels<L extends string> = Partial<Record<L, string>>;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

const escapeHelp = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** One metric family: its series keyed by their label values in labelNames order. */
abstract class Metric<L extends string, S> {
  readonly name: string;
  protected readonly help: string;
  protected readonly labelNames: readonly L[];
  protected readonly series = new Map<string, { text: string; state: S; created: number }>();

  constructor(opts: MetricOptions<L>, protected readonly type: 'counter' | 'gauge' | 'histogram') {
    if (!NAME.test(opts.name)) throw new Error(`metric name "${opts.name}" is not a Prometheus name ([a-zA-Z_:][a-zA-Z0-9_:]*)`);
    for (const l of opts.labelNames ?? []) {
      if (!LABEL.test(l) || l.startsWith('__') || (type === 'histogram' && l === 'le')) {
        throw new Error(`metric ${opts.name}: label name "${l}" is not allowed`);
      }
    }
    this.name = opts.name;
    this.help = opts.help;
    this.labelNames = opts.labelNames ?? [];
  }

  protected abstract initial(): S;
  protected abstract samples(labelText: string, state: S, name?: string): string[];

  /** The series of these label values (created on first use); hold on to it on hot paths. */
  protected seriesOf(labels: Labels<L> = {}): S {
    const values = this.labelNames.map((l) => labels[l] ?? '');
    for (const key of Object.keys(labels)) {
      if (!this.labelNames.includes(key as L)) throw new Error(`metric ${this.name} has no label "${key}"`);
    }
    const key = values.join('\u0000');
    let s = this.series.get(key);
    if (!s) {
      const text = this.labelNames.map((l, i) => `${l}="${escapeLabel(values[i]!)}"`).join(',');
      s = { text, state: this.initial(), created: Date.now() / 1000 };
      this.series.set(key, s);
    }
    return s.state;
  }

  /** Drops the series of these label values (an object that is gone); a bound handle to it stops counting. */
  remove(labels: Labels<L>): void {
    this.series.delete(this.labelNames.map((l) => labels[l] ?? '').join('\u0000'));
  }

  /** This family in the text format: HELP, TYPE, then every series in the order it was created. */
  expose(): string {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`];
    if (this.series.size === 0 && this.labelNames.length === 0) this.seriesOf();
    for (const { text, state } of this.series.values()) lines.push(...this.samples(text, state));
    return `${lines.join('\n')}\n`;
  }

  /**
   * This family in OpenMetrics 1.0: a counter's family is its name without `_total` (its samples keep
   * it), and counters and histograms add `<family>_created` per series, the Unix second it was created.
   */
  exposeOpenMetrics(): string {
    const family = this.type === 'counter' ? this.name.replace(/_total$/, '') : this.name;
    const lines = [`# TYPE ${family} ${this.type}`, `# HELP ${family} ${escapeHelp(this.help).replace(/"/g, '\\"')}`];
    if (this.series.size === 0 && this.labelNames.length === 0) this.seriesOf();
    for (const { text, state, created } of this.series.values()) {
      lines.push(...this.samples(text, state, this.type === 'counter' ? `${family}_total` : family));
      if (this.type !== 'gauge') lines.push(this.line('_created', text, created, family));
    }
    return `${lines.join('\n')}\n`;
  }

  protected line(suffix: string, labelText: string, value: number, name = this.name): string {
    return `${name}${suffix}${labelText ? `{${labelText}}` : ''} ${formatValue(value)}`;
  }
}

export interface CounterSeries {
  inc(by?: number): void;
}

/** A family whose series are one number each (counters and gauges). */
abstract class ScalarMetric<L extends string> extends Metric<L, { value: number }> {
  protected initial() {
    return { value: 0 };
  }
  protected samples(labelText: string, s: { value: number }, name?: string) {
    return [this.line('', labelText, s.value, name)];
  }
}

export class Counter<L extends string = string> extends ScalarMetric<L> {
  constructor(opts: MetricOptions<L>) {
    super(opts, 'counter');
  }
  /** The series of these labels, bound: `inc()` on it touches nothing else. */
  labels(labels: Labels<L> = {}): CounterSeries {
    const s = this.seriesOf(labels);
    return {
      inc: (by = 1) => {
        if (!(by >= 0)) throw new Error(`counter ${this.name} can only go up (inc by ${by})`);
        s.value += by;
      },
    };
  }
  inc(labels: Labels<L> = {}, by = 1): void {
    this.labels(labels).inc(by);
  }
}

export interface GaugeSeries {
  set(value: number): void;
  inc(by?: number): void;
  dec(by?: number): void;
}

export class Gauge<L extends string = string> extends ScalarMetric<L> {
  constructor(opts: MetricOptions<L>) {
    super(opts, 'gauge');
  }
  labels(labels: Labels<L> = {}): GaugeSeries {
    const s = this.seriesOf(labels);
    return {
      set: (value) => {
        s.value = value;
      },
      inc: (by = 1) => {
        s.value += by;
      },
      dec: (by = 1) => {
        s.value -= by;
      },
    };
  }
  set(labels: Labels<L>, value: number): void {
    this.labels(labels).set(value);
  }
}

export interface HistogramSeries {
  observe(value: number): void;
}

interface HistogramState {
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram<L extends string = string> extends Metric<L, HistogramState> {
  private readonly buckets: readonly number[];

  constructor(opts: HistogramOptions<L>) {
    super(opts, 'histogram');
    const b = opts.buckets.filter((x) => x !== Infinity);
    if (b.some((x, i) => i > 0 && !(x > b[i - 1]!))) throw new Error(`histogram ${opts.name}: buckets must be ascending`);
    this.buckets = b;
  }
  protected initial(): HistogramState {
    return { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
  }
  protected samples(labelText: string, s: HistogramState, name = this.name) {
    // `le` first, then the series' labels (the order prom-client wrote, which dashboards don't depend on).
    const withLe = (le: string) => `le="${le}"${labelText ? `,${labelText}` : ''}`;
    const lines: string[] = [];
    let cumulative = 0;
    this.buckets.forEach((bound, i) => {
      cumulative += s.counts[i]!;
      lines.push(this.line('_bucket', withLe(formatValue(bound)), cumulative, name));
    });
    lines.push(this.line('_bucket', withLe('+Inf'), s.count, name));
    lines.push(this.line('_sum', labelText, s.sum, name));
    lines.push(this.line('_count', labelText, s.count, name));
    return lines;
  }
  labels(labels: Labels<L> = {}): HistogramSeries {
    const s = this.seriesOf(labels);
    const buckets = this.buckets;
    return {
      observe: (value) => {
        // Bounds are inclusive (value ≤ le); each observation lands in its first bucket, summed at exposition.
        let i = 0;
        while (i < buckets.length && value > buckets[i]!) i++;
        if (i < buckets.length) s.counts[i]!++;
        s.sum += value;
        s.count++;
      },
    };
  }
  observe(labels: Labels<L>, value: number): void {
    this.labels(labels).observe(value);
  }
}

export const textContentType = 'text/plain; version=0.0.4; charset=utf-8';
export const openMetricsContentType = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

/** A set of metric families, and other sources appended to its output. */
export class MetricsRegistry implements MetricsSource {
  readonly contentType = textContentType;
  private readonly families = new Map<string, Metric<string, unknown>>();
  private readonly sources: MetricsSource[] = [];
  private readonly beforeScrape: (() => void)[] = [];

  counter<L extends string>(opts: MetricOptions<L>): Counter<L> {
    return this.add(new Counter(opts));
  }
  gauge<L extends string>(opts: MetricOptions<L>): Gauge<L> {
    return this.add(new Gauge(opts));
  }
  histogram<L extends string>(opts: HistogramOptions<L>): Histogram<L> {
    return this.add(new Histogram(opts));
  }

  /** Appends another source's text to every scrape, e.g. a prom-client Registry with your own metrics. */
  register(source: MetricsSource): void {
    this.sources.push(source);
  }

  /** Runs `update` before every scrape (gauges read from the process, say). */
  onScrape(update: () => void): void {
    this.beforeScrape.push(update);
  }

  async metrics(): Promise<string> {
    for (const update of this.beforeScrape) update();
    let text = '';
    for (const family of this.families.values()) text += `${family.expose()}\n`;
    for (const source of this.sources) {
      const more = await source.metrics();
      if (more) text += more.endsWith('\n') ? more : `${more}\n`;
    }
    return text;
  }

  /**
   * What a scrape with this Accept header gets: OpenMetrics 1.0 when it accepts
   * application/openmetrics-text and no other source is registered (their text is 0.0.4, which an
   * OpenMetrics body cannot carry), else the text format.
   */
  async exposition(accept: string | undefined): Promise<{ contentType: string; body: string }> {
    if (!/application\/openmetrics-text/i.test(accept ?? '') || this.sources.length > 0) return { contentType: textContentType, body: await this.metrics() };
    for (const update of this.beforeScrape) update();
    let body = '';
    for (const family of this.families.values()) body += family.exposeOpenMetrics();
    return { contentType: openMetricsContentType, body: `${body}# EOF\n` };
  }

  /** One family's text, or '' when there is none of that name. */
  async getSingleMetricAsString(name: string): Promise<string> {
    for (const update of this.beforeScrape) update();
    return this.families.get(name)?.expose() ?? '';
  }

  private add<M extends Metric<string, unknown>>(metric: M): M {
    if (this.families.has(metric.name)) throw new Error(`a metric named ${metric.name} is already registered`);
    this.families.set(metric.name, metric as Metric<string, unknown>);
    return metric;
  }
}
