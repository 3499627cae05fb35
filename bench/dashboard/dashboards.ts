// The Grafana dashboards `opgen edit --plugins grafana` writes, read as Grafana reads them: variables
// resolved from Prometheus in order (label_values through the series' label values, the way Grafana's
// Prometheus data source does it), then each panel's targets with the variables substituted, queried
// over a range.
import { readFileSync } from 'node:fs';
import type { Prometheus, Series } from './prometheus.js';

export interface Target { expr: string; legendFormat?: string; refId: string }
export interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  fieldConfig?: { defaults?: { unit?: string } };
  targets: Target[];
}
interface Variable { name: string; type: string; query?: { query: string } | string; includeAll?: boolean; allValue?: string; sort?: number }
export interface Dashboard { uid: string; title: string; panels: Panel[]; templating: { list: Variable[] } }

export const dashboardFiles = ['grafana/controller-runtime-metrics.json', 'grafana/conditions.json'];

export function readDashboard(file: string): Dashboard {
  return JSON.parse(readFileSync(file, 'utf8')) as Dashboard;
}

/** A variable's label_values query, split; throws for any other kind of query. */
export function labelValuesQuery(v: Variable): { selector: string; label: string } {
  const q = typeof v.query === 'string' ? v.query : v.query?.query ?? '';
  const m = /^label_values\((.*), (\w+)\)$/.exec(q);
  if (!m) throw new Error(`variable ${v.name}: not label_values(selector, label): ${q}`);
  return { selector: m[1]!, label: m[2]! };
}

/** Replaces $name and ${name} with the values picked. */
export function substitute(expr: string, values: Record<string, string>): string {
  return expr.replace(/\$\{(\w+)\}|\$(\w+)/g, (all, a?: string, b?: string) => values[(a ?? b)!] ?? all);
}

/**
 * Grafana's $__rate_interval: max($__interval + scrape interval, 4 × scrape interval), with $__interval the
 * step of the range query.
 */
export function rateInterval(stepSeconds: number, scrapeIntervalSeconds: number): string {
  return `${Math.max(stepSeconds + scrapeIntervalSeconds, 4 * scrapeIntervalSeconds)}s`;
}

export interface ResolvedVariable { name: string; options: string[]; value: string }

/**
 * The query variables' options over [start, end], and the value a new dashboard opens with: All (its
 * allValue) when the variable has it, else the first option in the variable's sort order; or the value
 * `picked` gives (as a user picks one).
 */
export async function resolveVariables(prom: Prometheus, d: Dashboard, start: number, end: number, picked: Record<string, string> = {}): Promise<{ values: Record<string, string>; variables: ResolvedVariable[] }> {
  const values: Record<string, string> = {};
  const variables: ResolvedVariable[] = [];
  for (const v of d.templating.list) {
    if (v.type !== 'query') continue;
    const { selector, label } = labelValuesQuery(v);
    const params = new URLSearchParams({ 'match[]': substitute(selector, values), start: String(start), end: String(end) });
    const res = (await (await fetch(`${prom.url}/api/v1/label/${label}/values?${params}`)).json()) as { status: string; data?: string[]; error?: string };
    if (res.status !== 'success') throw new Error(`variable ${v.name}: ${res.error}`);
    const options = [...res.data!].sort();
    if (v.sort === 2) options.reverse();
    const value = picked[v.name] ?? (v.includeAll ? (v.allValue ?? options.join('|')) : (options[0] ?? ''));
    values[v.name] = value;
    variables.push({ name: v.name, options, value });
  }
  return { values, variables };
}

export interface PanelResult { panel: Panel; targets: { target: Target; expr: string; series: Series[] }[] }

/** Every panel's targets, substituted and queried over [start, end] at `step` seconds. */
export async function queryPanels(prom: Prometheus, d: Dashboard, values: Record<string, string>, start: number, end: number, step: number): Promise<PanelResult[]> {
  const all = { ...values, __rate_interval: rateInterval(step, prom.scrapeIntervalSeconds), __interval: `${step}s` };
  const out: PanelResult[] = [];
  for (const panel of d.panels) {
    const targets = [];
    for (const target of panel.targets) {
      const expr = substitute(target.expr, all);
      targets.push({ target, expr, series: await prom.queryRange(expr, start, end, step) });
    }
    out.push({ panel, targets });
  }
  return out;
}

/** Grafana's legendFormat: {{label}} replaced by the series' label value. */
export function legend(format: string | undefined, metric: Record<string, string>): string {
  if (!format) return `{${Object.entries(metric).map(([k, v]) => `${k}="${v}"`).join(', ')}}`;
  return format.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, l: string) => metric[l] ?? '');
}
