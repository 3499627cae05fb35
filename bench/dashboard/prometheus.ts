// A real Prometheus server (.ci/prometheus.sh) scraping one /metrics endpoint with a static scrape
// config, and its HTTP API's query_range.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ScrapeTarget {
  /** host:port of the /metrics endpoint. */
  address: string;
  /** The job label (what prometheus-operator sets from the Service's name). */
  job: string;
  /** Target labels beside job and instance, as prometheus-operator's relabeling sets them (namespace, service, ...). */
  labels: Record<string, string>;
  /** honor_labels: what the ServiceMonitor endpoint's honorLabels becomes. */
  honorLabels: boolean;
}

export interface Prometheus {
  url: string;
  scrapeIntervalSeconds: number;
  /** The query's matrix, or throws with Prometheus's error. Times in Unix seconds. */
  queryRange(expr: string, start: number, end: number, step: number): Promise<Series[]>;
  stop(): Promise<void>;
}

export interface Series {
  metric: Record<string, string>;
  /** [Unix seconds, value]; NaN and ±Inf as Prometheus sends them, parsed. */
  values: [number, number][];
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The prometheus.yml, one job per target (and the rule file, when given): JSON, which is YAML. */
export function scrapeConfig(targets: ScrapeTarget[], scrapeIntervalSeconds: number, ruleFile?: string): string {
  return JSON.stringify({
    global: { scrape_interval: `${scrapeIntervalSeconds}s`, scrape_timeout: `${scrapeIntervalSeconds}s`, evaluation_interval: `${scrapeIntervalSeconds}s` },
    ...(ruleFile ? { rule_files: [ruleFile] } : {}),
    scrape_configs: targets.map((t) => ({
      job_name: t.job,
      honor_labels: t.honorLabels,
      static_configs: [{ targets: [t.address], labels: t.labels }],
    })),
  }, null, 2);
}

/**
 * Starts `bin` on a free loopback port with a fresh TSDB folder, start timestamps (`_created`) ingested;
 * resolves once /-/ready answers 200.
 * `ruleGroups` (a PrometheusRule's spec.groups, the format of a Prometheus rule file) are loaded and
 * evaluated every scrape interval; Prometheus refuses to start on a rule it cannot parse.
 */
export async function startPrometheus(bin: string, targets: ScrapeTarget[], scrapeIntervalSeconds: number, ruleGroups?: unknown[]): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'opgen-prometheus-'));
  const ruleFile = ruleGroups && join(dir, 'rules.yml');
  if (ruleFile) writeFileSync(ruleFile, JSON.stringify({ groups: ruleGroups }, null, 2));
  writeFileSync(join(dir, 'prometheus.yml'), scrapeConfig(targets, scrapeIntervalSeconds, ruleFile));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = '';
  const child: ChildProcess = spawn(bin, [
    `--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn',
    // As docs/observability.md has users run it: a counter's _created (OpenMetrics) becomes a 0 sample,
    // so increase() counts the first increment of a series that appears at 1.
    '--enable-feature=created-timestamp-zero-ingestion',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (d: Buffer) => { log = (log + d.toString()).slice(-4000); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}: ${log}`);
    const ok = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus was not ready within 60 s: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    scrapeIntervalSeconds,
    async queryRange(expr, start, end, step) {
      const body = new URLSearchParams({ query: expr, start: String(start), end: String(end), step: String(step) });
      const res = await fetch(`${url}/api/v1/query_range`, { method: 'POST', body });
      const json = (await res.json()) as { status: string; error?: string; data?: { resultType: string; result: { metric: Record<string, string>; values: [number, string][] }[] } };
      if (json.status !== 'success') throw new Error(`query_range ${expr}: ${json.error}`);
      return json.data!.result.map((r) => ({ metric: r.metric, values: r.values.map(([t, v]) => [t, Number(v)] as [number, number]) }));
    },
    stop,
  };
}
