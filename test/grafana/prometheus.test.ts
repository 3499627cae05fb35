// The dashboards of `opgen edit --plugins grafana` against a real Prometheus (.ci/prometheus.sh) scraping a
// real @opgen/runtime operator: the Gadget operator of bench/dashboard (conditions moving through
// provisioning, a backend outage, a bad spec and recovery on a real kube-apiserver) is scraped every
// second the way the project's ServiceMonitor has it scraped, and every query of both dashboards (each
// panel target and each variable, variables resolved as Grafana does) must return at least one series:
// every metric and label they name exists in the scrape, with the values Prometheus gives them. The
// PrometheusRule's groups are loaded as a rule file and must all evaluate without an error.
// Needs OPGEN_PROMETHEUS (the path `bash .ci/prometheus.sh` prints); .ci/run does not build Prometheus
// (see docs/observability.md for the build's cost), so without it these tests are skipped, saying so.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Namespace } from '../../runtime/src/api/builtins.js';
import { createClient } from '../../runtime/src/client/client.js';
import { startTestEnv, type TestEnv } from '../../runtime/src/envtest/index.js';
import { dashboardFiles, type PanelResult, queryPanels, readDashboard, resolveVariables, type ResolvedVariable } from '../../bench/dashboard/dashboards.js';
import { namespaces, playScenario, startOperator } from '../../bench/dashboard/operator.js';
import { crdPath, makeProject, projectName, serviceMonitorTarget } from '../../bench/dashboard/project.js';
import { type Prometheus, startPrometheus } from '../../bench/dashboard/prometheus.js';
import { renderDashboard } from '../../bench/dashboard/svg.js';
import { opgenOk } from '../../src/testdata/cli.js';
import { tempDir } from '../../src/testdata/files.js';

const bin = process.env.OPGEN_PROMETHEUS;
if (!bin) console.log('test/grafana/prometheus.test.ts: skipped, OPGEN_PROMETHEUS is not set (export OPGEN_PROMETHEUS=$(bash .ci/prometheus.sh) to run it)');

/** The scenario's length, the scrape interval and the query step, in seconds. */
const SECONDS = 30;
const SCRAPE = 1;
const STEP = 1;
/** The second job: the same target with honor_labels false, to show what honorLabels changes. */
const UNHONORED = 'honor-labels-false';

describe.skipIf(!bin)('the dashboards on a real Prometheus scrape of a running operator (needs OPGEN_PROMETHEUS)', () => {
  const { dir: work, cleanup } = tempDir('grafana-prom-', 'work');
  const dir = join(work, projectName);
  let env: TestEnv | undefined;
  let stopOperator: (() => Promise<void>) | undefined;
  let prom: Prometheus | undefined;
  let job: string;
  let start: number;
  let end: number;
  const results = new Map<string, { results: PanelResult[]; variables: ResolvedVariable[] }>();

  beforeAll(async () => {
    mkdirSync(dir);
    await makeProject(dir, opgenOk);
    env = await startTestEnv({ crdPaths: [crdPath(dir)] });
    const client = createClient(env.kubeConfig);
    for (const name of namespaces) await client.create(Namespace, { metadata: { name } });
    const operator = await startOperator(env.kubeConfig);
    stopOperator = operator.stop;
    const target = serviceMonitorTarget(dir, `127.0.0.1:${operator.metricsPort}`);
    job = target.job;
    const rule = parse(readFileSync(join(dir, 'config/prometheus/prometheus_rule.yaml'), 'utf8')) as { spec: { groups: unknown[] } };
    prom = await startPrometheus(bin!, [target, { ...target, job: UNHONORED, honorLabels: false }], SCRAPE, rule.spec.groups);
    start = Math.floor(Date.now() / 1000);
    await playScenario(client, SECONDS);
    await new Promise((r) => setTimeout(r, 3 * SCRAPE * 1000)); // the last state scraped
    end = Math.floor(Date.now() / 1000);
    for (const file of dashboardFiles) {
      const d = readDashboard(join(dir, file));
      const { values, variables } = await resolveVariables(prom, d, start, end, { job });
      results.set(file, { results: await queryPanels(prom, d, values, start, end, STEP), variables });
    }
  }, 600_000);

  afterAll(async () => {
    await prom?.stop();
    await stopOperator?.();
    await env?.stop();
    cleanup();
  }, 120_000);

  /** The values of `expr` at the end of the run, by the labels named. */
  async function last(expr: string, ...labels: string[]): Promise<Record<string, number>> {
    const series = await prom!.queryRange(expr, end, end, 1);
    return Object.fromEntries(series.map((s) => [labels.map((l) => s.metric[l] ?? '').join(' '), s.values.at(-1)![1]]));
  }

  it('every panel target and every variable of both dashboards returns at least one series', () => {
    const empty: string[] = [];
    let targets = 0;
    for (const [file, r] of results) {
      for (const v of r.variables) if (v.options.length === 0) empty.push(`${file} variable ${v.name}`);
      for (const p of r.results) {
        for (const t of p.targets) {
          targets++;
          if (t.series.length === 0) empty.push(`${file} "${p.panel.title}" ${t.target.refId}: ${t.expr}`);
        }
      }
    }
    expect(empty).toEqual([]);
    expect(targets).toBeGreaterThan(30);
    // The variables as Grafana fills them: the job the ServiceMonitor's scrape gives, the kind, the controller.
    const vars = Object.fromEntries(results.get('grafana/conditions.json')!.variables.map((v) => [v.name, v.options]));
    expect(vars).toEqual({ job: [job, UNHONORED], kind: ['Gadget'], controller: ['gadget'] });
  });

  it("the PrometheusRule's groups, loaded as a rule file, are all evaluated by Prometheus without an error", async () => {
    const res = (await (await fetch(`${prom!.url}/api/v1/rules`)).json()) as { data: { groups: { rules: { name: string; health: string; lastError?: string; evaluationTime: number }[] }[] } };
    const rules = res.data.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.name)).toEqual(['GadgetOperatorConditionFalse', 'GadgetOperatorReconcileErrors', 'GadgetOperatorWorkqueueStuck', 'GadgetOperatorReconcileHung', 'GadgetOperatorDown']);
    expect(rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.health} ${r.lastError ?? ''}`)).toEqual([]);
  });

  it('the scenario is in the data: Ready moved False → True with its reasons, errors and terminal errors were counted, reconciles requeued', async () => {
    expect(await last(`sum by (status, reason) (operator_condition_transitions_total{job="${job}", kind="Gadget", type="Ready"})`, 'status', 'reason'))
      .toEqual({ 'False Provisioning': expect.any(Number), 'False BackendUnavailable': 2, 'False InvalidSpec': 1, 'True Available': expect.any(Number) });
    // Objects now: checkout (backend down) and billing (bad spec) not Ready; web, cache, queue, report Ready; search deleted.
    expect(await last(`operator_condition_objects{job="${job}", kind="Gadget", type="Ready"} > 0`, 'status', 'reason'))
      .toEqual({ 'False BackendUnavailable': 1, 'False InvalidSpec': 1, 'True Available': 4 });
    const results = await last(`controller_runtime_reconcile_total{job="${job}", controller="gadget"}`, 'result');
    expect(results.error).toBeGreaterThan(2);
    expect(results.requeue_after).toBeGreaterThan(2);
    expect(results.success).toBeGreaterThan(2);
    // billing's bad spec: its first reconcile, and the one its own status write triggers.
    expect((await last(`controller_runtime_terminal_reconcile_errors_total{job="${job}"}`, 'controller')).gadget).toBeGreaterThanOrEqual(1);
  });

  it("per-object series keep the object's namespace with the ServiceMonitor's honorLabels; with honor_labels false it is exported_namespace", async () => {
    const notReady = `operator_condition_last_transition_time_seconds{kind="Gadget", type="Ready", status="False"}`;
    expect(await last(`${notReady.replace('{', `{job="${job}", `)}`, 'namespace', 'name', 'exported_namespace')).toEqual({ 'shop checkout ': expect.any(Number), 'shop billing ': expect.any(Number) });
    expect(await last(`${notReady.replace('{', `{job="${UNHONORED}", `)}`, 'namespace', 'name', 'exported_namespace'))
      .toEqual({ [`${projectName}-system checkout shop`]: expect.any(Number), [`${projectName}-system billing shop`]: expect.any(Number) });
    // Series with no namespace of their own still get the target's.
    expect(await last(`operator_up{job="${job}"}`, 'namespace')).toEqual({ [`${projectName}-system`]: 1 });
  });

  it("renders each dashboard with its panels' titles, the same bytes twice, and no empty panel", () => {
    for (const [file, r] of results) {
      const d = readDashboard(join(dir, file));
      const info = { start, end, step: STEP, variables: r.variables, source: 'test' };
      const svg = renderDashboard(d, r.results, info);
      expect(renderDashboard(d, r.results, info)).toBe(svg);
      for (const p of d.panels) expect(svg).toContain(`>${p.title.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</text>`);
      expect(svg).not.toContain('No data');
    }
  });
});
