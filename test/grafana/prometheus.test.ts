// The dashboards of `opgen edit --plugins grafana` against a real Prometheus (.ci/prometheus.sh) scraping a
// real @opgen/runtime operator: the Gadget operator of bench/dashboard (conditions moving through
// provisioning, a backend outage, a bad spec and recovery on a real kube-apiserver) is scraped every
// second the way the project's ServiceMonitor has it scraped, and every query of both dashboards (each
// panel target and each variable, variables resolved as Grafana does) must return at least one series:
// every metric and label they name exists in the scrape, with the values Prometheus gives them. The
// PrometheusRule's groups are loaded as a rule file and must all evaluate without an error; the condition
// alert's expression, evaluated by that Prometheus, names only objects whose condition is in its problem
// status (a healthy Degraded=False never); increase() counts each transition counter's first increment
// (the counters' OpenMetrics _created, ingested with created-timestamp-zero-ingestion).
// Prometheus comes from .ci/prometheus.sh like every other peer tool (.ci/run builds it first and sets
// OPGEN_PROMETHEUS; a plain `npm test` builds it on first use).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectName } from '../../bench/dashboard/project.js';
import { type DashboardRun, emptyQueries, queryDashboards, runSession, type Session } from '../../bench/dashboard/session.js';
import { renderDashboard } from '../../bench/dashboard/svg.js';
import { ciTool } from '../../src/testdata/ci-tools.js';
import { opgenOk } from '../../src/testdata/cli.js';
import { tempDir } from '../../src/testdata/files.js';

/** The scenario's length, the scrape interval and the query step, in seconds. */
const SECONDS = 30;
const SCRAPE = 1;
const STEP = 1;
/** The second job: the same target with honor_labels false, to show what honorLabels changes. */
const UNHONORED = 'honor-labels-false';

describe('the dashboards on a real Prometheus scrape of a running operator', () => {
  const { dir: work, cleanup } = tempDir('grafana-prom-', 'work');
  let session: Session | undefined;
  let job: string;
  let end: number;
  let runs: DashboardRun[];

  beforeAll(async () => {
    session = await runSession({
      work, prometheusBin: ciTool('OPGEN_PROMETHEUS', 'prometheus.sh'), seconds: SECONDS, scrapeIntervalSeconds: SCRAPE, opgen: opgenOk, rules: true,
      moreTargets: (t) => [{ ...t, job: UNHONORED, honorLabels: false }],
    });
    ({ job, end } = session);
    runs = await queryDashboards(session, STEP, { job });
  }, 1_200_000); // room for a cold .ci/prometheus.sh build (811 s once at load average 25)

  afterAll(async () => {
    await session?.stop();
    cleanup();
  }, 120_000);

  /** The values of `expr` at the end of the run, by the labels named. */
  async function last(expr: string, ...labels: string[]): Promise<Record<string, number>> {
    const series = await session!.prom.queryRange(expr, end, end, 1);
    return Object.fromEntries(series.map((s) => [labels.map((l) => s.metric[l] ?? '').join(' '), s.values.at(-1)![1]]));
  }

  it('every panel target and every variable of both dashboards returns at least one series', () => {
    expect(emptyQueries(runs)).toEqual([]);
    expect(runs.flatMap((r) => r.results.flatMap((p) => p.targets)).length).toBeGreaterThan(30);
    // The variables as Grafana fills them: the job the ServiceMonitor's scrape gives, the kind, the controller.
    const vars = Object.fromEntries(runs.find((r) => r.file === 'grafana/conditions.json')!.variables.map((v) => [v.name, v.options]));
    expect(vars).toEqual({ job: [job, UNHONORED], kind: ['Gadget'], controller: ['gadget'] });
  });

  it("the PrometheusRule's groups, loaded as a rule file, are all evaluated by Prometheus without an error", async () => {
    const res = (await (await fetch(`${session!.prom.url}/api/v1/rules`)).json()) as { data: { groups: { rules: { name: string; health: string; lastError?: string; evaluationTime: number }[] }[] } };
    const rules = res.data.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.name)).toEqual(['GadgetOperatorConditionAbnormal', 'GadgetOperatorReconcileErrors', 'GadgetOperatorWorkqueueStuck', 'GadgetOperatorReconcileHung', 'GadgetOperatorDown']);
    expect(rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.health} ${r.lastError ?? ''}`)).toEqual([]);
  });

  it("the condition alert's expression, evaluated by Prometheus, holds only abnormal conditions: never a healthy Degraded=False", async () => {
    const rule = (parse(readFileSync(join(session!.dir, 'config/prometheus/prometheus_rule.yaml'), 'utf8')) as { spec: { groups: { rules: { alert: string; expr: string }[] }[] } })
      .spec.groups.flatMap((g) => g.rules).find((r) => r.alert === 'GadgetOperatorConditionAbnormal')!;
    // The alert's own expression with its 15-minute threshold lowered to 0: what fires once 15 minutes have passed.
    const [condition, threshold] = rule.expr.split(/ > (?=\d+$)/);
    expect(threshold).toBe('900');
    const firing = Object.keys(await last(`${condition} > 0`, 'namespace', 'name', 'type', 'status', 'reason')).sort();
    // Now: checkout's backend is down (Ready False, Degraded True), billing's spec is bad (Ready False);
    // web, cache, queue and report are Ready with Degraded=False, which must not fire.
    expect(firing).toEqual([
      'shop billing Ready False InvalidSpec',
      'shop checkout Degraded True BackendUnavailable',
      'shop checkout Ready False BackendUnavailable',
    ]);
    // The old expression (status="False") would have fired for every healthy Degraded=False.
    const old = Object.keys(await last(`(time() - operator_condition_last_transition_time_seconds{job=~"${job}", status="False"}) > 0`, 'name', 'type', 'status'));
    expect(old).toContain('web Degraded False');
  });

  it("increase() counts each transition counter's first increment, as the counter itself does", async () => {
    const by = ['type', 'status', 'reason'];
    const counted = await last(`sum by (type, status, reason) (operator_condition_transitions_total{job="${job}", kind="Gadget"})`, ...by);
    const increased = await last(`sum by (type, status, reason) (increase(operator_condition_transitions_total{job="${job}", kind="Gadget"}[${end - session!.start + 60}s]))`, ...by);
    expect(counted['Ready True Available']).toBeGreaterThanOrEqual(4);
    expect(counted['Ready False InvalidSpec']).toBe(1);
    // increase() extrapolates a little past the last scrape, so its figures are rounded.
    expect(Object.fromEntries(Object.entries(increased).map(([k, v]) => [k, Math.round(v)]))).toEqual(counted);
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
    for (const r of runs) {
      const info = { start: session!.start, end, step: STEP, variables: r.variables, source: 'test' };
      const svg = renderDashboard(r.dashboard, r.results, info);
      expect(renderDashboard(r.dashboard, r.results, info)).toBe(svg);
      for (const p of r.dashboard.panels) expect(svg).toContain(`>${p.title.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</text>`);
      expect(svg).not.toContain('No data');
    }
  });
});
