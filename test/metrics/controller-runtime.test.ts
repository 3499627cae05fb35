// controller-runtime's metric set, compared with a live controller-runtime v0.24.1 manager (crpeer,
// .ci/controller-runtime-peer.sh) doing the same work on the same API server: every family it serves
// (besides Go's runtime and process collectors) is served by @opgen/runtime's manager with the same
// type, help, label names and histogram buckets. Both texts are read by the Prometheus libraries
// (promcheck), and ours has nothing for promlint to report.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigMap, Namespace } from '../../runtime/src/api/builtins.js';
import { createClient, type Client } from '../../runtime/src/client/client.js';
import { eventually, startTestEnv, type TestEnv } from '../../runtime/src/envtest/index.js';
import { silentLogger } from '../../runtime/src/log/index.js';
import { createManager, type Manager } from '../../runtime/src/manager/manager.js';
import { Result, terminal } from '../../runtime/src/reconcile/index.js';
import { ciTool } from '../../src/testdata/ci-tools.js';
import { freePort } from '../../src/testdata/ports.js';

interface Sample { labels: Record<string, string>; value?: number | string; buckets?: Record<string, number> }
interface Family { type: string; help: string; samples: Sample[] }
interface Checked { families: Record<string, Family>; problems: string[] }

const promcheck = (text: string): Checked =>
  JSON.parse(execFileSync(ciTool('OPGEN_PROMCHECK', 'promcheck.sh'), { input: text, encoding: 'utf8' })) as Checked;

let env: TestEnv;
let client: Client;
let peer: ChildProcess | undefined;
let peerLog = '';
const certDir = mkdtempSync(join(tmpdir(), 'crpeer-'));

function get(url: string): Promise<string> {
  return fetch(url).then((r) => (r.ok ? r.text() : Promise.reject(new Error(`GET ${url}: ${r.status}`))));
}

/** POSTs an AdmissionReview to a webhook served with the self-signed certificate in certDir. */
function admissionReview(port: number, path: string): Promise<number> {
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
    request: { uid: 'u1', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' }, operation: 'CREATE', name: 'x', namespace: 'default', userInfo: {}, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } },
  });
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, method: 'POST', rejectUnauthorized: false, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const names = ['ok', 'fail', 'terminal', 'panic', 'requeue-after'];

beforeAll(async () => {
  env = await startTestEnv();
  client = createClient(env.kubeConfig);
  for (const ns of ['crpeer', 'opgen']) await client.create(Namespace, { metadata: { name: ns } });
}, 600_000);

afterAll(async () => {
  peer?.kill('SIGTERM');
  await env?.stop();
  rmSync(certDir, { recursive: true, force: true });
});

/**
 * The work both managers do, each in its namespace (also its leader election ID): once the manager serving
 * /metrics at url leads, the ConfigMaps in `names`, and a wait until their reconcile results show there.
 */
async function sameWork(url: string, ns: string): Promise<void> {
  await eventually(async () => expect(await get(url)).toContain(`leader_election_master_status{name="${ns}"} 1`), { timeoutMs: 60_000 });
  for (const name of names) await client.create(ConfigMap, { metadata: { name, namespace: ns } });
  await eventually(async () => {
    const text = await get(url);
    expect(text).toMatch(/controller_runtime_reconcile_panics_total\{controller="configmap"\} [1-9]/);
    expect(text).toMatch(/controller_runtime_terminal_reconcile_errors_total\{controller="configmap"\} 1/);
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="configmap",result="requeue_after"\} 1/);
  }, { timeoutMs: 60_000 });
}

/** The controller-runtime manager's /metrics after the same work: every reconcile result, a webhook call. */
async function peerMetrics(): Promise<string> {
  const [metricsPort, webhookPort] = [await freePort(), await freePort()];
  peer = spawn(ciTool('OPGEN_CR_PEER', 'controller-runtime-peer.sh'), [
    '--metrics-bind-address', `127.0.0.1:${metricsPort}`, '--webhook-port', String(webhookPort), '--namespace', 'crpeer', '--cert-dir', certDir,
  ], { env: { ...process.env, KUBECONFIG: env.kubeconfigPath }, stdio: ['ignore', 'pipe', 'pipe'] });
  peer.stdout!.on('data', (d: Buffer) => (peerLog += d.toString()));
  peer.stderr!.on('data', (d: Buffer) => (peerLog += d.toString()));
  const url = `http://127.0.0.1:${metricsPort}/metrics`;
  await sameWork(url, 'crpeer');
  expect(await admissionReview(webhookPort, '/validate-configmap')).toBe(200);
  return get(url);
}

/** @opgen/runtime's manager doing the same. */
async function ourMetrics(): Promise<{ text: string; mgr: Manager; stop: () => Promise<void> }> {
  const mgr = await createManager({
    kubeConfig: env.kubeConfig, logger: silentLogger(), tracer: null, namespaces: ['opgen'],
    metricsBindAddress: '127.0.0.1:0', leaderElection: true, leaderElectionID: 'opgen', leaderElectionNamespace: 'opgen',
    webhook: { host: '127.0.0.1', port: 0, certDir, localDevelopment: false },
  });
  mgr.controllerFor(ConfigMap).named('configmap').complete({
    async reconcile(req) {
      switch (req.name) {
        case 'fail': throw new Error('failing on purpose');
        case 'terminal': throw terminal(new Error('bad spec'));
        case 'panic': return (undefined as unknown as { x: { y: Result } }).x.y; // a TypeError: what Go calls a nil dereference
        case 'requeue-after': return Result.requeueAfter(3_600_000);
      }
      return Result.done();
    },
  });
  mgr.webhookServer.register('/validate-configmap', async () => ({ allowed: true }));
  const ctl = new AbortController();
  const done = mgr.start(ctl.signal);
  await eventually(() => expect(mgr.ports.metrics).toBeDefined());
  const url = `http://127.0.0.1:${mgr.ports.metrics}/metrics`;
  await sameWork(url, 'opgen');
  await eventually(() => expect(mgr.ports.webhook).toBeDefined());
  expect(await admissionReview(mgr.ports.webhook!, '/validate-configmap')).toBe(200);
  return { text: await get(url), mgr, stop: async () => { ctl.abort(); await done; } };
}

/** What must match: type, help, the label names its series carry, and the histogram's bucket bounds. */
function shape(f: Family): { type: string; help: string; labels: string[]; buckets?: string[] } {
  const labels = [...new Set(f.samples.flatMap((s) => Object.keys(s.labels)))].sort();
  const buckets = f.samples.find((s) => s.buckets)?.buckets;
  return { type: f.type, help: f.help, labels, ...(buckets ? { buckets: Object.keys(buckets).sort((a, b) => Number(a) - Number(b)) } : {}) };
}

it("serves every controller-runtime v0.24.1 family with the same type, help, labels and buckets, and the guide's two", async () => {
  let peerText: string;
  try {
    peerText = await peerMetrics();
  } catch (err) {
    throw new Error(`${(err as Error).message}\ncrpeer's output:\n${peerLog.slice(-4000)}`);
  }
  const theirs = promcheck(peerText).families;
  const ours = await ourMetrics();
  try {
    const checked = promcheck(ours.text);
    expect(checked.problems).toEqual([]);
    // Go's runtime and process collectors have Node counterparts of their own (process_* names match, go_* do not exist).
    const compared = Object.keys(theirs).filter((n) => !n.startsWith('go_') && !n.startsWith('process_') && !n.startsWith('promhttp_')).sort();
    // The families a v0.24.1 manager with a controller, leader election and a webhook serves.
    expect(compared).toEqual(expect.arrayContaining([
      'certwatcher_read_certificate_errors_total', 'certwatcher_read_certificate_total',
      'controller_runtime_active_workers', 'controller_runtime_conversion_webhook_panics_total', 'controller_runtime_max_concurrent_reconciles',
      'controller_runtime_reconcile_errors_total', 'controller_runtime_reconcile_panics_total', 'controller_runtime_reconcile_time_seconds',
      'controller_runtime_reconcile_timeouts_total', 'controller_runtime_reconcile_total', 'controller_runtime_terminal_reconcile_errors_total',
      'controller_runtime_webhook_latency_seconds', 'controller_runtime_webhook_panics_total', 'controller_runtime_webhook_requests_in_flight',
      'controller_runtime_webhook_requests_total', 'leader_election_master_status', 'rest_client_requests_total',
      'workqueue_adds_total', 'workqueue_depth', 'workqueue_longest_running_processor_seconds', 'workqueue_queue_duration_seconds',
      'workqueue_retries_total', 'workqueue_unfinished_work_seconds', 'workqueue_work_duration_seconds',
    ]));
    for (const name of compared) {
      expect(ours.text.includes(`# TYPE ${name} `), `${name} is missing`).toBe(true);
      expect({ name, ...shape(checked.families[name]!) }).toEqual({ name, ...shape(theirs[name]!) });
    }
    // Same values where the work was the same.
    const value = (fams: Record<string, Family>, name: string, labels: Record<string, string>) =>
      fams[name]!.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    for (const [name, labels] of [
      ['controller_runtime_terminal_reconcile_errors_total', { controller: 'configmap' }],
      ['controller_runtime_reconcile_total', { controller: 'configmap', result: 'requeue_after' }],
      ['controller_runtime_reconcile_total', { controller: 'configmap', result: 'success' }],
      ['controller_runtime_max_concurrent_reconciles', { controller: 'configmap' }],
      ['controller_runtime_active_workers', { controller: 'configmap' }],
      ['controller_runtime_webhook_requests_total', { webhook: '/validate-configmap', code: '200' }],
      ['controller_runtime_webhook_requests_in_flight', { webhook: '/validate-configmap' }],
    ] as const) {
      expect({ name, labels, value: value(checked.families, name, labels) }).toEqual({ name, labels, value: value(theirs, name, labels) });
    }
    // The guide's health series.
    expect(checked.families.operator_up!.samples).toEqual([{ labels: {}, value: 1 }]);
    const durations = checked.families.operator_reconcile_duration_seconds!;
    expect(durations.type).toBe('HISTOGRAM');
    expect(durations.samples.map((s) => s.labels).sort((a, b) => a.result!.localeCompare(b.result!))).toEqual([
      { kind: 'ConfigMap', result: 'error' }, { kind: 'ConfigMap', result: 'requeue_after' }, { kind: 'ConfigMap', result: 'success' },
    ]);
  } finally {
    await ours.stop();
  }
  expect((await ours.mgr.metrics.registry.getSingleMetricAsString('operator_up')).trim().split('\n').pop()).toBe('operator_up 0');
}, 600_000);
