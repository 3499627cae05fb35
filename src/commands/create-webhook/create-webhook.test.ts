// `opgen create webhook` on scaffolded projects: files, markers, PROJECT, idempotent kustomize wiring, every
// bad input as one line with nothing written, and `kubectl kustomize config/default` rendering a consistent
// cert-manager set (real kubectl, after a real `opgen generate`).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { parseAllDocuments } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { opgen as opgenIn, opgenOk, type CliResult } from '../../testdata/cli.js';
import { parseProject } from '../../project/index.js';
import { snapshot as files, tempDir } from '../../testdata/files.js';
import { memcachedProject as memcachedProjectIn } from '../../testdata/memcached-project.js';


let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('opgen-webhook-', 'demo')));
afterEach(() => cleanup());

const opgen = (...argv: string[]): Promise<CliResult> => opgenIn(dir, ...argv);

const ok = (...argv: string[]): Promise<CliResult> => opgenOk(dir, ...argv);

const read = (path: string): string => readFileSync(join(dir, path), 'utf8');

const memcachedProject = (): Promise<void> => memcachedProjectIn(dir);

const webhook = (...flags: string[]): Promise<CliResult> => opgen('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', ...flags);

describe('opgen create webhook', () => {
  it('scaffolds defaulting, validating and conversion webhooks and records them', async () => {
    await memcachedProject();
    const r = await webhook('--defaulting', '--programmatic-validation', '--conversion', '--spoke', 'v1beta1');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const f of [
      'src/webhook/v1/memcached-defaulter.ts', 'src/webhook/v1/memcached-defaulter.test.ts',
      'src/webhook/v1/memcached-validator.ts', 'src/webhook/v1/memcached-validator.test.ts',
      'src/webhook/v1/memcached-conversion.ts', 'src/webhook/v1/memcached-conversion.test.ts',
      'src/api/v1beta1/memcached-conversion.ts', 'src/api/v1beta1/memcached-conversion.test.ts',
      'config/webhook/service.yaml', 'config/certmanager/certificate-webhook.yaml', 'config/certmanager/certificate-metrics.yaml',
      'config/certmanager/issuer.yaml', 'config/default/manager_webhook_patch.yaml', 'config/network-policy/allow-webhook-traffic.yaml',
      'config/crd/patches/webhook_in_memcacheds.yaml',
    ]) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }

    expect(read('src/webhook/v1/memcached-defaulter.ts')).toContain(
      '// +kubebuilder:webhook:path=/mutate-cache-example-com-v1-memcached,mutating=true,failurePolicy=fail,sideEffects=None,groups=cache.example.com,resources=memcacheds,verbs=create;update,versions=v1,name=mmemcached-v1.kb.io,admissionReviewVersions=v1',
    );
    expect(read('src/webhook/v1/memcached-defaulter.ts')).toContain("const path = '/mutate-cache-example-com-v1-memcached';\n  webhookFor(mgr, Memcached).withDefaulter(defaulter, { path })");
    expect(read('src/webhook/v1/memcached-validator.ts')).toContain(
      '// +kubebuilder:webhook:path=/validate-cache-example-com-v1-memcached,mutating=false,failurePolicy=fail,sideEffects=None,groups=cache.example.com,resources=memcacheds,verbs=create;update,versions=v1,name=vmemcached-v1.kb.io,admissionReviewVersions=v1',
    );
    expect(read('src/webhook/v1/memcached-conversion.ts')).toContain("import { memcachedV1beta1Conversion } from '../../api/v1beta1/memcached-conversion.js';");
    expect(read('src/webhook/v1/memcached-conversion.ts')).toContain('v1beta1: memcachedV1beta1Conversion,');
    expect(read('src/api/v1beta1/memcached-conversion.ts')).toContain("import type { Memcached as MemcachedHub } from '../v1/memcached-types.js';");

    // The hub is the storage version; the spoke is untouched.
    expect(read('src/api/v1/memcached-types.ts')).toMatch(/\n \* \+kubebuilder:storageversion\n \*\/\nexport interface Memcached \{/);
    expect(read('src/api/v1beta1/memcached-types.ts')).not.toContain('storageversion');

    // The test object closes as Prettier writes it (`    });`), not with a stray `\n);` after the partial.
    for (const f of ['src/webhook/v1/memcached-defaulter.test.ts', 'src/webhook/v1/memcached-validator.test.ts']) {
      expect(read(f), f).toMatch(/\n {6}},\n {4}}\);\n/);
      expect(read(f), f).not.toMatch(/^\);/m);
    }

    const main = read('src/main.ts');
    expect(main).toContain("'metrics-secure': { type: 'string', default: 'true' },");
    expect(main).toContain("metricsSecure: trueOrFalse('metrics-secure', flags['metrics-secure']),");
    expect(main).toContain("webhook: { port: Number(flags['webhook-port']), certDir: flags['webhook-cert-path'] || undefined },");
    for (const role of ['Defaulter', 'Validator', 'Conversion']) {
      expect(main).toContain(`import { setupMemcached${role}WithManager } from './webhook/v1/memcached-${role.toLowerCase()}.js';`);
      expect(main).toMatch(new RegExp(`^    setupMemcached${role}WithManager\\(mgr\\);$`, 'm'));
    }

    expect(read('config/crd/kustomization.yaml')).toContain('- path: patches/webhook_in_memcacheds.yaml');
    expect(read('config/crd/kustomization.yaml')).toMatch(/^configurations:\n- kustomizeconfig\.yaml$/m);
    expect(read('config/webhook/kustomization.yaml')).toContain('- manifests.yaml');
    expect(read('config/network-policy/kustomization.yaml')).toContain('- allow-webhook-traffic.yaml');

    const resource = parseProject(read('PROJECT')).resources.find((x) => x.version === 'v1');
    expect(resource?.webhooks).toEqual({ defaulting: true, validation: true, conversion: true, spoke: ['v1beta1'], webhookVersion: 'v1' });
    expect(read('PROJECT')).toMatch(/ {2}webhooks:\n {4}conversion: true\n {4}defaulting: true\n {4}spoke:\n {4}- v1beta1\n {4}validation: true\n {4}webhookVersion: v1\n/);
  });

  it('adds a second webhook kind later without duplicating the shared wiring', async () => {
    await memcachedProject();
    await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting');
    const after1 = read('config/default/kustomization.yaml');
    await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--programmatic-validation');
    const kustomization = read('config/default/kustomization.yaml');
    const count = (text: string, what: string): number => text.split(what).length - 1;
    expect(count(kustomization, '- ../webhook\n')).toBe(1);
    expect(count(kustomization, '- ../certmanager\n')).toBe(1);
    expect(count(kustomization, '- path: manager_webhook_patch.yaml')).toBe(1);
    expect(count(kustomization, '\nreplacements:\n')).toBe(1);
    expect(count(kustomization, 'kind: MutatingWebhookConfiguration')).toBe(2);
    expect(count(kustomization, 'kind: ValidatingWebhookConfiguration')).toBe(2);
    expect(kustomization.startsWith(after1.slice(0, after1.indexOf('# +opgen:scaffold:replacements')))).toBe(true);
    expect(count(read('config/webhook/kustomization.yaml'), '- manifests.yaml')).toBe(1);
    expect(parseProject(read('PROJECT')).resources[0]?.webhooks).toEqual({ defaulting: true, validation: true, webhookVersion: 'v1' });
  });

  it('re-scaffolds an existing webhook with --force, overwriting its files', async () => {
    await memcachedProject();
    await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting');
    writeFileSync(join(dir, 'src/webhook/v1/memcached-defaulter.ts'), '// mine\n');
    await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting', '--force');
    expect(read('src/webhook/v1/memcached-defaulter.ts')).toContain('export class MemcachedDefaulter');
  });

  it('adds a spoke to an existing conversion with --force: its files, and the hub converting both', async () => {
    await memcachedProject();
    await webhook('--conversion', '--spoke', 'v1beta1');
    await ok('create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--controller=false');
    const spokeBefore = read('src/api/v1beta1/memcached-conversion.ts');
    writeFileSync(join(dir, 'src/api/v1beta1/memcached-conversion.ts'), `${spokeBefore}// mine\n`);
    await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--conversion', '--spoke', 'v1alpha1', '--force');
    expect(read('src/api/v1beta1/memcached-conversion.ts')).toBe(`${spokeBefore}// mine\n`);
    expect(read('src/api/v1alpha1/memcached-conversion.ts')).toContain('export const memcachedV1alpha1Conversion');
    const hub = read('src/webhook/v1/memcached-conversion.ts');
    expect(hub).toContain('        v1beta1: memcachedV1beta1Conversion,\n        v1alpha1: memcachedV1alpha1Conversion,\n');
    expect(parseProject(read('PROJECT')).resources[0]?.webhooks?.spoke).toEqual(['v1beta1', 'v1alpha1']);
    expect(read('src/api/v1/memcached-types.ts').split('+kubebuilder:storageversion')).toHaveLength(2);
  });

  it('lists kubebuilder\'s flags in --help', async () => {
    const r = await opgen('create', 'webhook', '--help');
    expect(r.code).toBe(0);
    for (const f of ['--group <group>', '--version <version>', '--kind <kind>', '--defaulting', '--programmatic-validation', '--conversion', '--spoke <versions>', '--defaulting-path <path>', '--validation-path <path>', '--force', '--dry-run']) {
      expect(r.stdout).toContain(f);
    }
  });

  it('uses custom webhook paths in the marker and the registration, and records them', async () => {
    await memcachedProject();
    await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting', '--defaulting-path', '/custom-mutate');
    expect(read('src/webhook/v1/memcached-defaulter.ts')).toContain('+kubebuilder:webhook:path=/custom-mutate,mutating=true');
    expect(read('src/webhook/v1/memcached-defaulter.ts')).toContain("const path = '/custom-mutate';");
    expect(parseProject(read('PROJECT')).resources[0]?.webhooks?.defaultingPath).toBe('/custom-mutate');
  });

  it('scaffolds a webhook for a core kind (--group core --version v1 --kind Pod)', async () => {
    await ok('init', '--domain', 'example.com', '--skip-install');
    const r = await ok('create', 'webhook', '--group', 'core', '--version', 'v1', '--kind', 'Pod', '--defaulting');
    expect(r.stderr).toMatch(/^warning: a webhook on the built-in Pod/);
    const module = read('src/webhook/v1/pod-defaulter.ts');
    expect(module).toContain("import { type AdmissionRequest, type Defaulter, type WebhookServer, webhookFor, Pod } from '@opgen/runtime';");
    expect(module).toContain('+kubebuilder:webhook:path=/mutate--v1-pod,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=pods,verbs=create;update,versions=v1,name=mpod-v1.kb.io,admissionReviewVersions=v1');
    expect(parseProject(read('PROJECT')).resources).toEqual([
      { core: true, group: 'core', domain: '', version: 'v1', kind: 'Pod', webhooks: { defaulting: true, webhookVersion: 'v1' } },
    ]);
    // A built-in kind the runtime does not declare gets a local declaration.
    await ok('create', 'webhook', '--group', 'networking', '--version', 'v1', '--kind', 'Ingress', '--programmatic-validation');
    const ingress = read('src/webhook/v1/ingress-validator.ts');
    // Laid out as prettier (printWidth 120) lays out the 131-character line.
    expect(ingress).toContain("export const Ingress = groupVersion('networking.k8s.io', 'v1').kind<Ingress>('Ingress', {\n  plural: 'ingresses',\n  namespaced: true,\n});");
    expect(ingress).toContain('path=/validate-networking-k8s-io-v1-ingress,');
    await ok('create', 'webhook', '--group', 'core', '--version', 'v1', '--kind', 'Node', '--defaulting');
    expect(read('src/webhook/v1/node-defaulter.ts')).toContain("groupVersion('', 'v1').kind<Node>('Node', { plural: 'nodes', namespaced: false });");
    expect(read('src/webhook/v1/node-defaulter.test.ts')).toContain("metadata: { name },");
  });

  it('puts webhooks under src/webhook/<group>/<version> in a multigroup project', async () => {
    await ok('init', '--domain', 'example.com', '--skip-install');
    await ok('edit', '--multigroup');
    await ok('create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate');
    await ok('create', 'webhook', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate', '--defaulting');
    expect(read('src/webhook/ship/v1/frigate-defaulter.ts')).toContain("import { Frigate } from '../../../api/ship/v1/frigate-types.js';");
    expect(read('src/webhook/ship/v1/frigate-defaulter.test.ts')).toContain("import { useTestEnv } from '../../../../test/envtest.js';");
    expect(read('src/main.ts')).toContain("from './webhook/ship/v1/frigate-defaulter.js';");
  });

  it('writes nothing with --dry-run and lists what would change', async () => {
    await memcachedProject();
    const before = snapshot();
    const r = await webhook('--defaulting', '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual(expect.arrayContaining(['UPDATE PROJECT', 'CREATE src/webhook/v1/memcached-defaulter.ts', 'UPDATE src/main.ts', 'dry run: nothing was written']));
    expect(snapshot()).toEqual(before);
  });

  describe('bad input: one line, exit 1, nothing written', () => {
    const cases: Array<[string, string[], RegExp, ((d: string) => void)?]> = [
      ['no webhook kind', [], /^--defaulting: error: nothing to create: no webhook kind given \(pass at least one of --defaulting, --programmatic-validation and --conversion\)$/],
      ['API not in PROJECT', ['--kind', 'Other', '--defaulting'], /^--kind: error: no API cache\/v1, Kind=Other in PROJECT \(run `opgen create api --group cache --version v1 --kind Other` first\)$/],
      ['spoke that is the hub', ['--conversion', '--spoke', 'v1'], /^--spoke: error: spoke version v1 is the hub \(--version\)/],
      ['spoke that is not a version of the kind', ['--conversion', '--spoke', 'v2'], /^--spoke: error: spoke version v2 is not a version of cache, Kind=Memcached in PROJECT \(known versions besides the hub: v1beta1\)$/],
      ['malformed spoke', ['--conversion', '--spoke', 'v1beta1,,'], /^--spoke: error: spoke version "" is empty/],
      ['duplicate spoke', ['--conversion', '--spoke', 'v1beta1,v1beta1'], /^--spoke: error: duplicate spoke version v1beta1$/],
      ['conversion without spokes', ['--conversion'], /^--spoke: error: --conversion needs the versions to convert/],
      ['spoke without conversion', ['--defaulting', '--spoke', 'v1beta1'], /^--spoke: error: --spoke can only be used with --conversion/],
      ['defaulting path without defaulting', ['--programmatic-validation', '--defaulting-path', '/x'], /^--defaulting-path: error: --defaulting-path can only be used with --defaulting/],
      ['bad path', ['--defaulting', '--defaulting-path', 'mutate'], /^--defaulting-path: error: invalid path "mutate"/],
      ['conversion of a core kind', ['--group', 'core', '--kind', 'Pod', '--conversion', '--spoke', 'v1beta1'], /^--conversion: error: Pod is a built-in kind/],
      ['webhook already scaffolded', ['--defaulting'], /^--defaulting: error: a defaulting webhook for cache\/v1, Kind=Memcached is already scaffolded \(pass --force/, undefined],
      ['missing insertion point', ['--defaulting'], /^src\/main\.ts: error: insertion point "\/\/ \+opgen:scaffold:webhooks" is missing/, (d) => {
        writeFileSync(join(d, 'src/main.ts'), readFileSync(join(d, 'src/main.ts'), 'utf8').replace('// +opgen:scaffold:webhooks', ''));
      }],
    ];
    it.each(cases)('%s', async (name, flags, line, prepare) => {
      await memcachedProject();
      if (name === 'webhook already scaffolded') await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting');
      prepare?.(dir);
      const before = snapshot();
      const r = await webhook(...flags);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr.trimEnd()).toMatch(line);
      expect(snapshot()).toEqual(before);
    });

    it('outside a project', async () => {
      const r = await webhook('--defaulting');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^PROJECT: error: no PROJECT file in this directory/);
      expect(readdirSync(dir)).toEqual([]);
    });
  });
});

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  webhooks?: Array<{ clientConfig: { service?: { name: string; namespace: string; path: string } } }>;
}

/** `kubectl kustomize <dir>` as objects. */
async function kustomize(path: string): Promise<K8sObject[]> {
  const r = await execa('kubectl', ['kustomize', path], { cwd: dir, reject: false });
  expect(r.exitCode, String(r.stderr)).toBe(0);
  return parseAllDocuments(String(r.stdout)).map((d) => d.toJS() as K8sObject);
}

/** Every cross-reference of the webhook and cert-manager wiring resolves to an object in the set. */
function expectConsistent(objects: K8sObject[]): void {
  const find = (kind: string, name: string, namespace?: string): K8sObject | undefined =>
    objects.find((o) => o.kind === kind && o.metadata.name === name && (namespace === undefined || o.metadata.namespace === namespace));
  const certificates = objects.filter((o) => o.kind === 'Certificate');
  expect(certificates.map((c) => c.metadata.name).sort()).toEqual(['demo-metrics-certs', 'demo-serving-cert']);
  const serviceFor: Record<string, string> = { 'demo-serving-cert': 'demo-webhook-service', 'demo-metrics-certs': 'demo-controller-manager-metrics-service' };
  for (const cert of certificates) {
    const spec = cert.spec as { dnsNames: string[]; issuerRef: { name: string }; secretName: string };
    const service = find('Service', serviceFor[cert.metadata.name] ?? '');
    expect(service, `Service for ${cert.metadata.name}`).toBeDefined();
    const host = `${service?.metadata.name}.${service?.metadata.namespace}.svc`;
    expect(spec.dnsNames).toEqual([host, `${host}.cluster.local`]);
    expect(find('Issuer', spec.issuerRef.name, cert.metadata.namespace), `Issuer ${spec.issuerRef.name}`).toBeDefined();
  }
  const servingCert = find('Certificate', 'demo-serving-cert');
  const injectFrom = `${servingCert?.metadata.namespace}/${servingCert?.metadata.name}`;
  const configurations = objects.filter((o) => o.kind === 'MutatingWebhookConfiguration' || o.kind === 'ValidatingWebhookConfiguration');
  const conversionCrds = objects.filter((o) => o.kind === 'CustomResourceDefinition' && (o.spec?.conversion as { strategy?: string } | undefined)?.strategy === 'Webhook');
  for (const o of [...configurations, ...conversionCrds]) {
    expect(o.metadata.annotations?.['cert-manager.io/inject-ca-from'], `${o.kind} ${o.metadata.name}`).toBe(injectFrom);
  }
  const services = [
    ...configurations.flatMap((c) => (c.webhooks ?? []).map((w) => w.clientConfig.service)),
    ...conversionCrds.map((c) => (c.spec?.conversion as { webhook: { clientConfig: { service: { name: string; namespace: string } } } }).webhook.clientConfig.service),
  ];
  for (const s of services) expect(find('Service', s?.name ?? '', s?.namespace), `Service ${s?.namespace}/${s?.name}`).toBeDefined();
  const deployment = find('Deployment', 'demo-controller-manager');
  const pod = deployment?.spec?.template as { spec: { volumes: Array<{ secret?: { secretName: string } }>; containers: Array<{ args: string[]; ports: Array<{ containerPort: number }> }> } };
  expect(pod.spec.volumes.map((v) => v.secret?.secretName)).toContain((servingCert?.spec as { secretName: string }).secretName);
  expect(pod.spec.containers[0]?.args).toEqual(expect.arrayContaining(['--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs', '--webhook-port=9443']));
  const webhookService = find('Service', 'demo-webhook-service');
  const port = (webhookService?.spec as { ports: Array<{ port: number; targetPort: number }> }).ports[0];
  expect(port).toMatchObject({ port: 443, targetPort: 9443 });
  expect(pod.spec.containers[0]?.ports.map((p) => p.containerPort)).toContain(9443);
}

describe('kubectl kustomize config/default after create webhook + generate', () => {
  it('renders a consistent cert-manager set for all three webhook kinds', async () => {
    await memcachedProject();
    await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting', '--programmatic-validation', '--conversion', '--spoke', 'v1beta1');
    await ok('generate');
    const objects = await kustomize('config/default');
    expect(objects.filter((o) => o.kind.endsWith('WebhookConfiguration')).map((o) => o.kind).sort()).toEqual(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);
    const crd = objects.find((o) => o.kind === 'CustomResourceDefinition');
    expect(crd?.spec?.conversion).toEqual({
      strategy: 'Webhook',
      webhook: { clientConfig: { service: { name: 'demo-webhook-service', namespace: 'demo-system', path: '/convert' } }, conversionReviewVersions: ['v1'] },
    });
    expect((crd?.spec?.versions as Array<{ name: string; storage: boolean }>).map((v) => [v.name, v.storage])).toEqual([['v1', true], ['v1beta1', false]]);
    expectConsistent(objects);
  });

  it('renders with only a defaulting webhook, and with only a conversion webhook', async () => {
    await ok('init', '--domain', 'example.com', '--skip-install');
    await ok('create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached');
    await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting');
    await ok('generate');
    const defaulting = await kustomize('config/default');
    expect(defaulting.filter((o) => o.kind.endsWith('WebhookConfiguration')).map((o) => o.kind)).toEqual(['MutatingWebhookConfiguration']);
    expectConsistent(defaulting);

    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    await memcachedProject();
    await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--conversion', '--spoke', 'v1beta1');
    await ok('generate');
    const conversion = await kustomize('config/default');
    expect(conversion.filter((o) => o.kind.endsWith('WebhookConfiguration'))).toEqual([]);
    expectConsistent(conversion);
  });

  it('config/network-policy allows the webhook port; config/prometheus scrapes HTTPS with the bearer token', async () => {
    await ok('init', '--domain', 'example.com', '--skip-install');
    await ok('create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached');
    await ok('create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting');
    await ok('generate');
    const policies = await kustomize('config/network-policy');
    expect(policies.map((p) => p.metadata.name).sort()).toEqual(['allow-metrics-traffic', 'allow-webhook-traffic']);
    const webhookPolicy = policies.find((p) => p.metadata.name === 'allow-webhook-traffic');
    expect(webhookPolicy?.spec?.ingress).toEqual([{ ports: [{ port: 9443, protocol: 'TCP' }] }]);

    const [monitor] = await kustomize('config/prometheus');
    const endpoint = (monitor?.spec?.endpoints as Array<Record<string, unknown>>)[0];
    expect(endpoint).toMatchObject({ port: 'https', scheme: 'https', bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token' });
    const metricsService = (await kustomize('config/default')).find((o) => o.metadata.name === 'demo-controller-manager-metrics-service');
    expect((metricsService?.spec as { ports: Array<{ name: string }> }).ports[0]?.name).toBe('https');

    // [PROMETHEUS-WITH-CERTS] switched on: the monitor verifies the cert-manager certificate for the Service's name.
    const kustomization = read('config/prometheus/kustomization.yaml');
    writeFileSync(join(dir, 'config/prometheus/kustomization.yaml'), kustomization.replace('#patches:\n#- path: monitor_tls_patch.yaml\n#  target:\n#    kind: ServiceMonitor', 'patches:\n- path: monitor_tls_patch.yaml\n  target:\n    kind: ServiceMonitor'));
    const [verified] = await kustomize('config/prometheus');
    const tls = ((verified?.spec?.endpoints as Array<{ tlsConfig: Record<string, unknown> }>)[0])?.tlsConfig;
    expect(tls).toMatchObject({ insecureSkipVerify: false, serverName: 'demo-controller-manager-metrics-service.demo-system.svc', ca: { secret: { name: 'metrics-server-cert', key: 'ca.crt' } } });

    // [METRICS-WITH-CERTS] switched on: the manager mounts the metrics Secret.
    const defaults = read('config/default/kustomization.yaml');
    writeFileSync(join(dir, 'config/default/kustomization.yaml'), defaults.replace('#- path: cert_metrics_manager_patch.yaml\n#  target:\n#    kind: Deployment', '- path: cert_metrics_manager_patch.yaml\n  target:\n    kind: Deployment'));
    const withCerts = await kustomize('config/default');
    const deployment = withCerts.find((o) => o.kind === 'Deployment');
    const podSpec = (deployment?.spec?.template as { spec: { volumes: Array<{ secret: { secretName: string } }>; containers: Array<{ args: string[] }> } }).spec;
    expect(podSpec.volumes.map((v) => v.secret.secretName).sort()).toEqual(['metrics-server-cert', 'webhook-server-cert']);
    expect(podSpec.containers[0]?.args).toContain('--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs');
    expectConsistent(withCerts);
  });
});

function snapshot(): Record<string, string> {
  return files(dir);
}
