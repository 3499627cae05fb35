// `opgen generate kustomize manifests` + `opgen generate bundle` on the tutorial operator, checked against
// config/ (rendered by kubectl kustomize) and by operator-framework/api's validators (the oracle).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { kustomize, opgen, opgenOk, oracle, oracleBinary, oracleErrors, readYaml, scaffoldTutorial, snapshot, tempDir } from './helpers.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let root: { dir: string; cleanup: () => void };
let project: string;
const csvPath = (p = project): string => join(p, 'bundle/manifests/memcached-operator.clusterserviceversion.yaml');
const basePath = (p = project): string => join(p, 'config/manifests/bases/memcached-operator.clusterserviceversion.yaml');

beforeAll(async () => {
  oracleBinary();
  root = tempDir('opgen-olm-bundle-');
  project = await scaffoldTutorial(root.dir);
  await opgenOk(project, 'generate', 'bundle', '--version', '0.1.0', '--channels', 'stable,preview', '--default-channel', 'stable');
}, 900_000);
afterAll(() => root?.cleanup());

describe('generate bundle on the tutorial operator', () => {
  it('writes operator-sdk\'s layout and file names', () => {
    const files = Object.keys(snapshot(join(project, 'bundle'))).sort();
    expect(files).toEqual([
      'manifests/cache.example.com_memcacheds.yaml',
      'manifests/memcached-operator-controller-manager-metrics-service_v1_service.yaml',
      'manifests/memcached-operator-memcached-admin-role_rbac.authorization.k8s.io_v1_clusterrole.yaml',
      'manifests/memcached-operator-memcached-editor-role_rbac.authorization.k8s.io_v1_clusterrole.yaml',
      'manifests/memcached-operator-memcached-viewer-role_rbac.authorization.k8s.io_v1_clusterrole.yaml',
      'manifests/memcached-operator-metrics-reader_rbac.authorization.k8s.io_v1_clusterrole.yaml',
      'manifests/memcached-operator.clusterserviceversion.yaml',
      'metadata/annotations.yaml',
      'tests/scorecard/config.yaml',
    ]);
    expect(existsSync(join(project, 'bundle.Dockerfile'))).toBe(true);
    expect(readYaml(join(project, 'bundle/tests/scorecard/config.yaml'))).toMatchObject({ kind: 'Configuration', apiVersion: 'scorecard.operatorframework.io/v1alpha3' });
  });

  it('passes opgen bundle validate and operator-framework/api\'s validators', async () => {
    const r = await opgen(project, 'bundle', 'validate', 'bundle');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('bundle: bundle is valid');
    const o = oracle(join(project, 'bundle'));
    expect(oracleErrors(o)).toEqual([]);
    expect(o.code).toBe(0);
  });

  it('has the manager Deployment of config/default as its install strategy', () => {
    const rendered = kustomize(join(project, 'config/default'));
    const deployment = rendered.find((o) => o.kind === 'Deployment') as Obj;
    const csv = readYaml<Obj>(csvPath());
    expect(csv.spec.install.strategy).toBe('deployment');
    expect(csv.spec.install.spec.deployments).toEqual([{ name: deployment.metadata.name, label: deployment.metadata.labels, spec: deployment.spec }]);
    expect(csv.metadata.annotations.containerImage).toBe(deployment.spec.template.spec.containers[0].image);
    expect(csv.spec.relatedImages).toEqual([{ name: 'manager', image: deployment.spec.template.spec.containers[0].image }]);
  });

  it('has the Roles bound to the manager\'s service account as permissions and its ClusterRoles as clusterPermissions', () => {
    const rendered = kustomize(join(project, 'config/default')) as Obj[];
    const sa = (rendered.find((o) => o.kind === 'Deployment') as Obj).spec.template.spec.serviceAccountName as string;
    const boundTo = (kind: string): Obj[] =>
      rendered
        .filter((b) => b.kind === kind && b.subjects.some((s: Obj) => s.kind === 'ServiceAccount' && s.name === sa))
        .map((b) => rendered.find((r) => r.kind === b.roleRef.kind && r.metadata.name === b.roleRef.name) as Obj);
    const csv = readYaml<Obj>(csvPath());
    const roles = boundTo('RoleBinding');
    const clusterRoles = boundTo('ClusterRoleBinding');
    expect(roles.length).toBeGreaterThan(0);
    expect(clusterRoles.length).toBeGreaterThan(0);
    expect(csv.spec.install.spec.permissions).toEqual([{ serviceAccountName: sa, rules: roles.flatMap((r) => r.rules) }]);
    expect(csv.spec.install.spec.clusterPermissions).toEqual([{ serviceAccountName: sa, rules: clusterRoles.flatMap((r) => r.rules) }]);
    // config/rbac/role.yaml (from +kubebuilder:rbac markers) is among them.
    const managerRole = readYaml<Obj>(join(project, 'config/rbac/role.yaml'));
    expect(csv.spec.install.spec.clusterPermissions[0].rules).toEqual(expect.arrayContaining(managerRole.rules));
    // Roles nobody binds to the manager ship as bundle objects; the bound ones do not.
    const files = Object.keys(snapshot(join(project, 'bundle/manifests')));
    for (const r of [...roles, ...clusterRoles]) expect(files.some((f) => f.startsWith(`${r.metadata.name}_`))).toBe(false);
  });

  it('owns the CRDs of config/crd with the descriptors its markers state, and has config/samples as alm-examples', () => {
    const csv = readYaml<Obj>(csvPath());
    const crd = readYaml<Obj>(join(project, 'config/crd/bases/cache.example.com_memcacheds.yaml'));
    expect(readYaml(join(project, 'bundle/manifests/cache.example.com_memcacheds.yaml'))).toEqual(crd);
    expect(csv.spec.customresourcedefinitions.owned).toEqual([
      {
        name: crd.metadata.name,
        version: 'v1alpha1',
        kind: 'Memcached',
        displayName: 'Memcached App',
        description: 'Memcached is the Schema for the memcacheds API.',
        resources: [
          { kind: 'Deployment', version: 'v1', name: 'memcached-deployment' },
          { kind: 'Service', version: 'v1', name: 'memcached-service' },
        ],
        specDescriptors: [
          { path: 'containerPort', displayName: 'Container Port', description: 'containerPort is the port the memcached container listens on.' },
          { path: 'size', displayName: 'Size', description: 'size defines the number of Memcached instances.', 'x-descriptors': ['urn:alm:descriptor:com.tectonic.ui:podCount'] },
          { path: 'network.servicePort', displayName: 'Service Port', description: 'servicePort is the port of the memcached Service.' },
        ],
        statusDescriptors: [
          {
            path: 'conditions',
            displayName: 'Conditions',
            description: 'conditions report how the Memcached is doing: Available, Progressing, Degraded.',
            'x-descriptors': ['urn:alm:descriptor:io.kubernetes.conditions'],
          },
          { path: 'nodes[0].name', displayName: 'Name', description: 'name of the pod.', 'x-descriptors': ['urn:alm:descriptor:text'] },
        ],
      },
    ]);
    const samples = kustomize(join(project, 'config/samples')).map((s) => ({ ...s, metadata: { ...(s.metadata as Obj) } }));
    expect(JSON.parse(csv.metadata.annotations['alm-examples'] as string)).toEqual(samples);
  });

  it('writes the annotations and the same Dockerfile labels, and names the CSV by package and version', () => {
    const csv = readYaml<Obj>(csvPath());
    expect(csv.metadata.name).toBe('memcached-operator.v0.1.0');
    expect(csv.spec.version).toBe('0.1.0');
    const { annotations } = readYaml<Obj>(join(project, 'bundle/metadata/annotations.yaml'));
    expect(annotations).toMatchObject({
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
      'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
      'operators.operatorframework.io.bundle.package.v1': 'memcached-operator',
      'operators.operatorframework.io.bundle.channels.v1': 'stable,preview',
      'operators.operatorframework.io.bundle.channel.default.v1': 'stable',
    });
    const docker = readFileSync(join(project, 'bundle.Dockerfile'), 'utf8');
    for (const [k, v] of Object.entries(annotations as Record<string, string>)) expect(docker).toContain(`LABEL ${k}=${v}\n`);
  });

  it('--dry-run lists the changes and writes nothing', async () => {
    const before = snapshot(project);
    const r = await opgenOk(project, 'generate', 'bundle', '--version', '0.9.0', '--dry-run');
    expect(r.stdout).toContain('UPDATE bundle/manifests/memcached-operator.clusterserviceversion.yaml\n');
    expect(r.stdout).toContain('dry run: nothing was written');
    expect(snapshot(project)).toEqual(before);
  });

  it('is deterministic: a second run changes nothing', async () => {
    const before = snapshot(project);
    const r = await opgenOk(project, 'generate', 'bundle', '--version', '0.1.0', '--channels', 'stable,preview', '--default-channel', 'stable');
    expect(r.stdout).toBe('');
    expect(snapshot(project)).toEqual(before);
  });
});

describe('user edits survive regeneration', () => {
  let p: string;
  beforeAll(async () => {
    p = await scaffoldTutorial(root.dir, 'edited-operator');
  }, 120_000);

  it('keeps every base CSV field the user set, through generate kustomize manifests and generate bundle', async () => {
    const base = readYaml<Obj>(join(p, 'config/manifests/bases/edited-operator.clusterserviceversion.yaml'));
    const edits: Obj = {
      displayName: 'Memcached by Example',
      description: 'Runs memcached clusters.',
      icon: [{ base64data: 'PHN2Zy8+', mediatype: 'image/svg+xml' }],
      keywords: ['cache', 'memcached'],
      maintainers: [{ name: 'Ada', email: 'ada@example.com' }],
      provider: { name: 'Example Inc', url: 'https://example.com' },
      links: [{ name: 'Docs', url: 'https://example.com/docs' }],
      maturity: 'beta',
      minKubeVersion: '1.30.0',
      installModes: [
        { type: 'OwnNamespace', supported: true },
        { type: 'SingleNamespace', supported: true },
        { type: 'MultiNamespace', supported: false },
        { type: 'AllNamespaces', supported: true },
      ],
    };
    Object.assign(base.spec, edits);
    base.metadata.annotations.categories = 'Database';
    base.spec.customresourcedefinitions.owned[0].description = 'A memcached cluster.';
    base.spec.customresourcedefinitions.owned[0].specDescriptors.push({ path: 'image', displayName: 'Image override' });
    const path = join(p, 'config/manifests/bases/edited-operator.clusterserviceversion.yaml');
    writeFileSync(path, stringify(base));
    await opgenOk(p, 'generate', 'kustomize', 'manifests');
    const again = readYaml<Obj>(path);
    for (const [k, v] of Object.entries(edits)) expect(again.spec[k], k).toEqual(v);
    expect(again.metadata.annotations.categories).toBe('Database');
    await opgenOk(p, 'generate', 'bundle', '--version', '0.2.0');
    const csv = readYaml<Obj>(join(p, 'bundle/manifests/edited-operator.clusterserviceversion.yaml'));
    for (const [k, v] of Object.entries(edits)) expect(csv.spec[k], k).toEqual(v);
    expect(csv.metadata.annotations.categories).toBe('Database');
    const owned = csv.spec.customresourcedefinitions.owned[0];
    // Markers state displayName; the doc comment only proposes a description, so the user's stays, and so does their extra descriptor.
    expect(owned.specDescriptors.map((d: Obj) => d.path)).toEqual(['containerPort', 'size', 'network.servicePort', 'image']);
    expect(owned.displayName).toBe('Memcached App');
    expect(owned.description).toBe('A memcached cluster.');
    // With the operatorframework suite too: both validators accept the filled-in bundle.
    const r = await opgen(p, 'bundle', 'validate', '--select-optional', 'suite=operatorframework');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(oracleErrors(oracle(join(p, 'bundle'), 'operatorframework'))).toEqual([]);
  });

  it('keeps labels and annotations the user added to bundle metadata and the Dockerfile', async () => {
    const annPath = join(p, 'bundle/metadata/annotations.yaml');
    const ann = readYaml<Obj>(annPath);
    ann.annotations['com.example/team'] = 'caching';
    writeFileSync(annPath, stringify(ann));
    const dockerPath = join(p, 'bundle.Dockerfile');
    writeFileSync(dockerPath, readFileSync(dockerPath, 'utf8').replace('FROM scratch\n', 'FROM scratch\nLABEL com.example/build="nightly build"\n'));
    await opgenOk(p, 'generate', 'bundle', '--version', '0.3.0', '--channels', 'fast');
    const after = readYaml<Obj>(annPath).annotations;
    expect(after['com.example/team']).toBe('caching');
    expect(after['operators.operatorframework.io.bundle.channels.v1']).toBe('fast');
    expect(after['operators.operatorframework.io.bundle.channel.default.v1']).toBe('fast');
    const docker = readFileSync(dockerPath, 'utf8');
    expect(docker).toContain('LABEL com.example/team=caching\n');
    expect(docker).toContain('LABEL com.example/build="nightly build"\n');
    expect(docker).toContain('LABEL operators.operatorframework.io.bundle.channels.v1=fast\n');
    // Channels are remembered when the flag is left out next time.
    await opgenOk(p, 'generate', 'bundle', '--version', '0.3.1');
    expect(readYaml<Obj>(annPath).annotations['operators.operatorframework.io.bundle.channels.v1']).toBe('fast');
    const r = await opgen(p, 'bundle', 'validate');
    expect(r.code).toBe(0);
    expect(oracleErrors(oracle(join(p, 'bundle')))).toEqual([]);
  });
});

describe('bad input: one line, non-zero exit, nothing written', () => {
  const cases: [string, string[], RegExp][] = [
    ['a non-SemVer version', ['--version', 'v1.0'], /^--version: error: 'v1\.0' is not a SemVer version \(write MAJOR\.MINOR\.PATCH/],
    ['an unknown default channel', ['--version', '1.0.0', '--channels', 'stable', '--default-channel', 'beta'], /^--default-channel: error: 'beta' is not one of the bundle's channels \(stable\)/],
    ['an invalid replaces', ['--version', '1.0.0', '--replaces', 'Memcached_v1'], /^--replaces: error: 'Memcached_v1' must be a DNS-1123 subdomain/],
    ['an invalid skip range', ['--version', '1.0.0', '--skip-range', '>=x'], /^--skip-range: error: '>=x' is not a version range/],
  ];
  for (const [what, args, pattern] of cases) {
    it(what, async () => {
      const before = snapshot(project);
      const r = await opgen(project, 'generate', 'bundle', ...args);
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(pattern);
      expect(r.stdout).toBe('');
      expect(snapshot(project)).toEqual(before);
    });
  }

  it('--use-image-digests with a registry that does not answer', async () => {
    const manager = join(project, 'config/manager/manager.yaml');
    const original = readFileSync(manager, 'utf8');
    writeFileSync(manager, original.replace('image: controller:latest', 'image: localhost:1/memcached-operator:v0.1.0'));
    try {
      const before = snapshot(project);
      const r = await opgen(project, 'generate', 'bundle', '--version', '0.1.0', '--use-image-digests');
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^--use-image-digests: error: cannot resolve localhost:1\/memcached-operator:v0\.1\.0 to a digest: .+ \(push the image first/);
      expect(snapshot(project)).toEqual(before);
    } finally {
      writeFileSync(manager, original);
    }
  });

  it('a config/manifests that kubectl kustomize refuses', async () => {
    const k = join(project, 'config/manifests/kustomization.yaml');
    const original = readFileSync(k, 'utf8');
    writeFileSync(k, `${original}- ../no-such-folder\n`);
    try {
      const before = snapshot(project);
      const r = await opgen(project, 'generate', 'bundle', '--version', '0.1.0');
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^config\/manifests: error: kubectl kustomize config\/manifests failed: .*no-such-folder.* \(fix config\/manifests until `kubectl kustomize config\/manifests` succeeds\)$/m);
      expect(snapshot(project)).toEqual(before);
    } finally {
      writeFileSync(k, original);
    }
  });

  it('a project without config/manifests', async () => {
    const t = tempDir('opgen-olm-bare-');
    try {
      const dir = join(t.dir, 'bare');
      const { mkdirSync } = await import('node:fs');
      mkdirSync(dir);
      await opgenOk(dir, 'init', '--domain', 'example.com', '--skip-install');
      const before = snapshot(dir);
      const r = await opgen(dir, 'generate', 'bundle', '--version', '0.1.0');
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^config\/manifests\/kustomization\.yaml: error: config\/manifests is missing \(run opgen generate kustomize manifests first\)/);
      expect(snapshot(dir)).toEqual(before);
    } finally {
      t.cleanup();
    }
  });
});

describe('+operator-sdk:csv:customresourcedefinitions markers', () => {
  it('are listed by opgen markers', async () => {
    const r = await opgenOk(project, 'markers');
    expect(r.stdout).toContain('+operator-sdk:csv:customresourcedefinitions:[type=…],[displayName=…],[resources=…],[xDescriptors=…],[order=…]');
    expect(r.stdout).toMatch(/on: type, field/);
  });

  it('are checked like other markers: a misspelt argument and a bad type are one line with file:line:col', async () => {
    const types = join(project, 'src/api/v1alpha1/memcached-types.ts');
    const original = readFileSync(types, 'utf8');
    try {
      writeFileSync(types, original.replace('type=spec,displayName="Size"', 'type=spec,displayname="Size"'));
      let r = await opgen(project, 'generate');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^src\/api\/v1alpha1\/memcached-types\.ts:\d+:\d+: error: .*has no argument "displayname".*did you mean displayName/m);
      writeFileSync(types, original.replace('type=spec,order=1', 'type=specs,order=1'));
      const before = snapshot(join(project, 'config'));
      r = await opgen(project, 'generate', 'kustomize', 'manifests');
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^src\/api\/v1alpha1\/memcached-types\.ts:\d+:\d+: error: type=specs is not a descriptor type \(write type=spec or type=status\)/);
      expect(snapshot(join(project, 'config'))).toEqual(before);
    } finally {
      writeFileSync(types, original);
    }
  });
});

describe('the scaffold', () => {
  it('has package.json scripts for bundles and catalogs', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    for (const s of ['bundle', 'bundle-build', 'bundle-push', 'catalog-build', 'catalog-push']) expect(pkg.scripts[s], s).toBeDefined();
    expect(pkg.scripts.bundle).toContain('opgen generate bundle');
  });

  it('config/manifests renders with kubectl kustomize to the base CSV, config/default, the samples and the scorecard', () => {
    const kinds = kustomize(join(project, 'config/manifests')).map((o) => o.kind);
    expect(kinds).toEqual(expect.arrayContaining(['ClusterServiceVersion', 'Deployment', 'Memcached', 'Configuration', 'CustomResourceDefinition']));
    expect(parse(readFileSync(join(project, 'config/manifests/kustomization.yaml'), 'utf8'))).toEqual({
      resources: ['bases/memcached-operator.clusterserviceversion.yaml', '../default', '../samples', '../scorecard'],
    });
  });
});

describe('webhooks (opgen create webhook)', () => {
  let p: string;
  let out: { stdout: string; stderr: string };
  beforeAll(async () => {
    p = await scaffoldTutorial(root.dir, 'webhook-operator');
    await opgenOk(p, 'create', 'webhook', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--defaulting', '--programmatic-validation');
    await opgenOk(p, 'create', 'api', '--group', 'cache', '--version', 'v1beta1', '--kind', 'Memcached', '--controller=false');
    await opgenOk(p, 'create', 'webhook', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--conversion', '--spoke', 'v1beta1');
    await opgenOk(p, 'generate');
    await opgenOk(p, 'generate', 'kustomize', 'manifests');
    out = await opgenOk(p, 'generate', 'bundle', '--version', '0.1.0');
  }, 120_000);

  it('become webhookdefinitions (admission and conversion), not bundle files; both validators pass', async () => {
    const csv = readYaml<Obj>(join(p, 'bundle/manifests/webhook-operator.clusterserviceversion.yaml'));
    const rendered = kustomize(join(p, 'config/default')) as Obj[];
    const mutating = rendered.find((o) => o.kind === 'MutatingWebhookConfiguration')!.webhooks[0] as Obj;
    const validating = rendered.find((o) => o.kind === 'ValidatingWebhookConfiguration')!.webhooks[0] as Obj;
    const deployment = (rendered.find((o) => o.kind === 'Deployment') as Obj).metadata.name as string;
    const service = rendered.find((o) => o.kind === 'Service' && o.metadata.name === mutating.clientConfig.service.name) as Obj;
    const common = { deploymentName: deployment, containerPort: service.spec.ports[0].port, targetPort: service.spec.ports[0].targetPort, admissionReviewVersions: ['v1'], sideEffects: 'None' };
    // operator-sdk's mapping: sorted by generateName, a conversion webhook named c<plurals>.kb.io with the CRD's conversionReviewVersions.
    expect(csv.spec.webhookdefinitions).toEqual([
      { ...common, type: 'ConversionWebhook', generateName: 'cmemcacheds.kb.io', conversionCRDs: ['memcacheds.cache.example.com'], webhookPath: '/convert' },
      { ...common, type: 'MutatingAdmissionWebhook', generateName: mutating.name, failurePolicy: mutating.failurePolicy, rules: mutating.rules, webhookPath: mutating.clientConfig.service.path },
      { ...common, type: 'ValidatingAdmissionWebhook', generateName: validating.name, failurePolicy: validating.failurePolicy, rules: validating.rules, webhookPath: validating.clientConfig.service.path },
    ]);
    // Both versions are owned; the webhook Service and configurations are folded into the CSV.
    expect(csv.spec.customresourcedefinitions.owned.map((o: Obj) => o.version)).toEqual(['v1alpha1', 'v1beta1']);
    const files = Object.keys(snapshot(join(p, 'bundle/manifests')));
    expect(files.filter((f) => f.startsWith(`${service.metadata.name}_`) || /webhookconfiguration/.test(f))).toEqual([]);
    // cert-manager's objects are left out, and so is its Secret volume: OLM mounts its own serving
    // certificate at the path the manager reads (--webhook-cert-path), so no mount may clash with it.
    expect(out.stderr).toMatch(/note: Deployment webhook-operator-controller-manager: volume \S+ \(Secret webhook-server-cert, which the bundle does not ship\) is left out: OLM mounts the webhook serving certificate at \/tmp\/k8s-webhook-server\/serving-certs itself/);
    expect(out.stderr).toMatch(/note: Issuer webhook-operator-selfsigned-issuer is left out of the bundle/);
    const pod = csv.spec.install.spec.deployments[0].spec.template.spec;
    expect(JSON.stringify(pod.volumes ?? [])).not.toContain('webhook-server-cert');
    expect(pod.containers.flatMap((c: Obj) => c.volumeMounts ?? []).map((m: Obj) => m.mountPath)).not.toContain('/tmp/k8s-webhook-server/serving-certs');
    expect(pod.containers[0].args).toContain('--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs');
    // Samples: v1beta1's is the scaffold's (`spec:` with a TODO only); its example gets a spec from the schema.
    const examples = JSON.parse(csv.metadata.annotations['alm-examples']) as Obj[];
    expect(examples.map((e) => e.apiVersion)).toEqual(['cache.example.com/v1alpha1', 'cache.example.com/v1beta1']);
    expect(examples[0]!.spec).toEqual({ size: 3, containerPort: 11211 }); // the filled-in sample, as written
    expect(examples[1]!.spec).toEqual({}); // v1beta1's Spec has no required or defaulted field
    expect(out.stderr).toMatch(/warning: the Memcached sample memcached-sample has no spec; its alm-example uses \{\} \(the schema's defaults and required fields\)/);
    const r = await opgen(p, 'bundle', 'validate');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(oracleErrors(oracle(join(p, 'bundle')))).toEqual([]);
  });

  it('bundle validate refuses a Deployment that mounts a Secret or reads a ConfigMap nothing provides; optional ones pass', async () => {
    const csvFile = join(p, 'bundle/manifests/webhook-operator.clusterserviceversion.yaml');
    const original = readFileSync(csvFile, 'utf8');
    try {
      const csv = parse(original) as Obj;
      const pod = csv.spec.install.spec.deployments[0].spec.template.spec;
      pod.volumes = [...(pod.volumes ?? []), { name: 'cert', secret: { secretName: 'webhook-server-cert' } }, { name: 'extra', configMap: { name: 'settings', optional: true } }];
      pod.containers[0].envFrom = [{ configMapRef: { name: 'tuning' } }];
      writeFileSync(csvFile, stringify(csv));
      const r = await opgen(p, 'bundle', 'validate');
      expect(r.code).toBe(1);
      const at = pod.volumes.length - 2;
      expect(r.stderr.trimEnd().split('\n')).toEqual([
        `bundle/manifests/webhook-operator.clusterserviceversion.yaml: error: spec.install.spec.deployments[0].spec.template.spec.volumes[${at}]: Deployment webhook-operator-controller-manager mounts Secret webhook-server-cert, which neither the bundle nor OLM provides: the pod would never start (ship the Secret in manifests/, or mark it optional: true; for webhook certificates drop the volume: OLM mounts its own at /tmp/k8s-webhook-server/serving-certs (tls.crt, tls.key))`,
        'bundle/manifests/webhook-operator.clusterserviceversion.yaml: error: spec.install.spec.deployments[0].spec.template.spec.containers[manager].envFrom: Deployment webhook-operator-controller-manager reads ConfigMap tuning, which neither the bundle nor OLM provides: the pod would never start (ship the ConfigMap in manifests/, or mark it optional: true)',
      ]);
    } finally {
      writeFileSync(csvFile, original);
    }
  });
});

describe('a sample without a spec (the scaffold\'s `spec:` with only a TODO)', () => {
  it('becomes an alm-example whose spec holds the required fields (at their minimum), with a warning; both validators pass', async () => {
    const p = await scaffoldTutorial(root.dir, 'nospec-operator');
    const sample = join(p, 'config/samples/cache_v1alpha1_memcached.yaml');
    writeFileSync(sample, readFileSync(sample, 'utf8').replace(/\nspec:\n[\s\S]*$/, '\nspec:\n  # TODO(user): Add fields here\n'));
    const out = await opgenOk(p, 'generate', 'bundle', '--version', '0.1.0');
    const csv = readYaml<Obj>(join(p, 'bundle/manifests/nospec-operator.clusterserviceversion.yaml'));
    const examples = JSON.parse(csv.metadata.annotations['alm-examples']) as Obj[];
    // containerPort is required with Minimum=1; size, image and network are optional and have no default.
    expect(examples.map((e) => e.spec)).toEqual([{ containerPort: 1 }]);
    expect(out.stderr).toContain('warning: the Memcached sample memcached-sample has no spec; its alm-example uses {"containerPort":1} (the schema\'s defaults and required fields): fill in the sample in config/samples');
    const r = await opgen(p, 'bundle', 'validate');
    expect(r.code, r.stderr).toBe(0);
    expect(oracleErrors(oracle(join(p, 'bundle')))).toEqual([]);
  }, 120_000);
});

describe('a namespace-scoped project (init --namespaced)', () => {
  let p: string;
  beforeAll(async () => {
    p = await scaffoldTutorial(root.dir, 'namespaced-operator', ['--namespaced']);
    await opgenOk(p, 'generate', 'bundle', '--version', '0.1.0');
  }, 300_000);

  it('offers OwnNamespace, not AllNamespaces, grants its Roles as permissions, and both validators pass', async () => {
    const base = readYaml<Obj>(join(p, 'config/manifests/bases/namespaced-operator.clusterserviceversion.yaml'));
    const modes = Object.fromEntries(base.spec.installModes.map((m: Obj) => [m.type, m.supported]));
    expect(modes).toEqual({ OwnNamespace: true, SingleNamespace: false, MultiNamespace: false, AllNamespaces: false });
    const csv = readYaml<Obj>(join(p, 'bundle/manifests/namespaced-operator.clusterserviceversion.yaml'));
    expect(csv.spec.installModes).toEqual(base.spec.installModes);
    // The manager's Role (from the markers' namespace=) is a namespaced permission, as the watched namespace is its own.
    const managerRole = readYaml<Obj>(join(p, 'config/rbac/role.yaml'));
    expect(managerRole.kind).toBe('Role');
    expect(csv.spec.install.spec.permissions[0].rules).toEqual(expect.arrayContaining(managerRole.rules));
    // WATCH_NAMESPACE comes from olm.targetNamespaces, the only way OLM (v0 and v1) hands the watched namespace to the pod.
    const env = csv.spec.install.spec.deployments[0].spec.template.spec.containers.flatMap((c: Obj) => c.env ?? []);
    expect(env.find((e: Obj) => e.name === 'WATCH_NAMESPACE')).toEqual({ name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['olm.targetNamespaces']" } } });
    const r = await opgen(p, 'bundle', 'validate');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(oracleErrors(oracle(join(p, 'bundle')))).toEqual([]);
  });
});
