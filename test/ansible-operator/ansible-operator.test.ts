// The Ansible operator on the simulated cluster (kube-apiserver + controller-manager + kube-scheduler +
// kwok) with the real ansible-runner: a memcached role written as operator-sdk's tutorial writes it
// (testdata/memcached-operator: the same variables, kubernetes.core.k8s, a watches.yaml with a finalizer)
// served as kind Memcached through @opgen/runtime/ansible. Runs take seconds each, so the scenarios
// share one cluster and one manager, in order.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMap, createClient, createManager, Deployment, groupVersion, Lease, LeaderElectionLostError, Namespace, Pod, Service, silentLogger, type Client, type KubeObject, type Manager } from '../../runtime/src/index.js';
import { eventually, startTestEnv, type TestEnv } from '../../runtime/src/envtest/index.js';
import { loadWatches, setupAnsibleController, type AnsibleCondition, type AnsibleObject } from '../../runtime/src/ansible/index.js';
import { ansibleCrd } from '../../src/ansible-operator/crd.js';

const project = fileURLToPath(new URL('./testdata/memcached-operator', import.meta.url));
const Memcached = groupVersion('cache.example.com', 'v1alpha1').kind<AnsibleObject>('Memcached', { plural: 'memcacheds' });
const Probe = groupVersion('cache.example.com', 'v1alpha1').kind<AnsibleObject>('Probe', { plural: 'probes' });
const ns = 'default';
const condition = (cr: AnsibleObject, type: string): AnsibleCondition | undefined => cr.status?.conditions?.find((c) => c.type === type);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Dep = KubeObject & { spec?: { replicas?: number }; status?: { availableReplicas?: number } };

describe('Ansible operator on the simulated cluster, real ansible-runner', () => {
  let env: TestEnv;
  let client: Client;
  let mgr: Manager;
  let stop: () => Promise<void>;
  let scratch: string;
  const runStarts: Array<{ name: string; at: number }> = [];

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'opgen-ansible-operator-'));
    for (const [kind, plural] of [['Memcached', 'memcacheds'], ['Probe', 'probes']] as const) {
      writeFileSync(join(scratch, `${plural}.json`), JSON.stringify(ansibleCrd({ group: 'cache.example.com', version: 'v1alpha1', kind, plural })));
    }
    env = await startTestEnv({ simulatedCluster: true, crdPaths: [join(scratch, 'memcacheds.json'), join(scratch, 'probes.json')] });
    client = createClient(env.kubeConfig);
    const [watch, probe] = loadWatches(join(project, 'watches.yaml'));
    mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), tracer: null, namespaces: [ns] });
    setupAnsibleController(mgr, {
      watch: watch!, kind: Memcached, dependentKinds: [Deployment, Service], maxConcurrentReconciles: 2,
      runnerDir: join(scratch, 'runner'), verbosity: 0,
      onRunStart: (_pid, req) => runStarts.push({ name: req.name, at: performance.now() }),
    });
    setupAnsibleController(mgr, { watch: probe!, kind: Probe, runnerDir: join(scratch, 'runner'), verbosity: 0 });
    const ctl = new AbortController();
    const done = mgr.start(ctl.signal);
    stop = async () => { ctl.abort(); await done; };
  }, 240_000);

  afterAll(async () => {
    await stop?.();
    await env?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 120_000);

  it('create: the role makes the Deployment (the spec\'s size) and Service, owned by the Memcached; pods run on kwok; status Successful', async () => {
    const created = await client.create(Memcached, { metadata: { name: 'cache', namespace: ns }, spec: { size: 2, servicePort: 11311 } });
    const cr = await eventually(async () => {
      const cr = await client.get(Memcached, { namespace: ns, name: 'cache' });
      expect(condition(cr, 'Successful')?.status).toBe('True');
      return cr;
    }, { timeoutMs: 90_000, intervalMs: 500 });
    expect(condition(cr, 'Running')).toMatchObject({ status: 'True', reason: 'Successful', message: 'Awaiting next reconciliation' });
    expect(condition(cr, 'Running')?.ansibleResult).toMatchObject({ failures: 0, changed: 2 });
    expect(condition(cr, 'Failure')?.status).toBe('False');
    expect(cr.metadata?.finalizers).toContain('cache.example.com/finalizer');

    const d = await client.get(Deployment, { namespace: ns, name: 'cache-memcached' }) as Dep;
    expect(d.spec?.replicas).toBe(2);
    // operator-sdk's variables: the whole object and the raw (camelCase) spec.
    expect(d.metadata?.annotations).toMatchObject({ 'example.com/cr-uid': created.metadata!.uid, 'example.com/raw-port': '11311' });
    expect(d.metadata?.ownerReferences).toEqual([{ apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached', name: 'cache', uid: created.metadata!.uid }]);
    const svc = await client.get(Service, { namespace: ns, name: 'cache-memcached' }) as KubeObject & { spec?: { ports?: Array<{ port: number }> } };
    expect(svc.spec?.ports?.[0]?.port).toBe(11311);
    expect(svc.metadata?.ownerReferences?.[0]?.uid).toBe(created.metadata!.uid);
    await eventually(async () => {
      const pods = (await client.list(Pod, { namespace: ns, labelSelector: 'memcached=cache' })).items as Array<KubeObject & { status?: { phase?: string } }>;
      expect(pods.filter((p) => p.status?.phase === 'Running')).toHaveLength(2);
    }, { timeoutMs: 60_000, intervalMs: 500 });
  }, 180_000);

  it('spec edit: the Deployment follows', async () => {
    await client.patch(Memcached, { namespace: ns, name: 'cache' }, { type: 'merge', body: { spec: { size: 3 } } });
    await eventually(async () => {
      const d = await client.get(Deployment, { namespace: ns, name: 'cache-memcached' }) as Dep;
      expect(d.spec?.replicas).toBe(3);
    }, { timeoutMs: 90_000, intervalMs: 500 });
  }, 120_000);

  it('hand edit of the Deployment: the dependent watch runs the role, which puts it back', async () => {
    await eventually(async () => {
      const cr = await client.get(Memcached, { namespace: ns, name: 'cache' });
      expect(condition(cr, 'Running')?.reason).toBe('Successful');
    }, { timeoutMs: 60_000, intervalMs: 500 });
    await client.patch(Deployment, { namespace: ns, name: 'cache-memcached' }, { type: 'merge', body: { spec: { replicas: 1 } } });
    await eventually(async () => {
      const d = await client.get(Deployment, { namespace: ns, name: 'cache-memcached' }) as Dep;
      expect(d.spec?.replicas).toBe(3);
    }, { timeoutMs: 90_000, intervalMs: 500 });
  }, 120_000);

  it('a failing task: Failure with the task\'s message, retried; the manager keeps serving and a fix clears it', async () => {
    await client.patch(Memcached, { namespace: ns, name: 'cache' }, { type: 'merge', body: { spec: { size: 9 } } });
    const failed = await eventually(async () => {
      const cr = await client.get(Memcached, { namespace: ns, name: 'cache' });
      expect(condition(cr, 'Failure')?.status).toBe('True');
      return cr;
    }, { timeoutMs: 90_000, intervalMs: 500 });
    expect(condition(failed, 'Failure')).toMatchObject({ reason: 'Failed', message: 'size 9 is above the limit of 5' });
    expect(condition(failed, 'Failure')?.ansibleResult?.failures).toBe(1);
    // Running is False after the failed run, and True again while the retry runs: either may be read here.
    expect(condition(failed, 'Successful')?.status).toBe('False');
    const failures = await mgr.metrics.registry.getSingleMetricAsString('ansible_operator_task_failures_total');
    expect(failures).toMatch(/ansible_operator_task_failures_total\{controller="memcached-ansible",task="refuse a size above five"\} [1-9]/);

    await client.patch(Memcached, { namespace: ns, name: 'cache' }, { type: 'merge', body: { spec: { size: 3 } } });
    await eventually(async () => {
      const cr = await client.get(Memcached, { namespace: ns, name: 'cache' });
      expect(condition(cr, 'Failure')?.status).toBe('False');
      expect(condition(cr, 'Successful')?.status).toBe('True');
    }, { timeoutMs: 90_000, intervalMs: 500 });
  }, 200_000);

  it('two Memcacheds are reconciled at once with maxConcurrentReconciles 2', async () => {
    runStarts.length = 0;
    // Each first run holds for 6 s: one worker would start the second run only after the first ended.
    await Promise.all(['left', 'right'].map((name) => client.create(Memcached, { metadata: { name, namespace: ns }, spec: { size: 1, holdSeconds: 6 } })));
    await eventually(async () => {
      for (const name of ['left', 'right']) expect(condition(await client.get(Memcached, { namespace: ns, name }), 'Successful')?.status).toBe('True');
    }, { timeoutMs: 120_000, intervalMs: 500 });
    const first = (name: string) => runStarts.find((r) => r.name === name)!.at;
    expect(Math.abs(first('left') - first('right'))).toBeLessThan(5_000);
  }, 150_000);

  it('delete: the finalizer role runs (its record in another namespace carries the primary-resource annotations), the finalizer goes, the dependents are garbage-collected', async () => {
    const cr = await client.get(Memcached, { namespace: ns, name: 'cache' });
    await client.delete(Memcached, { namespace: ns, name: 'cache' });
    await eventually(async () => {
      await expect(client.get(Memcached, { namespace: ns, name: 'cache' })).rejects.toThrow(/not found/);
    }, { timeoutMs: 90_000, intervalMs: 500 });
    const record = await client.get(ConfigMap, { namespace: 'kube-public', name: 'farewell-default-cache' });
    expect(record.data).toEqual({ size: '3' });
    expect(record.metadata?.annotations).toMatchObject({ 'operator-sdk/primary-resource': 'default/cache', 'operator-sdk/primary-resource-type': 'Memcached.cache.example.com' });
    expect(record.metadata?.ownerReferences).toBeUndefined();
    await eventually(async () => {
      await expect(client.get(Deployment, { namespace: ns, name: 'cache-memcached' })).rejects.toThrow(/not found/);
      await expect(client.get(Service, { namespace: ns, name: 'cache-memcached' })).rejects.toThrow(/not found/);
    }, { timeoutMs: 60_000, intervalMs: 500 });
    expect(cr.metadata?.uid).toBeDefined();
  }, 150_000);

  it('manageStatus: false: the playbook owns the status (operator_sdk.util.k8s_status), the runtime writes no condition', async () => {
    await client.create(Probe, { metadata: { name: 'db', namespace: ns }, spec: { target: 'db.example.com' } });
    const probe = await eventually(async () => {
      const cr = await client.get(Probe, { namespace: ns, name: 'db' });
      expect(cr.status?.target).toBe('db.example.com');
      return cr;
    }, { timeoutMs: 90_000, intervalMs: 500 });
    expect(probe.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([['Checked', 'True', 'Probed', 'probed db.example.com']]);
  }, 120_000);

  it('lost leadership kills the running ansible-runner (and the ansible-playbook under it)', async () => {
    const leaseNs = 'lease';
    await client.create(Namespace, { metadata: { name: leaseNs } });
    const runnerDir = join(scratch, 'leader-runner');
    let pid: number | undefined;
    const leader = await createManager({
      kubeConfig: env.kubeConfig, logger: silentLogger(), tracer: null, namespaces: [leaseNs],
      leaderElection: true, leaderElectionID: 'memcached-operator', leaderElectionNamespace: leaseNs,
      leaseDurationMs: 5000, renewDeadlineMs: 3000, retryPeriodMs: 500, gracefulShutdownTimeoutMs: 30_000,
    });
    const [watch] = loadWatches(join(project, 'watches.yaml'));
    setupAnsibleController(leader, { watch: watch!, kind: Memcached, runnerDir, verbosity: 0, onRunStart: (p) => { pid = p; } });
    let settled: unknown = 'running';
    const run = leader.start(new AbortController().signal).then(() => { settled = undefined; }, (err: unknown) => { settled = err; });
    await client.create(Memcached, { metadata: { name: 'slow', namespace: leaseNs }, spec: { holdSeconds: 120 } });
    await eventually(() => expect(pid).toBeDefined(), { timeoutMs: 60_000, intervalMs: 200 });
    // ansible-playbook is at its pause once the role's tasks have started.
    await eventually(() => expect(processesUnder(runnerDir).some((c) => c.includes('ansible-playbook'))).toBe(true), { timeoutMs: 60_000, intervalMs: 250 });

    const now = new Date().toISOString().replace('Z', '000Z');
    await client.patch(Lease, { namespace: leaseNs, name: 'memcached-operator' }, { type: 'merge', body: { spec: { holderIdentity: 'someone-else', leaseDurationSeconds: 60, renewTime: now, acquireTime: now } } });
    await eventually(() => expect(settled).not.toBe('running'), { timeoutMs: 20_000, intervalMs: 200 });
    expect(settled).toBeInstanceOf(LeaderElectionLostError);
    await eventually(() => {
      expect(alive(pid!)).toBe(false);
      expect(processesUnder(runnerDir)).toEqual([]);
    }, { timeoutMs: 10_000, intervalMs: 200 });
    await run;
    await sleep(0);
  }, 150_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Command lines of live processes that name the folder (ansible-runner and the ansible-playbook it started). */
function processesUnder(dir: string): string[] {
  const out = execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(dir) && !l.trim().startsWith('Z')).map((l) => l.trim());
}
