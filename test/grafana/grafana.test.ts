// `opgen edit --plugins grafana` (#25 item 5) and the scaffold's Ready printer columns (item 6), on a
// project made by the real commands: every PromQL expression of the dashboards and alerts parses with
// Prometheus's own parser (promcheck promql) and names only metrics and labels that a running manager,
// whose controller sets conditions on a real kube-apiserver, serves on /metrics; the PrometheusRule is
// accepted by prometheus-operator's CRD on that API server; `kubectl get` shows Ready's columns.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { groupVersion } from '../../runtime/src/api/kind.js';
import type { Condition, ObjectMeta } from '../../runtime/src/api/types.js';
import { createClient, type Client } from '../../runtime/src/client/client.js';
import { eventually, startTestEnv, type TestEnv } from '../../runtime/src/envtest/index.js';
import { setConditions } from '../../runtime/src/helpers/conditions.js';
import { silentLogger } from '../../runtime/src/log/index.js';
import { createManager } from '../../runtime/src/manager/index.js';
import { Result } from '../../runtime/src/reconcile/index.js';
import { ciTool } from '../../src/testdata/ci-tools.js';
import { opgen, opgenOk } from '../../src/testdata/cli.js';
import { snapshot, tempDir } from '../../src/testdata/files.js';

const { dir: project, cleanup } = tempDir('grafana-', 'gadget-operator');
let env: TestEnv | undefined;
let client: Client;
let stopManager: (() => Promise<void>) | undefined;
/** The families of the running manager's /metrics, as the Prometheus text parser reads them. */
let families: Record<string, { type: string; samples: { labels: Record<string, string> }[] }>;

interface Gadget { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: { foo?: string }; status?: { conditions?: Condition[] } }
const Gadget = groupVersion('obs.example.com', 'v1').kind<Gadget>('Gadget', { plural: 'gadgets', namespaced: true });

const kubectl = (...args: string[]) => spawnSync('kubectl', args, { env: { ...process.env, KUBECONFIG: env!.kubeconfigPath }, encoding: 'utf8' });

beforeAll(async () => {
  await opgenOk(project, 'init', '--domain', 'example.com', '--skip-install');
  await opgenOk(project, 'create', 'api', '--group', 'obs', '--version', 'v1', '--kind', 'Gadget');
  await opgenOk(project, 'edit', '--plugins', 'grafana');
  await opgenOk(project, 'generate');
  env = await startTestEnv({
    crdPaths: [join(project, 'config/crd/bases/obs.example.com_gadgets.yaml'), ...['prometheusrules', 'servicemonitors'].map((r) => join(ciTool('OPGEN_THIRD_PARTY_CRDS', 'third-party-crds.sh'), `monitoring.coreos.com_${r}.yaml`))],
  });
  client = createClient(env.kubeConfig);
  // A manager like the scaffold's: a Gadget controller that reports Ready (False, then True), and fails
  // once, so the error series exist; leader election on, so the lease's series do.
  const mgr = await createManager({
    kubeConfig: env.kubeConfig, logger: silentLogger(), metricsBindAddress: '127.0.0.1:0',
    leaderElection: true, leaderElectionID: 'gadget-operator', leaderElectionNamespace: 'default', retryPeriodMs: 200,
  });
  let failed = false;
  mgr.controllerFor(Gadget).named('gadget').complete({
    reconcile: async (req) => {
      if (!failed) {
        failed = true;
        throw new Error('first attempt fails');
      }
      const g = await client.get(Gadget, req);
      // `ready` waits once, then is Ready: a transition out of a state, so the state-duration histogram has a series.
      const ready = req.name === 'ready' && g.status?.conditions !== undefined;
      if (!setConditions(g, { type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'Available' : 'WaitingForPods', message: ready ? 'up' : '0 of 1 up' })) return;
      await client.status().update(Gadget, g);
      if (!ready && req.name === 'ready') return Result.requeueAfter(100);
    },
  });
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  stopManager = async () => { stop.abort(); await done; };
  for (const name of ['waiting', 'ready']) await client.create(Gadget, { metadata: { name, namespace: 'default' }, spec: { foo: 'x' } });
  await eventually(async () => {
    const text = await (await fetch(`http://127.0.0.1:${mgr.ports.metrics}/metrics`)).text();
    expect(text).toContain('operator_condition_objects{kind="Gadget",type="Ready",status="True",reason="Available",abnormal="false"} 1');
    expect(text).toContain('operator_condition_objects{kind="Gadget",type="Ready",status="False",reason="WaitingForPods",abnormal="true"} 1');
    expect(text).toContain('operator_condition_state_duration_seconds_count{kind="Gadget",type="Ready",status="False",abnormal="true"} 1');
    expect(text).toMatch(/leader_election_master_status\{name="gadget-operator"\} 1/);
    families = (JSON.parse(execFileSync(ciTool('OPGEN_PROMCHECK', 'promcheck.sh'), { input: text, encoding: 'utf8' })) as { families: typeof families }).families;
  }, { timeoutMs: 60_000 });
}, 600_000);

afterAll(async () => {
  await stopManager?.();
  await env?.stop();
  cleanup();
});

interface Parsed { expr: string; error?: string; selectors: { name: string; labels: string[] }[]; grouping: string[] }

/** The PromQL of the dashboards (panel targets, label_values variables) and of the alerting rules. */
function queries(): { where: string; expr: string; labels?: string[] }[] {
  const out: { where: string; expr: string; labels?: string[] }[] = [];
  for (const file of ['grafana/controller-runtime-metrics.json', 'grafana/conditions.json']) {
    const d = JSON.parse(readFileSync(join(project, file), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
      templating: { list: { name: string; type: string; query: { query: string } }[] };
    };
    for (const p of d.panels) for (const t of p.targets) out.push({ where: `${file} "${p.title}"`, expr: t.expr });
    for (const v of d.templating.list.filter((x) => x.type === 'query')) {
      const m = /^label_values\((.*), (\w+)\)$/.exec(v.query.query);
      if (!m) throw new Error(`${file} variable ${v.name}: not label_values(selector, label): ${v.query.query}`);
      out.push({ where: `${file} variable ${v.name}`, expr: m[1]!, labels: [m[2]!] });
    }
  }
  const rule = parse(readFileSync(join(project, 'config/prometheus/prometheus_rule.yaml'), 'utf8')) as { spec: { groups: { rules: { alert: string; expr: string }[] }[] } };
  for (const r of rule.spec.groups.flatMap((g) => g.rules)) out.push({ where: `alert ${r.alert}`, expr: r.expr });
  // Grafana's variables become plain values (only names are checked; $__rate_interval a duration).
  return out.map((q) => ({ ...q, expr: q.expr.replaceAll('$__rate_interval', '5m').replace(/\$(\w+)/g, 'x') }));
}

/** Problems with the expressions: parse errors, metrics /metrics lacks, labels those metrics lack. */
function check(qs: { where: string; expr: string; labels?: string[] }[]): string[] {
  const parsed = JSON.parse(execFileSync(ciTool('OPGEN_PROMCHECK', 'promcheck.sh'), ['promql'], { input: JSON.stringify(qs.map((q) => q.expr)), encoding: 'utf8' })) as Parsed[];
  // Prometheus adds job and instance to every series it scrapes.
  const target = ['job', 'instance'];
  const labelsOf = (name: string): Set<string> | undefined => {
    let family = families[name];
    const extra: string[] = [];
    for (const suffix of ['_bucket', '_sum', '_count']) {
      const base = families[name.slice(0, -suffix.length)];
      if (!family && name.endsWith(suffix) && base?.type === 'HISTOGRAM') {
        family = base;
        if (suffix === '_bucket') extra.push('le');
      }
    }
    if (!family || family.samples.length === 0) return undefined;
    return new Set([...family.samples.flatMap((s) => Object.keys(s.labels)), ...extra, ...target]);
  };
  const problems: string[] = [];
  parsed.forEach((p, i) => {
    const where = qs[i]!.where;
    if (p.error) return void problems.push(`${where}: ${p.error}`);
    const all = new Set<string>();
    for (const s of p.selectors) {
      const labels = labelsOf(s.name);
      if (!labels) {
        problems.push(`${where}: ${s.name} is not on /metrics`);
        continue;
      }
      for (const l of labels) all.add(l);
      for (const l of s.labels) if (!labels.has(l)) problems.push(`${where}: ${s.name} has no label ${l}`);
    }
    for (const l of [...p.grouping, ...(qs[i]!.labels ?? [])]) if (!all.has(l)) problems.push(`${where}: no metric selected has label ${l}`);
  });
  return problems;
}

describe('opgen edit --plugins grafana', () => {
  it('writes the two dashboards and the PrometheusRule, lists the rule in config/prometheus and records the plugin', () => {
    for (const f of ['grafana/controller-runtime-metrics.json', 'grafana/conditions.json']) {
      const d = JSON.parse(readFileSync(join(project, f), 'utf8')) as { uid: string; panels: unknown[] };
      expect(d.uid).toMatch(/^gadget-operator-/);
      expect(d.panels.length).toBeGreaterThan(5);
    }
    expect(readFileSync(join(project, 'PROJECT'), 'utf8')).toContain('grafana.opgen.dev/v1-alpha: {}');
    const built = execFileSync('kubectl', ['kustomize', join(project, 'config/prometheus')], { encoding: 'utf8' });
    expect(parseAllDocuments(built).map((d) => (d.toJS() as { kind: string }).kind)).toEqual(['PrometheusRule', 'ServiceMonitor']);
  });

  it("every query parses with Prometheus's parser and names only metrics and labels the running manager serves", () => {
    const qs = queries();
    expect(qs.length).toBeGreaterThan(30);
    expect(check(qs)).toEqual([]);
    // The check catches a misspelt metric, a label the metric lacks, a grouping label and a parse error.
    expect(check([
      { where: 'a', expr: 'rate(controller_runtime_reconcile_totl[5m])' },
      { where: 'b', expr: 'operator_up{kind="x"}' },
      { where: 'c', expr: 'sum by (reasn) (operator_condition_objects)' },
      { where: 'd', expr: 'sum by (kind) (' },
    ])).toEqual([
      'a: controller_runtime_reconcile_totl is not on /metrics',
      'b: operator_up has no label kind',
      'c: no metric selected has label reasn',
      expect.stringMatching(/^d: .*parse error/),
    ]);
  });

  it("the PrometheusRule and the ServiceMonitor are accepted by prometheus-operator's CRDs on the API server, and a broken rule is refused", () => {
    expect(kubectl('create', 'namespace', 'system').status).toBe(0);
    const file = join(project, 'config/prometheus/prometheus_rule.yaml');
    const ok = kubectl('apply', '--server-side', '-f', file);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toContain('prometheusrule.monitoring.coreos.com/controller-manager-alerts serverside-applied');
    const broken = join(project, 'broken-rule.yaml');
    writeFileSync(broken, readFileSync(file, 'utf8').replace('name: controller-manager-alerts', 'name: broken').replace('for: 1m', 'for: a while'));
    const refused = kubectl('apply', '--server-side', '-f', broken);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('spec.groups[0].rules[0].for');
    // The ServiceMonitor too, fields checked strictly (honorLabels is where prometheus-operator has it).
    const monitor = kubectl('apply', '--server-side', '--validate=strict', '-f', join(project, 'config/prometheus/monitor.yaml'));
    expect(monitor.stderr).toBe('');
    expect(monitor.stdout).toContain('servicemonitor.monitoring.coreos.com/controller-manager-metrics-monitor serverside-applied');
    expect(parse(readFileSync(join(project, 'config/prometheus/monitor.yaml'), 'utf8')).spec.endpoints[0].honorLabels).toBe(true);
    const misspelt = join(project, 'misspelt-monitor.yaml');
    writeFileSync(misspelt, readFileSync(join(project, 'config/prometheus/monitor.yaml'), 'utf8').replace('honorLabels:', 'honorLabel:'));
    const unknown = kubectl('apply', '--server-side', '--validate=strict', '-f', misspelt);
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('honorLabel');
  });

  it("the rules select the metrics Service's job, rendered by kustomize and by the Helm chart under a release name", async () => {
    const k = join(project, 'config/default/kustomization.yaml');
    writeFileSync(k, readFileSync(k, 'utf8').replace('#- ../prometheus', '- ../prometheus'));
    await opgenOk(project, 'generate', 'helm');
    const renderings = {
      kustomize: execFileSync('kubectl', ['kustomize', join(project, 'config/default')], { encoding: 'utf8' }),
      helm: execFileSync(ciTool('OPGEN_HELM', 'helm.sh'), ['template', 'rel', join(project, 'dist/chart')], { encoding: 'utf8' }),
    };
    for (const [how, text] of Object.entries(renderings)) {
      const objects = parseAllDocuments(text).map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec: { groups: { rules: { expr: string }[] }[] } }).filter(Boolean);
      const service = objects.find((o) => o.kind === 'Service' && o.metadata.name.endsWith('controller-manager-metrics-service'))!.metadata.name;
      const rules = objects.filter((o) => o.kind === 'PrometheusRule').flatMap((o) => o.spec.groups.flatMap((g) => g.rules));
      expect(rules.length, how).toBe(5);
      for (const r of rules) {
        const jobs = [...r.expr.matchAll(/job=~"([^"]*)"/g)].map((m) => m[1]!);
        expect(jobs.length, `${how}: ${r.expr}`).toBeGreaterThan(0);
        // PromQL regular expressions are anchored at both ends.
        for (const j of jobs) expect(service, `${how}: ${r.expr}`).toMatch(new RegExp(`^(?:${j})$`));
      }
    }
  });

  it('a rerun changes nothing (the rule is listed once, an edited rule is kept); --dry-run writes nothing', async () => {
    const rule = join(project, 'config/prometheus/prometheus_rule.yaml');
    const tuned = readFileSync(rule, 'utf8').replace('> 900', '> 1800');
    writeFileSync(rule, tuned);
    const before = snapshot(project);
    await opgenOk(project, 'edit', '--plugins', 'grafana');
    expect(snapshot(project)).toEqual(before);
    expect(readFileSync(join(project, 'config/prometheus/kustomization.yaml'), 'utf8').match(/^- prometheus_rule\.yaml$/gm)).toHaveLength(1);
    const { dir: fresh, cleanup: cleanFresh } = tempDir('grafana-dry-', 'dry-operator');
    try {
      await opgenOk(fresh, 'init', '--domain', 'example.com', '--skip-install');
      const untouched = snapshot(fresh);
      await opgenOk(fresh, 'edit', '--plugins', 'grafana', '--dry-run');
      expect(snapshot(fresh)).toEqual(untouched);
    } finally {
      cleanFresh();
    }
  });

  it('refuses an unknown plugin in one line and leaves the tree unchanged', async () => {
    const before = snapshot(project);
    const r = await opgen(project, 'edit', '--plugins', 'grafana,prometheus');
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--plugins');
    expect(r.stderr).toContain('"prometheus"');
    expect(snapshot(project)).toEqual(before);
  });
});

describe("the scaffold's printer columns", () => {
  it("kubectl get shows Ready's status, reason and the time since its last transition, and the age", async () => {
    await eventually(async () => {
      const r = kubectl('get', 'gadgets', '-n', 'default');
      const [header, ...rows] = r.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/));
      expect(header).toEqual(['NAME', 'READY', 'REASON', 'SINCE', 'AGE']);
      expect(rows.map((row) => row.slice(0, 3))).toEqual([['ready', 'True', 'Available'], ['waiting', 'False', 'WaitingForPods']]);
      for (const row of rows) {
        expect(row[3]).toMatch(/^(\d+m)?\d+s$|^\d+m$/);
        expect(row[4]).toMatch(/^(\d+m)?\d+s$|^\d+m$/);
      }
    }, { timeoutMs: 30_000 });
  });
});
