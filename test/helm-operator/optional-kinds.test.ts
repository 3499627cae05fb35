// A Helm-based operator as a user gets it from docs/helm-operator.md, on a chart written here the way
// published charts are (testdata/storefront: `kubeVersion: >=1.23.0-0`, kinds of CRDs the cluster does
// not serve behind values that are off, a templates/tests/ hook, eleven dependent kinds): `opgen init`,
// `create api --helm-chart`, `opgen generate`, then the manager runs as the generated ServiceAccount
// with the generated RBAC (not cluster-admin) against envtest's API server and the real helm.
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { createClient, createLogger, createManager, groupVersion, isNotFound, type Client, type Condition, type KubeObject, type Manager } from '../../runtime/src/index.js';
import { eventually, startTestEnv, type TestEnv } from '../../runtime/src/envtest/index.js';
import { setupHelmController, type HelmReleaseObject } from '../../runtime/src/helm/index.js';
import { ciTool } from '../../src/testdata/ci-tools.js';
import { opgen, opgenOk } from '../../src/testdata/cli.js';
import { tempDir } from '../../src/testdata/files.js';
import { serviceAccountKubeConfig } from '../../src/testdata/service-account.js';

const chart = fileURLToPath(new URL('./testdata/storefront', import.meta.url));
type Obj = KubeObject & Record<string, any>;
const Shop = groupVersion('apps.example.com', 'v1alpha1').kind<HelmReleaseObject>('Shop', { plural: 'shops' });
const Widget = groupVersion('shop.example.com', 'v1').kind<Obj>('Widget', { plural: 'widgets' });
const ConfigMap = groupVersion('', 'v1').kind<Obj>('ConfigMap');
const EventsV1 = groupVersion('events.k8s.io', 'v1').kind<Obj>('Event');
const admin = {
  Namespace: groupVersion('', 'v1').kind<Obj>('Namespace', { namespaced: false }),
  ServiceAccount: groupVersion('', 'v1').kind<Obj>('ServiceAccount'),
  ClusterRole: groupVersion('rbac.authorization.k8s.io', 'v1').kind<Obj>('ClusterRole', { namespaced: false }),
  ClusterRoleBinding: groupVersion('rbac.authorization.k8s.io', 'v1').kind<Obj>('ClusterRoleBinding', { namespaced: false }),
  CustomResourceDefinition: groupVersion('apiextensions.k8s.io', 'v1').kind<Obj>('CustomResourceDefinition', { namespaced: false }),
};
const widgetCrd: Obj = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.shop.example.com' },
  spec: {
    group: 'shop.example.com', scope: 'Namespaced', names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
const ns = 'default';

describe('Helm operator on a chart with optional CRD kinds, as its generated ServiceAccount', () => {
  const project = tempDir('opgen-helm-optional-', 'storefront-operator');
  let env: TestEnv;
  let client: Client;
  let mgr: Manager;
  let stop: () => Promise<void>;
  let exited: unknown;
  let helm: string;
  let runLog: string;
  let helmGone: string;
  let createOut: string;
  const logs: string[] = [];
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  const read = (p: string) => readFileSync(join(project.dir, p), 'utf8');
  const helmCli = (...args: string[]) => execFileSync(helm, [...args, '--kubeconfig', env.kubeconfigPath, '--namespace', ns], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HELM_CACHE_HOME: join(project.dir, '..', 'c'), HELM_CONFIG_HOME: join(project.dir, '..', 'f'), HELM_DATA_HOME: join(project.dir, '..', 'd') } });
  const condition = (cr: HelmReleaseObject, type: string): Condition | undefined => cr.status?.conditions?.find((c) => c.type === type);
  const logged = (re: RegExp) => logs.filter((l) => re.test(l));
  const helmRuns = (release: string) => readFileSync(runLog, 'utf8').split('\n').filter((l) => l.includes(` ${release} `)).length;

  beforeAll(async () => {
    helm = ciTool('OPGEN_HELM', 'helm.sh');
    process.env.HELM_BINARY = helm;
    await opgenOk(project.dir, 'init', '--domain', 'example.com', '--skip-install');
    const created = await opgen(project.dir, 'create', 'api', '--group', 'apps', '--version', 'v1alpha1', '--kind', 'Shop', '--helm-chart', chart);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    createOut = created.stdout;
    await opgenOk(project.dir, 'generate');

    runLog = join(project.dir, '..', 'runs.log');
    writeFileSync(runLog, '');
    const wrapper = join(project.dir, '..', 'helm');
    helmGone = join(project.dir, '..', 'helm-gone');
    // Runs the real helm, unless the test removed it (the flag file): then as a missing binary does.
    writeFileSync(wrapper, `#!/bin/sh\nprintf '%s \\n' "$*" >> '${runLog}'\n[ -f '${helmGone}' ] && exec /nonexistent/helm "$@"\nexec '${helm}' "$@"\n`);
    chmodSync(wrapper, 0o755);

    env = await startTestEnv({ crdPaths: [join(project.dir, 'config/crd/bases')] });
    client = createClient(env.kubeConfig);
    // The generated account and its RBAC, as config/default renders them (names prefixed by kustomize).
    const objects = parseAllDocuments(execFileSync('kubectl', ['kustomize', 'config/default'], { cwd: project.dir, encoding: 'utf8' })).map((d) => d.toJS() as Obj);
    const wanted = (o: Obj) => o.kind === 'Namespace' || o.kind === 'ServiceAccount' || (/^ClusterRole(Binding)?$/.test(o.kind!) && /manager-role/.test(o.metadata!.name!));
    for (const o of objects.filter(wanted)) await client.create(admin[o.kind as keyof typeof admin], o);
    const sa = objects.find((o) => o.kind === 'ServiceAccount')!;
    const kubeConfig = await serviceAccountKubeConfig(env, sa.metadata!.namespace!, sa.metadata!.name!, project.dir);

    // The dependent kinds of the generated controller module, as helm-charts/watches.yaml records them.
    const [entry] = parse(read('helm-charts/watches.yaml')) as Array<{ dependentKinds: Array<{ apiVersion: string; kind: string; plural: string; namespaced: boolean }> }>;
    const dependentKinds = entry!.dependentKinds.map((k) => {
      const [group, version] = k.apiVersion.includes('/') ? k.apiVersion.split('/') as [string, string] : ['', k.apiVersion];
      return groupVersion(group, version).kind<KubeObject>(k.kind, { plural: k.plural, namespaced: k.namespaced });
    });
    process.on('warning', onWarning);
    mgr = await createManager({ kubeConfig, logger: createLogger({ level: 'info', write: (l) => logs.push(l) }), tracer: null, controller: { cacheSyncTimeoutMs: 20_000 } });
    setupHelmController(mgr, { kind: Shop, chart: join(project.dir, 'helm-charts/storefront'), dependentKinds, helmBinary: wrapper, baseBackoffMs: 3_000, maxBackoffMs: 12_000 });
    const ctl = new AbortController();
    const done = mgr.start(ctl.signal).then(() => { exited = 'resolved'; }, (err: unknown) => { exited = err; });
    stop = async () => { ctl.abort(); await done; };
  }, 300_000);

  afterAll(async () => {
    process.off('warning', onWarning);
    await stop?.();
    await env?.stop();
    project.cleanup();
  }, 120_000);

  it('create api renders for the project\'s Kubernetes, says which, and leaves the test hook out of the RBAC', () => {
    expect(createOut).toContain('Rendered storefront for Kubernetes 1.28.0 (the project\'s default minimum; override with --kube-version or PROJECT minKubeVersion)');
    const module = read('src/controller/shop-helm.ts');
    expect(module).toContain('// Certificate (cert-manager.io/v1) from templates/certificate.yaml (when enabled)');
    expect(module).not.toMatch(/resources=pods/);
    const role = parse(read('config/rbac/role.yaml')) as { rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> };
    expect(role.rules.flatMap((r) => r.resources)).not.toContain('pods');
    const events = role.rules.filter((r) => r.resources.includes('events'));
    expect(events.flatMap((r) => r.apiGroups).sort()).toEqual(['', 'events.k8s.io']);
    for (const r of events) expect(r.verbs).toEqual(['create', 'patch']);
  });

  it('the sample gets status although cert-manager, Gateway API, prometheus-operator and Widget CRDs are absent; each skipped kind is named once', async () => {
    const sample = parse(read('config/samples/apps_v1alpha1_shop.yaml')) as Obj;
    await client.create(Shop, { ...sample, metadata: { name: 'main', namespace: ns } });
    const cr = await eventually(async () => {
      const c = await client.get(Shop, { namespace: ns, name: 'main' });
      expect(condition(c, 'Deployed')?.status).toBe('True');
      return c;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    expect(condition(cr, 'Deployed')?.reason).toBe('InstallSuccessful');
    expect((await client.get(ConfigMap, { namespace: ns, name: 'main-storefront' })).data).toEqual({ greeting: 'hello' });
    for (const kind of ['Certificate', 'ServiceMonitor', 'HTTPRoute', 'GRPCRoute', 'Widget']) {
      expect(logged(new RegExp(`not watching ${kind} \\(`)), kind).toHaveLength(1);
    }
    expect(logged(/not watching ConfigMap/)).toEqual([]);
  }, 90_000);

  it('the manager keeps running past its cache-sync timeout, with no listener warning', async () => {
    await new Promise((r) => setTimeout(r, 21_000));
    expect(exited).toBeUndefined();
    expect(logged(/timed out|list certificates/)).toEqual([]);
    expect(warnings.filter((w) => /MaxListenersExceeded/.test(w))).toEqual([]);
  }, 30_000);

  it('Events about the release are recorded under the generated RBAC', async () => {
    await eventually(async () => {
      const events = (await client.list(EventsV1, { namespace: ns })).items.filter((e) => e.regarding?.kind === 'Shop' && e.regarding?.name === 'main');
      expect(events.length).toBeGreaterThan(0);
    }, { timeoutMs: 30_000, intervalMs: 500 });
    expect(logged(/events are not being recorded/)).toEqual([]);
  }, 40_000);

  it('installing the Widget CRD starts its watch: a Widget of the release deleted by hand is put back', async () => {
    await client.create(admin.CustomResourceDefinition, widgetCrd);
    await eventually(async () => expect(logged(/optional watch started/).join('\n')).toContain('Widget'), { timeoutMs: 40_000, intervalMs: 500 });
    await client.patch(Shop, { namespace: ns, name: 'main' }, { type: 'merge', body: { spec: { widget: { enabled: true } } } });
    const first = await eventually(() => client.get(Widget, { namespace: ns, name: 'main-storefront' }), { timeoutMs: 60_000, intervalMs: 250 });
    await eventually(async () => expect(condition(await client.get(Shop, { namespace: ns, name: 'main' }), 'Deployed')?.reason).toBe('UpgradeSuccessful'), { timeoutMs: 30_000, intervalMs: 250 });
    await client.delete(Widget, { namespace: ns, name: 'main-storefront' });
    await eventually(async () => {
      const w = await client.get(Widget, { namespace: ns, name: 'main-storefront' });
      expect(w.metadata?.uid).not.toBe(first.metadata?.uid);
    }, { timeoutMs: 60_000, intervalMs: 250 });
  }, 150_000);

  it('a failed install: InstallError with Helm\'s install message, no failed revisions piling up; the fix installs revision 1', async () => {
    // Valid for the CRD (open spec), refused by the API server: not a DNS name.
    await client.create(Shop, { metadata: { name: 'bad', namespace: ns }, spec: { configName: 'Not_A_Name', greeting: 'x', service: { port: 80 } } });
    const failed = await eventually(async () => {
      const c = await client.get(Shop, { namespace: ns, name: 'bad' });
      expect(condition(c, 'ReleaseFailed')?.status).toBe('True');
      return c;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    expect(condition(failed, 'ReleaseFailed')?.reason).toBe('InstallError');
    // Let it retry (3 s, 6 s): each retry is an install again, and helm keeps no failed revision behind.
    await new Promise((r) => setTimeout(r, 10_000));
    expect(readFileSync(runLog, 'utf8').split('\n').filter((l) => l.startsWith('upgrade ') && l.includes(' bad ')).length).toBeGreaterThanOrEqual(2);
    const again = await client.get(Shop, { namespace: ns, name: 'bad' });
    // Helm's own words for an install (`upgrade --install` of a release it has no record of), never an upgrade's.
    expect(condition(again, 'ReleaseFailed')?.reason).toBe('InstallError');
    expect(condition(again, 'ReleaseFailed')?.message).toContain('ConfigMap "Not_A_Name" is invalid');
    expect(condition(again, 'ReleaseFailed')?.message).not.toMatch(/UPGRADE FAILED/);
    const history = (() => { try { return JSON.parse(helmCli('history', 'bad', '-o', 'json')) as unknown[]; } catch { return []; } })();
    expect(history.length).toBeLessThanOrEqual(1);

    await client.patch(Shop, { namespace: ns, name: 'bad' }, { type: 'merge', body: { spec: { configName: 'bad-config' } } });
    const fixed = await eventually(async () => {
      const c = await client.get(Shop, { namespace: ns, name: 'bad' });
      expect(condition(c, 'Deployed')?.status).toBe('True');
      return c;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    expect(condition(fixed, 'Deployed')?.reason).toBe('InstallSuccessful');
    expect(condition(fixed, 'ReleaseFailed')).toBeUndefined();
    expect(JSON.parse(helmCli('history', 'bad', '-o', 'json')).map((h: { revision: number; status: string }) => [h.revision, h.status])).toEqual([[1, 'deployed']]);
  }, 120_000);

  it('deleting the Widget CRD stops its watch; the manager runs on', async () => {
    await client.patch(Shop, { namespace: ns, name: 'main' }, { type: 'merge', body: { spec: { widget: { enabled: false } } } });
    await eventually(async () => {
      const err = await client.get(Widget, { namespace: ns, name: 'main-storefront' }).then(() => undefined, (e: unknown) => e);
      expect(isNotFound(err)).toBe(true);
    }, { timeoutMs: 60_000, intervalMs: 250 });
    await client.delete(admin.CustomResourceDefinition, { name: 'widgets.shop.example.com' });
    await eventually(async () => expect(logged(/optional watch stopped/).join('\n')).toContain('Widget'), { timeoutMs: 40_000, intervalMs: 500 });
    expect(exited).toBeUndefined();
  }, 120_000);

  it('helm gone while a release is deployed: Irreconcilable (ReconcileError) and the documented back-off, not a retry storm', async () => {
    writeFileSync(helmGone, '');
    try {
      const before = helmRuns('main');
      // A drift event wakes the release's reconcile, which needs `helm status`.
      await client.delete(ConfigMap, { namespace: ns, name: 'main-storefront' });
      const cr = await eventually(async () => {
        const c = await client.get(Shop, { namespace: ns, name: 'main' });
        expect(condition(c, 'Irreconcilable')?.status).toBe('True');
        return c;
      }, { timeoutMs: 30_000, intervalMs: 250 });
      expect(condition(cr, 'Irreconcilable')?.reason).toBe('ReconcileError');
      expect(condition(cr, 'Irreconcilable')?.message).toContain('/nonexistent/helm');
      // baseBackoffMs 3 s: the first run, then 3 s later a second; not a run every few ms.
      await new Promise((r) => setTimeout(r, 5_000));
      expect(helmRuns('main') - before).toBeLessThanOrEqual(3);
    } finally {
      rmSync(helmGone, { force: true });
    }
    // helm back: the next retry (at most maxBackoffMs later) repairs the ConfigMap and clears the condition.
    await eventually(async () => {
      expect((await client.get(ConfigMap, { namespace: ns, name: 'main-storefront' })).data).toEqual({ greeting: 'hello' });
      expect(condition(await client.get(Shop, { namespace: ns, name: 'main' }), 'Irreconcilable')).toBeUndefined();
    }, { timeoutMs: 45_000, intervalMs: 500 });
  }, 120_000);
});
