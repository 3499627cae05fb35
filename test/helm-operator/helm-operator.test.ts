// The Helm operator on the simulated cluster (kube-apiserver + controller-manager + kube-scheduler +
// kwok) with the real helm binary: the webapp chart of testdata/ served as kind WebApp through
// @opgen/runtime/helm, its CRD typed from the chart's values.schema.json by src/helm-operator.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync, gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createManager, Deployment, groupVersion, isNotFound, Secret, Service, silentLogger, type Client, type Condition, type KubeObject, type Manager } from '../../runtime/src/index.js';
import { eventually, startTestEnv, type TestEnv } from '../../runtime/src/envtest/index.js';
import { setupHelmController, helmUninstallFinalizer, type HelmReleaseObject } from '../../runtime/src/helm/index.js';
import { chartCrd, renderedKinds, watchesEntry } from '../../src/helm-operator/chart-api.js';
import { ciTool } from '../../src/testdata/ci-tools.js';

const chart = fileURLToPath(new URL('./testdata/webapp', import.meta.url));
const gvk = { group: 'apps.example.com', version: 'v1alpha1', kind: 'WebApp' };
const WebApp = groupVersion(gvk.group, gvk.version).kind<HelmReleaseObject>('WebApp', { plural: 'webapps' });
const ns = 'default';

describe('Helm operator on the simulated cluster, real helm', () => {
  let env: TestEnv;
  let client: Client;
  let mgr: Manager;
  let stop: () => Promise<void>;
  let scratch: string;
  let helm: string;
  let runLog: string;
  const kubeconfig = () => env.kubeconfigPath;
  const helmCli = (...args: string[]) => execFileSync(helm, [...args, '--kubeconfig', kubeconfig(), '--namespace', ns], { encoding: 'utf8', env: { ...process.env, HELM_CACHE_HOME: join(scratch, 'c'), HELM_CONFIG_HOME: join(scratch, 'f'), HELM_DATA_HOME: join(scratch, 'd') } });
  const helmRuns = (verb: string, release: string) => readFileSync(runLog, 'utf8').split('\n').filter((l) => l.startsWith(`${verb} `) && l.includes(` ${release} `)).length;
  const condition = (cr: HelmReleaseObject, type: string): Condition | undefined => cr.status?.conditions?.find((c) => c.type === type);

  beforeAll(async () => {
    helm = ciTool('OPGEN_HELM', 'helm.sh');
    scratch = mkdtempSync(join(tmpdir(), 'opgen-helm-operator-'));
    runLog = join(scratch, 'runs.log');
    writeFileSync(runLog, '');
    // The operator's helm: the real binary behind a wrapper that records each run (verb, release, ...).
    const wrapper = join(scratch, 'helm');
    writeFileSync(wrapper, `#!/bin/sh\nprintf '%s \\n' "$*" >> '${runLog}'\nexec '${helm}' "$@"\n`);
    chmodSync(wrapper, 0o755);

    const { crd, diagnostics } = chartCrd(gvk, chart);
    expect(diagnostics).toEqual([]);
    writeFileSync(join(scratch, 'crd.json'), JSON.stringify(crd));
    env = await startTestEnv({ simulatedCluster: true, crdPaths: [join(scratch, 'crd.json')] });
    client = createClient(env.kubeConfig);

    const entry = watchesEntry(gvk, chart, renderedKinds(chart, helm)) as { dependentKinds: Array<{ apiVersion: string; kind: string; plural: string; namespaced: boolean }> };
    const dependentKinds = entry.dependentKinds.map((k) => {
      const [group, version] = k.apiVersion.includes('/') ? k.apiVersion.split('/') as [string, string] : ['', k.apiVersion];
      return groupVersion(group, version).kind<KubeObject>(k.kind, { plural: k.plural, namespaced: k.namespaced });
    });
    mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), tracer: null });
    setupHelmController(mgr, { kind: WebApp, chart, dependentKinds, helmBinary: wrapper, baseBackoffMs: 4_000 });
    const ctl = new AbortController();
    const done = mgr.start(ctl.signal);
    stop = async () => { ctl.abort(); await done; };
  }, 240_000);

  afterAll(async () => {
    await stop?.();
    await env?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 120_000);

  it('create a CR: the release is deployed (Helm\'s own Secret, helm list) and its Deployment becomes available', async () => {
    await client.create(WebApp, { metadata: { name: 'shop', namespace: ns }, spec: { replicaCount: 2, service: { port: 8080 }, config: { greeting: 'hi' } } });
    const cr = await eventually(async () => {
      const cr = await client.get(WebApp, { namespace: ns, name: 'shop' });
      expect(condition(cr, 'Deployed')?.status).toBe('True');
      return cr;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    expect(condition(cr, 'Initialized')?.status).toBe('True');
    expect(condition(cr, 'Deployed')?.reason).toBe('InstallSuccessful');
    expect(cr.metadata?.finalizers).toContain(helmUninstallFinalizer);
    expect(cr.status?.deployedRelease).toMatchObject({ name: 'shop', revision: 1 });
    expect(cr.status?.deployedRelease?.manifestDigest).toMatch(/^[0-9a-f]{64}$/);
    await client.get(Secret, { namespace: ns, name: 'sh.helm.release.v1.shop.v1' });
    expect(JSON.parse(helmCli('list', '-o', 'json'))).toMatchObject([{ name: 'shop', revision: '1', status: 'deployed', chart: 'webapp-1.2.0' }]);

    const svc = await client.get(Service, { namespace: ns, name: 'shop-webapp' }) as KubeObject & { spec?: { ports?: Array<{ port: number }> } };
    expect(svc.spec?.ports?.[0]?.port).toBe(8080);
    await eventually(async () => {
      const d = await client.get(Deployment, { namespace: ns, name: 'shop-webapp' }) as Deployment & { status?: { availableReplicas?: number } };
      expect(d.status?.availableReplicas).toBe(2);
    }, { timeoutMs: 60_000, intervalMs: 250 });
  }, 120_000);

  it('the CRD typed from values.schema.json refuses a bad value when the CR is written', async () => {
    const err = await client.create(WebApp, { metadata: { name: 'typo', namespace: ns }, spec: { service: { port: 80, type: 'Bogus' } } }).then(() => undefined, (e: unknown) => e as Error);
    expect(err?.message).toMatch(/spec\.service\.type: Unsupported value: "Bogus": supported values: "ClusterIP", "NodePort", "LoadBalancer"/);
  });

  it('an edit of the CR that leaves the values alone runs no upgrade', async () => {
    const before = helmRuns('upgrade', 'shop');
    await client.patch(WebApp, { namespace: ns, name: 'shop' }, { type: 'merge', body: { metadata: { labels: { touched: 'yes' } } } });
    await new Promise((r) => setTimeout(r, 2_000));
    expect(helmRuns('upgrade', 'shop')).toBe(before);
  }, 30_000);

  it('change the values: upgraded, revision 2 in helm history', async () => {
    await client.patch(WebApp, { namespace: ns, name: 'shop' }, { type: 'merge', body: { spec: { replicaCount: 3 } } });
    const cr = await eventually(async () => {
      const cr = await client.get(WebApp, { namespace: ns, name: 'shop' });
      expect(cr.status?.deployedRelease?.revision).toBe(2);
      return cr;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    expect(condition(cr, 'Deployed')?.reason).toBe('UpgradeSuccessful');
    const history = JSON.parse(helmCli('history', 'shop', '-o', 'json')) as Array<{ revision: number; status: string }>;
    expect(history.map((h) => [h.revision, h.status])).toEqual([[1, 'superseded'], [2, 'deployed']]);
    await eventually(async () => {
      const d = await client.get(Deployment, { namespace: ns, name: 'shop-webapp' }) as Deployment & { spec?: { replicas?: number }; status?: { availableReplicas?: number } };
      expect(d.spec?.replicas).toBe(3);
      expect(d.status?.availableReplicas).toBe(3);
    }, { timeoutMs: 60_000, intervalMs: 250 });
  }, 120_000);

  it('delete a managed Service by hand: restored', async () => {
    const old = await client.get(Service, { namespace: ns, name: 'shop-webapp' });
    await client.delete(Service, { namespace: ns, name: 'shop-webapp' });
    const restored = await eventually(async () => {
      const svc = await client.get(Service, { namespace: ns, name: 'shop-webapp' });
      expect(svc.metadata?.uid).not.toBe(old.metadata?.uid);
      return svc;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    expect(restored.metadata?.annotations?.['meta.helm.sh/release-name']).toBe('shop');
    // The repair is a helm upgrade: operator-sdk's UpgradeSuccessful, one revision more.
    const cr = await eventually(async () => {
      const cr = await client.get(WebApp, { namespace: ns, name: 'shop' });
      expect(cr.status?.deployedRelease?.revision).toBe(3);
      return cr;
    }, { timeoutMs: 30_000, intervalMs: 250 });
    expect(condition(cr, 'Deployed')?.reason).toBe('UpgradeSuccessful');
    expect(condition(cr, 'Irreconcilable')).toBeUndefined();
  }, 120_000);

  it('edit a managed Deployment by hand: put back', async () => {
    await client.patch(Deployment, { namespace: ns, name: 'shop-webapp' }, { type: 'merge', body: { spec: { replicas: 1 } } });
    await eventually(async () => {
      const d = await client.get(Deployment, { namespace: ns, name: 'shop-webapp' }) as Deployment & { spec?: { replicas?: number } };
      expect(d.spec?.replicas).toBe(3);
    }, { timeoutMs: 60_000, intervalMs: 250 });
  }, 90_000);

  it('a bad values change on a deployed release: UpgradeError, the release keeps its revision; reverting clears it without an upgrade', async () => {
    await client.patch(WebApp, { namespace: ns, name: 'shop' }, { type: 'merge', body: { spec: { ingress: { enabled: true } } } });
    const failed = await eventually(async () => {
      const cr = await client.get(WebApp, { namespace: ns, name: 'shop' });
      expect(condition(cr, 'ReleaseFailed')?.status).toBe('True');
      return cr;
    }, { timeoutMs: 30_000, intervalMs: 250 });
    expect(condition(failed, 'ReleaseFailed')?.reason).toBe('UpgradeError');
    const revision = failed.status?.deployedRelease?.revision;
    expect(JSON.parse(helmCli('list', '-o', 'json'))).toMatchObject([{ name: 'shop', revision: String(revision), status: 'deployed' }]);
    const upgrades = helmRuns('upgrade', 'shop');
    await client.patch(WebApp, { namespace: ns, name: 'shop' }, { type: 'merge', body: { spec: { ingress: null } } });
    const cleared = await eventually(async () => {
      const cr = await client.get(WebApp, { namespace: ns, name: 'shop' });
      expect(condition(cr, 'ReleaseFailed')).toBeUndefined();
      return cr;
    }, { timeoutMs: 30_000, intervalMs: 250 });
    expect(cleared.status?.deployedRelease?.revision).toBe(revision);
    expect(helmRuns('upgrade', 'shop')).toBe(upgrades);
  }, 60_000);

  it('bad values: ReleaseFailed with Helm\'s message, and a bounded number of helm runs', async () => {
    // Valid for the CRD (the schema allows it), refused by the chart's own `fail`.
    await client.create(WebApp, { metadata: { name: 'broken', namespace: ns }, spec: { service: { port: 80 }, ingress: { enabled: true } } });
    const cr = await eventually(async () => {
      const cr = await client.get(WebApp, { namespace: ns, name: 'broken' });
      expect(condition(cr, 'ReleaseFailed')?.status).toBe('True');
      return cr;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    expect(condition(cr, 'ReleaseFailed')?.reason).toBe('InstallError');
    expect(condition(cr, 'ReleaseFailed')?.message).toContain('ingress.host is required when ingress.enabled is true');
    expect(condition(cr, 'Deployed')).toBeUndefined();
    // Backoff 4 s, 8 s, 16 s: in 10 s at most 3 runs, not a storm.
    await new Promise((r) => setTimeout(r, 10_000));
    const runs = helmRuns('upgrade', 'broken');
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(runs).toBeLessThanOrEqual(3);
    // Fixing the values installs at once.
    await client.patch(WebApp, { namespace: ns, name: 'broken' }, { type: 'merge', body: { spec: { ingress: { enabled: true, host: 'shop.example.com' } } } });
    const fixed = await eventually(async () => {
      const c = await client.get(WebApp, { namespace: ns, name: 'broken' });
      expect(condition(c, 'Deployed')?.status).toBe('True');
      return c;
    }, { timeoutMs: 30_000, intervalMs: 250 });
    expect(condition(fixed, 'Deployed')?.reason).toBe('InstallSuccessful');
    expect(condition(fixed, 'ReleaseFailed')).toBeUndefined();
  }, 90_000);

  it('a release left pending by an interrupted helm: Irreconcilable with the way out; after `helm rollback` the change goes through', async () => {
    await client.create(WebApp, { metadata: { name: 'stuck', namespace: ns }, spec: { service: { port: 80 } } });
    await eventually(async () => expect((await client.get(WebApp, { namespace: ns, name: 'stuck' })).status?.deployedRelease?.revision).toBe(1), { timeoutMs: 60_000, intervalMs: 250 });
    await client.patch(WebApp, { namespace: ns, name: 'stuck' }, { type: 'merge', body: { spec: { replicaCount: 2 } } });
    await eventually(async () => expect((await client.get(WebApp, { namespace: ns, name: 'stuck' })).status?.deployedRelease?.revision).toBe(2), { timeoutMs: 60_000, intervalMs: 250 });
    // As a helm killed mid-upgrade leaves it: revision 2 pending-upgrade (Helm's record: base64 of gzip of JSON).
    const key = { namespace: ns, name: 'sh.helm.release.v1.stuck.v2' };
    const secret = await client.get(Secret, key);
    const record = JSON.parse(gunzipSync(Buffer.from(Buffer.from(secret.data!.release!, 'base64').toString(), 'base64')).toString());
    record.info.status = 'pending-upgrade';
    secret.data!.release = Buffer.from(gzipSync(JSON.stringify(record)).toString('base64')).toString('base64');
    secret.metadata!.labels!.status = 'pending-upgrade';
    await client.update(Secret, secret);

    await client.patch(WebApp, { namespace: ns, name: 'stuck' }, { type: 'merge', body: { spec: { replicaCount: 3 } } });
    const cr = await eventually(async () => {
      const c = await client.get(WebApp, { namespace: ns, name: 'stuck' });
      expect(condition(c, 'Irreconcilable')?.status).toBe('True');
      return c;
    }, { timeoutMs: 30_000, intervalMs: 250 });
    expect(condition(cr, 'Irreconcilable')?.reason).toBe('ReleasePending');
    expect(condition(cr, 'Irreconcilable')?.message).toContain('another operation (install/upgrade/rollback) is in progress; if no helm runs for it, run `helm rollback stuck -n default`');
    helmCli('rollback', 'stuck');
    const done = await eventually(async () => {
      const c = await client.get(WebApp, { namespace: ns, name: 'stuck' });
      expect(condition(c, 'Irreconcilable')).toBeUndefined();
      return c;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    expect(done.status?.deployedRelease?.revision).toBe(4);
    expect(JSON.parse(helmCli('history', 'stuck', '-o', 'json')).map((h: { status: string }) => h.status)).toEqual(['superseded', 'pending-upgrade', 'superseded', 'deployed']); // Helm keeps the pending record as it was
  }, 120_000);

  it('delete the CR: release uninstalled, its objects and Secrets gone, finalizer removed', async () => {
    for (const name of ['shop', 'broken', 'stuck']) await client.delete(WebApp, { namespace: ns, name });
    await eventually(async () => {
      for (const name of ['shop', 'broken', 'stuck']) {
        const err = await client.get(WebApp, { namespace: ns, name }).then(() => undefined, (e: unknown) => e);
        expect(isNotFound(err), `${name} still exists`).toBe(true);
      }
    }, { timeoutMs: 60_000, intervalMs: 250 });
    expect(JSON.parse(helmCli('list', '-o', 'json'))).toEqual([]);
    expect((await client.list(Secret, { namespace: ns, labelSelector: { owner: 'helm' } })).items).toEqual([]);
    const err = await client.get(Service, { namespace: ns, name: 'shop-webapp' }).then(() => undefined, (e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    expect(helmRuns('uninstall', 'shop')).toBe(1);
  }, 90_000);
});
