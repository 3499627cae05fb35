// `opgen bundle validate --olm-v1` side by side with operator-controller's own code (its resolver's
// dependency check, its registry+v1 converter, validators and renderer) on the tutorial operator's bundle
// and on one-change variants of it: same verdict on every case, and the rule operator-controller stops
// at is one opgen names.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { OlmV1Check } from '../../src/olm-v1/lint.js';
import { opgen, opgenOk, scaffoldTutorial, tempDir } from '../olm/helpers.js';
import { olmV1Oracle, oracleBinary, tally } from './oracle.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Case {
  name: string;
  /** The bundle changed: the tutorial operator's (cluster-wide), or the same operator made with init --namespaced. */
  from?: 'namespaced';
  /** Changes the copied bundle folder. */
  change?: (b: BundleFiles) => void;
  flags?: { watch?: string; install?: string; webhooks?: 'cert-manager' | 'openshift-serviceca' };
  /** 'pass', or the check opgen must report (operator-controller must refuse too). */
  expect: 'pass' | OlmV1Check;
  /** A warning of opgen's own it must print (operator-controller has no such rule). */
  warning?: OlmV1Check;
}

// The operator-controller message each opgen check corresponds to.
const ORACLE_MESSAGES: Record<OlmV1Check, RegExp> = {
  dependency: /has a dependency declared via property/,
  'olm-properties': /failed to unmarshal csv\.metadata\.annotations\['olm\.properties'\]/,
  'api-service': /apiServiceDefintions are not supported/,
  'webhook-unsupported': /webhookDefinitions are not supported/,
  'duplicate-deployment': /duplicate strategy deployment spec/,
  'deployment-name': /invalid cluster service version strategy deployment name/,
  'duplicate-crd': /duplicate custom resource definition/,
  // opm's bundle parser (rendering the bundle for the catalog) already refuses it.
  'owned-crd-missing': /owned custom resource definition '[^']*' not found in bundle|error checking provided apis in bundle .*couldn't find/,
  'package-name': /package name is empty/,
  'webhook-deployment': /references non-existent deployment/,
  'duplicate-webhook': /duplicate webhook '/,
  'webhook-name': /has invalid name/,
  'conversion-crd-shared': /reference same custom resource definition|referenced by multiple conversion webhook/,
  'conversion-crd-not-owned': /not owned bundle/,
  'conversion-preserve-unknown-fields': /preserveUnknownFields set to false/,
  'install-mode': /do not support|target namespace/,
  'unsupported-kind': /bundle contains unsupported resource/,
  'watch-namespace-ignored': /^$/, // opgen's own warning
};

const CSV = 'manifests/memcached-operator.clusterserviceversion.yaml';
const CRD = 'manifests/cache.example.com_memcacheds.yaml';
const CRD_NAME = 'memcacheds.cache.example.com';

class BundleFiles {
  constructor(readonly dir: string) {}
  read(file: string): Obj {
    return parse(readFileSync(join(this.dir, file), 'utf8')) as Obj;
  }
  write(file: string, value: unknown): void {
    writeFileSync(join(this.dir, file), stringify(value));
  }
  csv(edit: (csv: Obj) => void): void {
    const c = this.read(CSV);
    edit(c);
    this.write(CSV, c);
  }
  modes(...supported: string[]): void {
    this.csv((c) => {
      c.spec.installModes = ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'].map((type) => ({ type, supported: supported.includes(type) }));
    });
  }
  deployment(c: Obj): string {
    return c.spec.install.spec.deployments[0].name as string;
  }
  webhooks(make: (deployment: string) => Obj[]): void {
    this.csv((c) => void (c.spec.webhookdefinitions = make(this.deployment(c))));
  }
}

const validating = (deploymentName: string, generateName = 'vmemcached.kb.io'): Obj => ({
  type: 'ValidatingAdmissionWebhook', generateName, deploymentName, containerPort: 443, targetPort: 9443, admissionReviewVersions: ['v1'], sideEffects: 'None',
  failurePolicy: 'Fail', webhookPath: '/validate-cache-example-com-v1alpha1-memcached',
  rules: [{ apiGroups: ['cache.example.com'], apiVersions: ['v1alpha1'], operations: ['CREATE', 'UPDATE'], resources: ['memcacheds'] }],
});
const conversion = (deploymentName: string, generateName: string, crds: string[]): Obj => ({
  type: 'ConversionWebhook', generateName, deploymentName, containerPort: 443, targetPort: 9443, admissionReviewVersions: ['v1'], sideEffects: 'None',
  webhookPath: '/convert', conversionCRDs: crds,
});

const cases: Case[] = [
  { name: 'the generated bundle (AllNamespaces)', expect: 'pass' },
  { name: 'OwnNamespace only, no watchNamespace', change: (b) => b.modes('OwnNamespace'), expect: 'install-mode' },
  { name: 'OwnNamespace only, watchNamespace = install namespace', change: (b) => b.modes('OwnNamespace'), flags: { watch: 'operators', install: 'operators' }, expect: 'pass' },
  { name: 'OwnNamespace only, watchNamespace elsewhere', change: (b) => b.modes('OwnNamespace'), flags: { watch: 'tenant-a', install: 'operators' }, expect: 'install-mode' },
  { name: 'SingleNamespace only, watchNamespace elsewhere', change: (b) => b.modes('SingleNamespace'), flags: { watch: 'tenant-a', install: 'operators' }, expect: 'pass' },
  { name: 'SingleNamespace only, watchNamespace = install namespace', change: (b) => b.modes('SingleNamespace'), flags: { watch: 'operators', install: 'operators' }, expect: 'install-mode' },
  {
    // opgen's own warning; operator-controller installs it (and the operator then watches the wrong namespace).
    name: 'SingleNamespace, manager reads WATCH_NAMESPACE from its own namespace',
    change: (b) => {
      b.modes('SingleNamespace');
      b.csv((c) => void (c.spec.install.spec.deployments[0].spec.template.spec.containers[0].env = [{ name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }]));
    },
    flags: { watch: 'tenant-a', install: 'operators' },
    expect: 'pass',
    warning: 'watch-namespace-ignored',
  },
  {
    name: 'SingleNamespace, manager reads WATCH_NAMESPACE from olm.targetNamespaces',
    change: (b) => {
      b.modes('SingleNamespace');
      b.csv((c) => void (c.spec.install.spec.deployments[0].spec.template.spec.containers[0].env = [{ name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['olm.targetNamespaces']" } } }]));
    },
    flags: { watch: 'tenant-a', install: 'operators' },
    expect: 'pass',
  },
  { name: 'AllNamespaces only, watchNamespace set', change: (b) => b.modes('AllNamespaces'), flags: { watch: 'tenant-a', install: 'operators' }, expect: 'install-mode' },
  { name: 'MultiNamespace only', change: (b) => b.modes('MultiNamespace'), expect: 'install-mode' },
  { name: 'AllNamespaces listed but not supported', change: (b) => b.modes(), expect: 'install-mode' },
  {
    name: 'dependencies.yaml: olm.package',
    change: (b) => b.write('metadata/dependencies.yaml', { dependencies: [{ type: 'olm.package', value: { packageName: 'etcd', version: '>=0.9.0' } }] }),
    expect: 'dependency',
  },
  {
    name: 'dependencies.yaml: olm.gvk',
    change: (b) => b.write('metadata/dependencies.yaml', { dependencies: [{ type: 'olm.gvk', value: { group: 'etcd.database.coreos.com', kind: 'EtcdCluster', version: 'v1beta2' } }] }),
    expect: 'dependency',
  },
  {
    name: 'dependencies.yaml: olm.constraint',
    change: (b) => b.write('metadata/dependencies.yaml', { dependencies: [{ type: 'olm.constraint', value: { failureMessage: 'needs etcd', package: { packageName: 'etcd', versionRange: '>=0.9.0' } } }] }),
    expect: 'dependency',
  },
  {
    name: 'properties.yaml: olm.package.required',
    change: (b) => b.write('metadata/properties.yaml', { properties: [{ type: 'olm.package.required', value: { packageName: 'etcd', versionRange: '>=0.9.0' } }] }),
    expect: 'dependency',
  },
  {
    name: 'properties.yaml: olm.maxOpenShiftVersion (not a dependency)',
    change: (b) => b.write('metadata/properties.yaml', { properties: [{ type: 'olm.maxOpenShiftVersion', value: '4.20' }] }),
    expect: 'pass',
  },
  {
    name: 'CSV requires a CRD it does not own',
    change: (b) => b.csv((c) => void (c.spec.customresourcedefinitions.required = [{ name: 'etcdclusters.etcd.database.coreos.com', version: 'v1beta2', kind: 'EtcdCluster' }])),
    expect: 'dependency',
  },
  {
    name: 'CSV olm.properties annotation: olm.gvk.required',
    change: (b) => b.csv((c) => void (c.metadata.annotations['olm.properties'] = JSON.stringify([{ type: 'olm.gvk.required', value: { group: 'etcd.database.coreos.com', kind: 'EtcdCluster', version: 'v1beta2' } }]))),
    expect: 'dependency',
  },
  {
    name: 'CSV olm.properties annotation not JSON',
    change: (b) => b.csv((c) => void (c.metadata.annotations['olm.properties'] = '[{type: olm.maxOpenShiftVersion}]')),
    expect: 'olm-properties',
  },
  {
    name: 'owned API service',
    change: (b) => b.csv((c) => void (c.spec.apiservicedefinitions = { owned: [{ name: 'v1alpha1.metrics.example.com', group: 'metrics.example.com', version: 'v1alpha1', kind: 'Metric', deploymentName: b.deployment(c), displayName: 'Metric', description: 'x' }] })),
    expect: 'api-service',
  },
  { name: 'validating webhook, no certificate provider', change: (b) => b.webhooks((d) => [validating(d)]), expect: 'webhook-unsupported' },
  { name: 'validating webhook, cert-manager provider', change: (b) => b.webhooks((d) => [validating(d)]), flags: { webhooks: 'cert-manager' }, expect: 'pass' },
  { name: 'validating webhook, OpenShift service CA provider', change: (b) => b.webhooks((d) => [validating(d)]), flags: { webhooks: 'openshift-serviceca' }, expect: 'pass' },
  { name: 'webhook names a deployment the CSV lacks', change: (b) => b.webhooks(() => [validating('no-such-deployment')]), flags: { webhooks: 'cert-manager' }, expect: 'webhook-deployment' },
  { name: 'two validating webhooks with one name', change: (b) => b.webhooks((d) => [validating(d), validating(d)]), flags: { webhooks: 'cert-manager' }, expect: 'duplicate-webhook' },
  { name: 'webhook name not a DNS-1123 subdomain', change: (b) => b.webhooks((d) => [validating(d, 'VMemcached')]), flags: { webhooks: 'cert-manager' }, expect: 'webhook-name' },
  { name: 'conversion webhook for a CRD the CSV does not own', change: (b) => b.webhooks((d) => [conversion(d, 'cmemcached.kb.io', ['others.cache.example.com'])]), flags: { webhooks: 'cert-manager' }, expect: 'conversion-crd-not-owned' },
  {
    name: 'two conversion webhooks for one CRD',
    change: (b) => b.webhooks((d) => [conversion(d, 'a.kb.io', [CRD_NAME]), conversion(d, 'b.kb.io', [CRD_NAME])]),
    flags: { webhooks: 'cert-manager' },
    expect: 'conversion-crd-shared',
  },
  {
    name: 'conversion CRD with preserveUnknownFields',
    change: (b) => {
      b.webhooks((d) => [conversion(d, 'cmemcached.kb.io', [CRD_NAME])]);
      const crd = b.read(CRD);
      crd.spec.preserveUnknownFields = true;
      b.write(CRD, crd);
    },
    flags: { webhooks: 'cert-manager' },
    expect: 'conversion-preserve-unknown-fields',
  },
  { name: 'conversion webhook on an owned CRD', change: (b) => b.webhooks((d) => [conversion(d, 'cmemcached.kb.io', [CRD_NAME])]), flags: { webhooks: 'cert-manager' }, expect: 'pass' },
  {
    name: 'two deployments with one name',
    change: (b) => b.csv((c) => void c.spec.install.spec.deployments.push(structuredClone(c.spec.install.spec.deployments[0]))),
    expect: 'duplicate-deployment',
  },
  { name: 'deployment name not a DNS-1123 subdomain', change: (b) => b.csv((c) => void (c.spec.install.spec.deployments[0].name = 'Controller_Manager')), expect: 'deployment-name' },
  {
    name: 'owned CRD missing from the bundle',
    change: (b) => b.csv((c) => void c.spec.customresourcedefinitions.owned.push({ name: 'others.cache.example.com', version: 'v1alpha1', kind: 'Other' })),
    expect: 'owned-crd-missing',
  },
  {
    name: 'a Deployment shipped as a bundle object',
    change: (b) => b.write('manifests/extra_apps_v1_deployment.yaml', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'extra' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } }),
    expect: 'unsupported-kind',
  },
  {
    name: 'a PodDisruptionBudget shipped as a bundle object',
    change: (b) => b.write('manifests/pdb_policy_v1_poddisruptionbudget.yaml', { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'pdb' }, spec: { minAvailable: 1, selector: { matchLabels: { a: 'b' } } } }),
    expect: 'pass',
  },
  // opgen init --namespaced: OwnNamespace only, WATCH_NAMESPACE from the pod's namespace.
  { name: 'namespaced operator, no watchNamespace', from: 'namespaced', expect: 'install-mode' },
  { name: 'namespaced operator, watchNamespace = install namespace', from: 'namespaced', flags: { watch: 'operators', install: 'operators' }, expect: 'pass' },
  // opgen generate bundle takes WATCH_NAMESPACE from olm.targetNamespaces, so opgen's warning stays quiet.
  { name: 'namespaced operator, watchNamespace elsewhere', from: 'namespaced', flags: { watch: 'tenant-a', install: 'operators' }, expect: 'install-mode' },
];

let root: { dir: string; cleanup: () => void };
let bundle: string;
let namespacedBundle: string;
const verdicts: string[] = [];

beforeAll(async () => {
  oracleBinary();
  root = tempDir('opgen-olm-v1-');
  const project = await scaffoldTutorial(root.dir);
  await opgenOk(project, 'generate', 'bundle', '--version', '0.1.0', '--channels', 'stable', '--default-channel', 'stable');
  bundle = join(project, 'bundle');
  const namespaced = await scaffoldTutorial(root.dir, 'namespaced-operator', ['--namespaced']);
  await opgenOk(namespaced, 'generate', 'bundle', '--version', '0.1.0', '--channels', 'stable', '--default-channel', 'stable', '--package', 'memcached-operator');
  namespacedBundle = join(namespaced, 'bundle');
}, 900_000);
afterAll(() => {
  // eslint-disable-next-line no-console
  console.log(`OLM v1 bundle cases per verdict (opgen = operator-controller): ${tally(verdicts)}`);
  root?.cleanup();
});

describe('bundle validate --olm-v1 against operator-controller v1.5.1', () => {
  it.each(cases)('$name', async (c) => {
    const dir = join(root.dir, 'cases', c.name.replace(/[^a-z0-9]+/gi, '-'));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    cpSync(c.from === 'namespaced' ? namespacedBundle : bundle, join(dir, 'bundle'), { recursive: true });
    c.change?.(new BundleFiles(join(dir, 'bundle')));

    const flags: string[] = [];
    const oracleFlags: string[] = [];
    if (c.flags?.watch) flags.push('--watch-namespace', c.flags.watch), oracleFlags.push('--watch-namespace', c.flags.watch);
    if (c.flags?.install) flags.push('--install-namespace', c.flags.install), oracleFlags.push('--install-namespace', c.flags.install);
    if (c.flags?.webhooks) flags.push('--webhook-provider', c.flags.webhooks), oracleFlags.push('--webhook-provider', c.flags.webhooks);
    const r = await opgen(dir, 'bundle', 'validate', 'bundle', '--olm-v1', ...flags);
    const lines = r.stderr.split('\n').filter((l) => / \[olm-v1 [a-z-]+\]$/.test(l));
    const warnings = r.stdout.split('\n').filter((l) => / \[olm-v1 [a-z-]+\]$/.test(l)).map((l) => / \[olm-v1 ([a-z-]+)\]$/.exec(l)![1]);
    expect(warnings).toEqual(c.warning ? [c.warning] : []);
    const checks = new Set(lines.map((l) => / \[olm-v1 ([a-z-]+)\]$/.exec(l)![1]));
    const ours = lines.length === 0 ? 'pass' : 'fail';

    const oracle = olmV1Oracle('bundle', join(dir, 'bundle'), ...oracleFlags);
    expect({ ours, message: oracle.message }).toEqual({ ours: oracle.verdict, message: oracle.message });
    verdicts.push(oracle.verdict);
    if (c.expect === 'pass') {
      expect(lines).toEqual([]);
      expect(r.stdout).toContain('installable by OLM v1');
    } else {
      expect(checks).toContain(c.expect);
      const stoppedAt = (Object.keys(ORACLE_MESSAGES) as OlmV1Check[]).filter((k) => ORACLE_MESSAGES[k].test(oracle.message ?? ''));
      expect(stoppedAt.length, `operator-controller's message matched no opgen check: ${oracle.message}`).toBeGreaterThan(0);
      expect(stoppedAt.some((k) => checks.has(k)), `opgen reported ${[...checks].join(', ')}; operator-controller: ${oracle.message}`).toBe(true);
      // Each line names the CSV (or metadata) field and the fix.
      for (const l of lines) expect(l).toMatch(/^bundle\/(manifests|metadata)\/[^:]+: error: [^:]+: .+ \(.+\) \[olm-v1 [a-z-]+\]$/);
    }
  });

  it('refuses its flags without --olm-v1 and bad values with one line', async () => {
    const dir = join(root.dir, 'flags');
    mkdirSync(dir, { recursive: true });
    cpSync(bundle, join(dir, 'bundle'), { recursive: true });
    const without = await opgen(dir, 'bundle', 'validate', 'bundle', '--watch-namespace', 'a');
    expect(without).toMatchObject({ code: 1, stderr: 'bundle validate: error: --watch-namespace needs --olm-v1 (add --olm-v1)\n' });
    const bad = await opgen(dir, 'bundle', 'validate', 'bundle', '--olm-v1', '--watch-namespace', 'Not_A_Namespace');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^--watch-namespace: error: namespace 'Not_A_Namespace' must be a DNS-1123 label.*\(pass a namespace name\)\n$/);
  });
});
