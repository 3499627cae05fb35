// `opgen generate helm` on the tutorial's Memcached operator (with defaulting, validating and conversion
// webhooks), judged by helm itself: `helm lint --strict` and `helm template` with the default values and
// with each toggle, every rendered object applied with a server-side dry run on a real API server, and
// helm refusing values the chart's values.schema.json does not name.
import { readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { snapshot } from '../../src/testdata/files.js';
import { helm, helmBinary, opgenOk, scaffoldMemcached, tempDir, thirdPartyCrds } from './helpers.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const NS = 'memcached-operator-system';
const RELEASE = 'memcached-operator';

let root: { dir: string; cleanup: () => void };
let project: string;
let chart: string;
let env: TestEnv | undefined;

interface Toggle {
  name: string;
  set: string[];
  /** What the toggle must change in the rendered objects. */
  check(objects: Obj[]): void;
}

const find = (objects: Obj[], kind: string, name: string): Obj | undefined => objects.find((o) => o.kind === kind && o.metadata.name === name);
const manager = (objects: Obj[]): Obj => find(objects, 'Deployment', `${RELEASE}-controller-manager`)!.spec.template.spec.containers[0];
const kinds = (objects: Obj[], kind: string): string[] => objects.filter((o) => o.kind === kind).map((o) => o.metadata.name as string).sort();

const toggles: Toggle[] = [
  {
    name: 'defaults',
    set: [],
    check(objects) {
      expect(find(objects, 'ClusterRole', `${RELEASE}-manager-role`)).toBeDefined();
      expect(find(objects, 'ClusterRoleBinding', `${RELEASE}-manager-rolebinding`)).toBeDefined();
      expect(manager(objects).env).toBeUndefined();
      const crd = find(objects, 'CustomResourceDefinition', 'memcacheds.cache.example.com')!;
      expect(crd.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
      expect(crd.metadata.annotations['cert-manager.io/inject-ca-from']).toBe(`${NS}/${RELEASE}-serving-cert`);
      expect(crd.spec.conversion.webhook.clientConfig.service).toEqual({ name: `${RELEASE}-webhook-service`, namespace: NS, path: '/convert' });
      expect(kinds(objects, 'NetworkPolicy')).toEqual([]);
      expect(kinds(objects, 'ServiceMonitor')).toEqual([]);
      // The CRD helper roles are off by default, as in kubebuilder's chart.
      expect(find(objects, 'ClusterRole', `${RELEASE}-memcached-editor-role`)).toBeUndefined();
    },
  },
  {
    name: 'rbac.namespaced',
    set: ['rbac.namespaced=true'],
    check(objects) {
      expect(find(objects, 'ClusterRole', `${RELEASE}-manager-role`)).toBeUndefined();
      expect(find(objects, 'ClusterRoleBinding', `${RELEASE}-manager-rolebinding`)).toBeUndefined();
      expect(find(objects, 'Role', `${RELEASE}-manager-role`)!.metadata.namespace).toBe(NS);
      const binding = find(objects, 'RoleBinding', `${RELEASE}-manager-rolebinding`)!;
      expect(binding.metadata.namespace).toBe(NS);
      expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${RELEASE}-manager-role` });
      // Leader election stays in the release namespace; the metrics authentication roles stay cluster-wide.
      expect(find(objects, 'Role', `${RELEASE}-leader-election-role`)!.metadata.namespace).toBe(NS);
      expect(find(objects, 'ClusterRole', `${RELEASE}-metrics-auth-role`)).toBeDefined();
      expect(manager(objects).env).toEqual([{ name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }]);
    },
  },
  {
    name: 'rbac.namespaced with WATCH_NAMESPACE in manager.env',
    set: ['rbac.namespaced=true', 'manager.env[0].name=WATCH_NAMESPACE', 'manager.env[0].value=team-a\\,team-b'],
    check(objects) {
      // The value from manager.env wins; the chart adds no second WATCH_NAMESPACE (a duplicate env name is
      // refused by server-side apply).
      expect(manager(objects).env).toEqual([{ name: 'WATCH_NAMESPACE', value: 'team-a,team-b' }]);
    },
  },
  {
    name: 'rbac.helpers.enabled',
    set: ['rbac.helpers.enabled=true'],
    check(objects) {
      expect(kinds(objects, 'ClusterRole')).toEqual(expect.arrayContaining(['admin', 'editor', 'viewer'].map((r) => `${RELEASE}-memcached-${r}-role`)));
    },
  },
  {
    name: 'serviceAccount.enabled=false',
    set: ['serviceAccount.enabled=false', 'serviceAccount.name=default'],
    check(objects) {
      expect(kinds(objects, 'ServiceAccount')).toEqual([]);
      expect(find(objects, 'Deployment', `${RELEASE}-controller-manager`)!.spec.template.spec.serviceAccountName).toBe('default');
      expect(find(objects, 'ClusterRoleBinding', `${RELEASE}-manager-rolebinding`)!.subjects).toEqual([{ kind: 'ServiceAccount', name: 'default', namespace: NS }]);
    },
  },
  {
    name: 'crd.enabled=false',
    set: ['crd.enabled=false'],
    check(objects) {
      expect(kinds(objects, 'CustomResourceDefinition')).toEqual([]);
    },
  },
  {
    name: 'crd.keep=false',
    set: ['crd.keep=false'],
    check(objects) {
      expect(find(objects, 'CustomResourceDefinition', 'memcacheds.cache.example.com')!.metadata.annotations['helm.sh/resource-policy']).toBeUndefined();
    },
  },
  {
    name: 'metrics.enabled=false',
    set: ['metrics.enabled=false'],
    check(objects) {
      expect(find(objects, 'Service', `${RELEASE}-controller-manager-metrics-service`)).toBeUndefined();
      expect(find(objects, 'ClusterRole', `${RELEASE}-metrics-auth-role`)).toBeUndefined();
      expect(manager(objects).args).toContain('--metrics-bind-address=0');
    },
  },
  {
    name: 'metrics.port and metrics.secure=false',
    set: ['metrics.port=8080', 'metrics.secure=false'],
    check(objects) {
      const service = find(objects, 'Service', `${RELEASE}-controller-manager-metrics-service`)!;
      expect(service.spec.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP', targetPort: 8080 }]);
      expect(manager(objects).args).toEqual(expect.arrayContaining(['--metrics-bind-address=:8080', '--metrics-secure=false']));
      expect(find(objects, 'ClusterRole', `${RELEASE}-metrics-auth-role`)).toBeUndefined();
    },
  },
  {
    name: 'certManager.enabled=false',
    set: ['certManager.enabled=false'],
    check(objects) {
      expect(objects.filter((o) => o.apiVersion === 'cert-manager.io/v1')).toEqual([]);
      const config = find(objects, 'MutatingWebhookConfiguration', `${RELEASE}-mutating-webhook-configuration`)!;
      expect(config.metadata.annotations ?? {}).not.toHaveProperty('cert-manager.io/inject-ca-from');
      expect(manager(objects).volumeMounts).toBeUndefined();
    },
  },
  {
    name: 'webhook.enabled=false',
    set: ['webhook.enabled=false'],
    check(objects) {
      expect(kinds(objects, 'MutatingWebhookConfiguration')).toEqual([]);
      expect(kinds(objects, 'ValidatingWebhookConfiguration')).toEqual([]);
      expect(find(objects, 'Service', `${RELEASE}-webhook-service`)).toBeUndefined();
      expect(find(objects, 'CustomResourceDefinition', 'memcacheds.cache.example.com')!.spec.conversion).toBeUndefined();
      expect(manager(objects).args.some((a: string) => a.startsWith('--webhook-'))).toBe(false);
    },
  },
  {
    name: 'webhook.port',
    set: ['webhook.port=10443'],
    check(objects) {
      expect(manager(objects).args).toContain('--webhook-port=10443');
      expect(find(objects, 'Service', `${RELEASE}-webhook-service`)!.spec.ports[0].targetPort).toBe(10443);
    },
  },
  {
    name: 'prometheus.enabled',
    set: ['prometheus.enabled=true'],
    check(objects) {
      expect(kinds(objects, 'ServiceMonitor')).toEqual([`${RELEASE}-controller-manager-metrics-monitor`]);
      // The condition series keep the object's namespace, as with config/prometheus/monitor.yaml.
      expect(find(objects, 'ServiceMonitor', `${RELEASE}-controller-manager-metrics-monitor`)!.spec.endpoints[0].honorLabels).toBe(true);
    },
  },
  {
    name: 'networkPolicy.enabled',
    set: ['networkPolicy.enabled=true'],
    check(objects) {
      expect(kinds(objects, 'NetworkPolicy')).toEqual([`${RELEASE}-allow-metrics-traffic`, `${RELEASE}-allow-webhook-traffic`]);
    },
  },
  {
    name: 'manager.*',
    set: ['manager.replicas=2', 'manager.image.repository=example.com/memcached-operator', 'manager.image.tag=v0.2.0', 'manager.nodeSelector.disk=ssd', 'manager.tolerations[0].key=dedicated', 'manager.tolerations[0].operator=Exists'],
    check(objects) {
      const deployment = find(objects, 'Deployment', `${RELEASE}-controller-manager`)!;
      expect(deployment.spec.replicas).toBe(2);
      expect(manager(objects).image).toBe('example.com/memcached-operator:v0.2.0');
      expect(deployment.spec.template.spec.nodeSelector).toEqual({ disk: 'ssd' });
      expect(deployment.spec.template.spec.tolerations).toEqual([{ key: 'dedicated', operator: 'Exists' }]);
    },
  },
];

const rendered = new Map<string, { text: string; objects: Obj[] }>();
const setArgs = (t: Toggle): string[] => t.set.flatMap((s) => ['--set', s]);

async function kubectl(...args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const r = await execa('kubectl', ['--kubeconfig', env!.kubeconfigPath, ...args], { reject: false });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

beforeAll(async () => {
  helmBinary();
  thirdPartyCrds();
  root = tempDir('opgen-helm-chart-');
  const started = startTestEnv(); // the API server starts while the project is scaffolded
  try {
    project = await scaffoldMemcached(root.dir);
    await opgenOk(project, 'generate', 'helm');
    chart = join(project, 'dist/chart');
  } finally {
    env = await started;
  }
}, 300_000);
afterAll(async () => {
  await env?.stop();
  root?.cleanup();
});

describe('opgen generate helm on the Memcached operator', () => {
  it('writes the layout of kubebuilder\'s helm/v2-alpha plugin, with the last generated files under .opgen/', () => {
    const files = Object.keys(snapshot(chart)).filter((f) => !f.startsWith('.opgen/')).sort();
    expect(files).toEqual([
      '.helmignore',
      'Chart.yaml',
      'templates/NOTES.txt',
      'templates/_helpers.tpl',
      'templates/cert-manager/metrics-certs.yaml',
      'templates/cert-manager/selfsigned-issuer.yaml',
      'templates/cert-manager/serving-cert.yaml',
      'templates/crd/memcacheds.cache.example.com.yaml',
      'templates/manager/manager.yaml',
      'templates/metrics/controller-manager-metrics-service.yaml',
      'templates/network-policy/allow-metrics-traffic.yaml',
      'templates/network-policy/allow-webhook-traffic.yaml',
      'templates/prometheus/controller-manager-metrics-monitor.yaml',
      'templates/rbac/controller-manager.yaml',
      'templates/rbac/leader-election-role.yaml',
      'templates/rbac/leader-election-rolebinding.yaml',
      'templates/rbac/manager-role.yaml',
      'templates/rbac/manager-rolebinding.yaml',
      'templates/rbac/memcached-admin-role.yaml',
      'templates/rbac/memcached-editor-role.yaml',
      'templates/rbac/memcached-viewer-role.yaml',
      'templates/rbac/metrics-auth-role.yaml',
      'templates/rbac/metrics-auth-rolebinding.yaml',
      'templates/rbac/metrics-reader.yaml',
      'templates/webhook/mutating-webhook-configuration.yaml',
      'templates/webhook/validating-webhook-configuration.yaml',
      'templates/webhook/webhook-service.yaml',
      'values.schema.json',
      'values.yaml',
    ]);
    const bases = Object.keys(snapshot(join(chart, '.opgen'))).sort();
    expect(bases).toEqual(files.filter((f) => f !== 'Chart.yaml'));
    expect(readFileSync(join(chart, '.helmignore'), 'utf8')).toMatch(/^\.opgen\/$/m);
    const values = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as Obj;
    expect(Object.keys(values)).toEqual(['manager', 'rbac', 'serviceAccount', 'crd', 'metrics', 'certManager', 'webhook', 'prometheus', 'networkPolicy']);
    expect(values.rbac).toEqual({ namespaced: false, helpers: { enabled: false } });
    expect(values.crd).toEqual({ enabled: true, keep: true });
    expect(values.metrics).toEqual({ enabled: true, port: 8443, secure: true });
    expect(values.webhook).toEqual({ enabled: true, port: 9443 });
    expect(values.certManager).toEqual({ enabled: true });
    expect(values.prometheus).toEqual({ enabled: false });
    expect(values.networkPolicy).toEqual({ enabled: false });
    const project = readFileSync(join(chart, '../../PROJECT'), 'utf8');
    expect(parse(project).plugins).toEqual({ 'helm.opgen.dev/v1-alpha': { output: 'dist/chart' } });
  });

  it('passes helm lint --strict with the default values and with each toggle', async () => {
    const results = await Promise.all(toggles.map((t) => helm(project, 'lint', '--strict', 'dist/chart', '--namespace', NS, ...setArgs(t))));
    results.forEach((r, i) => {
      expect(r.stdout + r.stderr, toggles[i]!.name).toContain('1 chart(s) linted, 0 chart(s) failed');
      expect(r.exitCode, toggles[i]!.name).toBe(0);
    });
  });

  it('renders with helm template for each toggle, and each toggle does what it says', async () => {
    const results = await Promise.all(toggles.map((t) => helm(project, 'template', RELEASE, 'dist/chart', '--namespace', NS, ...setArgs(t))));
    results.forEach((r, i) => {
      const t = toggles[i]!;
      expect(r.stderr, t.name).toBe('');
      expect(r.exitCode, t.name).toBe(0);
      const objects = parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj).filter((o) => o !== null);
      rendered.set(t.name, { text: r.stdout, objects });
      t.check(objects);
    });
  });

  it('renders by default what kubectl kustomize renders from config/default (less the Namespace and the off-by-default helper roles)', async () => {
    const kustomize = await execa('kubectl', ['kustomize', join(project, 'config/default')]);
    const fromConfig = parseAllDocuments(String(kustomize.stdout)).map((d) => d.toJS() as Obj);
    const helpers = /-(admin|editor|viewer)-role$/;
    const ids = (objects: Obj[]): string[] => objects.filter((o) => o.kind !== 'Namespace' && !helpers.test(o.metadata.name)).map((o) => `${o.kind} ${o.metadata.namespace ?? ''} ${o.metadata.name}`).sort();
    const chartObjects = rendered.get('defaults')!.objects;
    expect(ids(chartObjects)).toEqual(ids(fromConfig));
    for (const kind of ['ClusterRole', 'Role']) {
      for (const o of fromConfig.filter((x) => x.kind === kind && !helpers.test(x.metadata.name))) expect(find(chartObjects, kind, o.metadata.name)?.rules, o.metadata.name).toEqual(o.rules);
    }
    const crd = fromConfig.find((o) => o.kind === 'CustomResourceDefinition')!;
    expect(find(chartObjects, 'CustomResourceDefinition', crd.metadata.name)!.spec).toEqual(crd.spec);
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
      const o = fromConfig.find((x) => x.kind === kind)!;
      expect(find(chartObjects, kind, o.metadata.name)!.webhooks, kind).toEqual(o.webhooks);
      expect(find(chartObjects, kind, o.metadata.name)!.metadata.annotations, kind).toEqual(o.metadata.annotations);
    }
    const fromConfigManager = fromConfig.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0];
    const chartManager = manager(chartObjects);
    for (const key of ['image', 'resources', 'securityContext', 'livenessProbe', 'readinessProbe']) expect(chartManager[key], key).toEqual(fromConfigManager[key]);
    // The chart also mounts cert-manager's metrics certificate (kubebuilder's chart does; config/default
    // leaves that patch commented out).
    expect([...chartManager.args].sort()).toEqual([...fromConfigManager.args, '--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs'].sort());
  });

  it('every object rendered for every toggle passes a server-side dry-run apply', async () => {
    expect((await kubectl('create', 'namespace', NS)).exitCode).toBe(0);
    // cert-manager's and prometheus-operator's own CRDs: their Certificates, Issuer and ServiceMonitor
    // are checked against the real schemas (kubectl's server-side apply validates fields strictly).
    const crds = await kubectl('apply', '--server-side', '-f', thirdPartyCrds());
    expect(crds.stderr).toBe('');
    const established = await kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd/certificates.cert-manager.io', 'crd/issuers.cert-manager.io', 'crd/servicemonitors.monitoring.coreos.com');
    expect(established.exitCode, established.stderr).toBe(0);
    expect(rendered.size).toBe(toggles.length);
    const applied = await Promise.all(
      toggles.map((t) => {
        const file = join(root.dir, `rendered-${t.name.replace(/[^a-z0-9]+/gi, '-')}.yaml`);
        writeFileSync(file, rendered.get(t.name)!.text);
        return kubectl('apply', '--server-side', '--dry-run=server', '-f', file);
      }),
    );
    applied.forEach((r, i) => {
      const t = toggles[i]!;
      expect(r.stderr, t.name).toBe('');
      expect(r.exitCode, t.name).toBe(0);
      // One line per object: kubectl applied every one of them.
      expect(r.stdout.trim().split('\n').length, t.name).toBe(rendered.get(t.name)!.objects.length);
    });
  }, 180_000);

  it('the project\'s npm scripts helm-deploy, helm-status and helm-uninstall install the chart on the API server, show and remove it', async () => {
    const scripts = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(Object.keys(scripts)).toEqual(expect.arrayContaining(['helm-deploy', 'helm-uninstall', 'helm-status', 'helm-history', 'helm-rollback']));
    const home = join(root.dir, '.helm-home');
    const npmEnv = {
      KUBECONFIG: env!.kubeconfigPath,
      PATH: `${dirname(helmBinary())}${delimiter}${process.env.PATH ?? ''}`,
      HELM_CACHE_HOME: join(home, 'cache'),
      HELM_CONFIG_HOME: join(home, 'config'),
      HELM_DATA_HOME: join(home, 'data'),
      IMG: 'example.com/memcached-operator:v0.1.0',
      // The test API server runs no pods, so the release would never become ready: don't wait for it.
      HELM_EXTRA_ARGS: '--wait=false',
    };
    const npm = (script: string) => execa('npm', ['run', '--silent', script], { cwd: project, env: npmEnv, reject: false, all: true });
    const deploy = await npm('helm-deploy');
    expect(deploy.exitCode, deploy.all).toBe(0);
    const image = await kubectl('get', 'deployment', '-n', NS, `${RELEASE}-controller-manager`, '-o', 'jsonpath={.spec.template.spec.containers[0].image}');
    expect(image.stdout).toBe('example.com/memcached-operator:v0.1.0');
    const status = await npm('helm-status');
    expect(status.exitCode, status.all).toBe(0);
    expect(status.all).toMatch(/^STATUS: deployed$/m);
    const uninstall = await npm('helm-uninstall');
    expect(uninstall.exitCode, uninstall.all).toBe(0);
    const gone = await kubectl('get', 'deployment', '-n', NS, `${RELEASE}-controller-manager`);
    expect(gone.stderr).toContain('NotFound');
    // crd.keep: the CRD outlives the release.
    expect((await kubectl('get', 'crd', 'memcacheds.cache.example.com')).exitCode).toBe(0);
  }, 120_000);

  it('helm refuses an unknown or mistyped toggle, naming it (values.schema.json)', async () => {
    const typo = await helm(project, 'template', RELEASE, 'dist/chart', '--set', 'metrics.enabeld=false');
    expect(typo.exitCode).not.toBe(0);
    expect(typo.stderr).toContain("at '/metrics': additional properties 'enabeld' not allowed");
    const unknown = await helm(project, 'lint', 'dist/chart', '--set', 'rbac.clusterWide=true');
    expect(unknown.exitCode).not.toBe(0);
    expect(unknown.stdout + unknown.stderr).toContain("additional properties 'clusterWide' not allowed");
    const valuesFile = join(root.dir, 'typo-values.yaml');
    writeFileSync(valuesFile, 'networkPolicies:\n  enabled: true\n');
    const topLevel = await helm(project, 'template', RELEASE, 'dist/chart', '-f', valuesFile);
    expect(topLevel.exitCode).not.toBe(0);
    expect(topLevel.stderr).toContain("additional properties 'networkPolicies' not allowed");
    const mistyped = await helm(project, 'template', RELEASE, 'dist/chart', '--set', 'prometheus.enabled=yes');
    expect(mistyped.exitCode).not.toBe(0);
    expect(mistyped.stderr).toContain("at '/prometheus/enabled': got string, want boolean");
  });
});
