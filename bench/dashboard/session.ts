// One run, as run.ts and test/grafana/prometheus.test.ts both make it: the project made by the real
// commands, a kube-apiserver + etcd (envtest) with its CRD, the Gadget operator, a real Prometheus
// scraping it as the project's ServiceMonitor has it scraped, the scenario played; then the dashboards'
// queries answered by that Prometheus.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, Namespace } from '@opgen/runtime';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { parse } from 'yaml';
import { type Dashboard, dashboardFiles, type PanelResult, queryPanels, readDashboard, resolveVariables, type ResolvedVariable } from './dashboards.js';
import { namespaces, playScenario, startOperator } from './operator.js';
import { crdPath, makeProject, projectName, serviceMonitorTarget } from './project.js';
import { type Prometheus, type ScrapeTarget, startPrometheus } from './prometheus.js';

export interface SessionOptions {
  /** An empty folder; the project is made in it, in `<work>/<projectName>`. */
  work: string;
  prometheusBin: string;
  seconds: number;
  scrapeIntervalSeconds: number;
  opgen: (cwd: string, ...argv: string[]) => Promise<unknown>;
  /** More jobs scraping the same manager, made from the ServiceMonitor's target. */
  moreTargets?: (target: ScrapeTarget) => ScrapeTarget[];
  /** Load config/prometheus/prometheus_rule.yaml's groups as a rule file. */
  rules?: boolean;
}

export interface Session {
  /** The project's folder. */
  dir: string;
  prom: Prometheus;
  /** The job the ServiceMonitor's scrape gives the manager's series. */
  job: string;
  /** The scenario's first and last second (Unix), the last one scraped. */
  start: number;
  end: number;
  stop(): Promise<void>;
}

export async function runSession(o: SessionOptions): Promise<Session> {
  const dir = join(o.work, projectName);
  mkdirSync(dir);
  await makeProject(dir, o.opgen);
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => { for (const s of stops.reverse()) await s(); };
  try {
    const env: TestEnv = await startTestEnv({ crdPaths: [crdPath(dir)] });
    stops.push(() => env.stop());
    const client = createClient(env.kubeConfig);
    for (const name of namespaces) await client.create(Namespace, { metadata: { name } });
    const operator = await startOperator(env.kubeConfig);
    stops.push(operator.stop);
    const target = serviceMonitorTarget(dir, `127.0.0.1:${operator.metricsPort}`);
    const rules = o.rules ? (parse(readFileSync(join(dir, 'config/prometheus/prometheus_rule.yaml'), 'utf8')) as { spec: { groups: unknown[] } }).spec.groups : undefined;
    const prom = await startPrometheus(o.prometheusBin, [target, ...(o.moreTargets?.(target) ?? [])], o.scrapeIntervalSeconds, rules);
    stops.push(prom.stop);
    const start = Math.floor(Date.now() / 1000);
    await playScenario(client, o.seconds);
    await new Promise((r) => setTimeout(r, 2 * o.scrapeIntervalSeconds * 1000 + 1000)); // the last state scraped
    return { dir, prom, job: target.job, start, end: Math.floor(Date.now() / 1000), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface DashboardRun { file: string; dashboard: Dashboard; variables: ResolvedVariable[]; results: PanelResult[] }

/** Both dashboards' variables and panel queries over the session at `step` seconds; `picked` fixes variables. */
export async function queryDashboards(s: Session, step: number, picked: Record<string, string> = {}): Promise<DashboardRun[]> {
  const out: DashboardRun[] = [];
  for (const file of dashboardFiles) {
    const dashboard = readDashboard(join(s.dir, file));
    const { values, variables } = await resolveVariables(s.prom, dashboard, s.start, s.end, picked);
    out.push({ file, dashboard, variables, results: await queryPanels(s.prom, dashboard, values, s.start, s.end, step) });
  }
  return out;
}

/** The variables with no option and the panel targets with no series, one line each. */
export function emptyQueries(runs: DashboardRun[]): string[] {
  const empty: string[] = [];
  for (const r of runs) {
    for (const v of r.variables) if (v.options.length === 0) empty.push(`${r.file} variable ${v.name}`);
    for (const p of r.results) for (const t of p.targets) if (t.series.length === 0) empty.push(`${r.file} "${p.panel.title}" ${t.target.refId}: ${t.expr}`);
  }
  return empty;
}
