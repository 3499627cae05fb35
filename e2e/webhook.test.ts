// Webhooks from the packed tarballs: init, create api (v1 and v1beta1), `create webhook` with defaulting,
// validation and conversion, install, type-check and build, generate, render the cert-manager wiring with
// kubectl kustomize, run the generated project's own tests (webhook tests included) and run the built
// manager against a real API server, which calls its webhooks (conversion included).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type Options } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, groupVersion } from '@opgen/runtime';
import { startTestEnv } from '@opgen/runtime/envtest';
import { parseAllDocuments } from 'yaml';
import { freePort, packPackages, unpackCli, waitFor } from './helpers.js';

const STEP = 600_000;

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  webhooks?: Array<{ name: string; clientConfig: { service?: { name: string; namespace: string; path: string } } }>;
}

describe('webhooks end to end (packed tarballs)', () => {
  let work: string;
  let project: string;
  let tarballs: { opgen: string; runtime: string };
  let packedCli: string;

  const run = (file: string, args: string[], options: Pick<Options, 'env' | 'extendEnv'> = {}) =>
    execa(file, args, { cwd: project, reject: false, all: true, env: { ...process.env, OPGEN_DEBUG: '1' }, ...options });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'opgen-e2e-webhook-'));
    tarballs = await packPackages(work);
    packedCli = await unpackCli(tarballs.opgen, work);
    project = join(work, 'memcached-operator');
    mkdirSync(project);
  }, STEP);

  afterAll(() => {
    if (work && process.env.OPGEN_E2E_KEEP !== '1') rmSync(work, { recursive: true, force: true });
  });

  it('init, create api v1 + v1beta1, create webhook with all three kinds', async () => {
    const steps = [
      ['init', '--domain', 'example.com', '--skip-install'],
      ['create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached'],
      // A second version of a kind with a controller: resource only, without --controller=false.
      ['create', 'api', '--group', 'cache', '--version', 'v1beta1', '--kind', 'Memcached'],
      ['create', 'webhook', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--defaulting', '--programmatic-validation', '--conversion', '--spoke', 'v1beta1'],
    ];
    for (const args of steps) {
      const r = await run(process.execPath, [packedCli, ...args]);
      expect(r.exitCode, `opgen ${args.join(' ')}\n${r.all}`).toBe(0);
    }
    // Give the types a field and the webhooks something to do, as a user would, so the tests below see
    // defaulting, a denial and a field that only v1beta1 names.
    const types = (version: string) => join(project, `src/api/${version}/memcached-types.ts`);
    writeFileSync(types('v1'), readFileSync(types('v1'), 'utf8').replace('  foo?: string;\n', '  foo?: string;\n  /** replicas of memcached */\n  size?: number;\n'));
    writeFileSync(types('v1beta1'), readFileSync(types('v1beta1'), 'utf8').replace('  foo?: string;\n', '  foo?: string;\n  /** replicas of memcached */\n  replicas?: number;\n'));
    const edit = (path: string, from: string, to: string) => {
      const text = readFileSync(join(project, path), 'utf8');
      expect(text, path).toContain(from);
      writeFileSync(join(project, path), text.replace(from, to));
    };
    edit('src/webhook/v1/memcached-defaulter.ts', '    void obj;\n', '    obj.spec ??= {};\n    obj.spec.size ??= 1;\n');
    edit('src/webhook/v1/memcached-validator.ts', "import { type AdmissionRequest,", "import { denied, type AdmissionRequest,");
    edit('src/webhook/v1/memcached-validator.ts', '    // TODO(user): fill in your validation logic upon object creation.\n    void obj;\n',
      "    if ((obj.spec?.size ?? 0) > 5) throw denied('spec.size must be at most 5');\n");
    edit('src/api/v1beta1/memcached-conversion.ts', '      spec: { ...spoke.spec },\n', '      spec: { foo: spoke.spec?.foo, size: spoke.spec?.replicas },\n');
    edit('src/api/v1beta1/memcached-conversion.ts', '      spec: { ...hub.spec },\n', '      spec: { foo: hub.spec?.foo, replicas: hub.spec?.size },\n');
    edit('src/api/v1beta1/memcached-conversion.test.ts', "spec: { foo: 'bar' },", "spec: { foo: 'bar', replicas: 3 },");
  }, STEP);

  it('installs the packed packages, type-checks and builds', async () => {
    const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarballs.opgen, tarballs.runtime]);
    expect(install.exitCode, install.all).toBe(0);
    const tsc = await run('npx', ['--no-install', 'tsc', '-p', 'tsconfig.json', '--noEmit']);
    expect(tsc.exitCode, tsc.all).toBe(0);
    const build = await run('npm', ['run', 'build']);
    expect(build.exitCode, build.all).toBe(0);
  }, STEP);

  it('opgen generate writes the webhook configurations and a two-version CRD stored as v1', async () => {
    const r = await run('npx', ['--no-install', 'opgen', 'generate']);
    expect(r.exitCode, r.all).toBe(0);
    const webhooks = parseAllDocuments(readFileSync(join(project, 'config/webhook/manifests.yaml'), 'utf8')).map((d) => d.toJS() as K8sObject);
    expect(webhooks.map((w) => `${w.kind}/${w.webhooks?.[0]?.name}/${w.webhooks?.[0]?.clientConfig.service?.path}`)).toEqual([
      'MutatingWebhookConfiguration/mmemcached-v1.kb.io//mutate-cache-example-com-v1-memcached',
      'ValidatingWebhookConfiguration/vmemcached-v1.kb.io//validate-cache-example-com-v1-memcached',
    ]);
    const crd = parseAllDocuments(readFileSync(join(project, 'config/crd/bases/cache.example.com_memcacheds.yaml'), 'utf8'))[0]?.toJS() as K8sObject;
    expect((crd.spec?.versions as Array<{ name: string; storage: boolean }>).map((v) => `${v.name}:${v.storage}`)).toEqual(['v1:true', 'v1beta1:false']);
  }, STEP);

  it('kubectl kustomize config/default renders the cert-manager wiring', async () => {
    const r = await run('kubectl', ['kustomize', 'config/default']);
    expect(r.exitCode, r.all).toBe(0);
    const objects = parseAllDocuments(String(r.stdout)).map((d) => d.toJS() as K8sObject);
    const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
    const prefix = 'memcached-operator';
    const ns = `${prefix}-system`;
    expect(find('Issuer', `${prefix}-selfsigned-issuer`)?.metadata.namespace).toBe(ns);
    expect(find('Certificate', `${prefix}-serving-cert`)?.spec).toEqual({
      dnsNames: [`${prefix}-webhook-service.${ns}.svc`, `${prefix}-webhook-service.${ns}.svc.cluster.local`],
      issuerRef: { kind: 'Issuer', name: `${prefix}-selfsigned-issuer` },
      secretName: 'webhook-server-cert',
    });
    expect((find('Certificate', `${prefix}-metrics-certs`)?.spec?.dnsNames as string[])[0]).toBe(`${prefix}-controller-manager-metrics-service.${ns}.svc`);
    const injectFrom = `${ns}/${prefix}-serving-cert`;
    for (const [kind, name] of [
      ['MutatingWebhookConfiguration', `${prefix}-mutating-webhook-configuration`],
      ['ValidatingWebhookConfiguration', `${prefix}-validating-webhook-configuration`],
      ['CustomResourceDefinition', 'memcacheds.cache.example.com'],
    ] as const) {
      const o = find(kind, name);
      expect(o?.metadata.annotations?.['cert-manager.io/inject-ca-from'], `${kind} ${name}`).toBe(injectFrom);
    }
    expect(find('MutatingWebhookConfiguration', `${prefix}-mutating-webhook-configuration`)?.webhooks?.[0]?.clientConfig.service).toEqual({
      name: `${prefix}-webhook-service`, namespace: ns, path: '/mutate-cache-example-com-v1-memcached',
    });
    expect((find('CustomResourceDefinition', 'memcacheds.cache.example.com')?.spec?.conversion as { webhook: { clientConfig: unknown } }).webhook.clientConfig).toEqual({
      service: { name: `${prefix}-webhook-service`, namespace: ns, path: '/convert' },
    });
    expect(find('Service', `${prefix}-webhook-service`)?.spec?.ports).toEqual([{ port: 443, protocol: 'TCP', targetPort: 9443 }]);
    const container = (find('Deployment', `${prefix}-controller-manager`)?.spec?.template as { spec: { containers: Array<{ args: string[] }> } }).spec.containers[0];
    expect(container?.args).toEqual(expect.arrayContaining(['--metrics-bind-address=:8443', '--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs', '--webhook-port=9443']));
  }, STEP);

  it("the generated project's tests pass: controller, defaulting and validating webhooks (envtest), conversion round trips (functions, and through the API server)", async () => {
    expect(process.env.KUBEBUILDER_ASSETS, 'set by test/global-setup.ts').toBeTruthy();
    const r = await run('npx', ['--no-install', 'vitest', 'run'], { env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    const out = String(r.all).replace(/\x1b\[[0-9;]*m/g, '');
    expect(r.exitCode, out).toBe(0);
    for (const file of ['memcached-controller.test.ts', 'memcached-defaulter.test.ts', 'memcached-validator.test.ts', 'src/api/v1beta1/memcached-conversion.test.ts', 'src/webhook/v1/memcached-conversion.test.ts']) expect(out).toContain(file);
    // The scaffolded round trips through the API server (v1beta1 -> v1 -> v1beta1 and back) ran and passed.
    expect(out).toMatch(/src\/webhook\/v1\/memcached-conversion\.test\.ts \(2 tests\)/);
    expect(out).toMatch(/Tests\s+7 passed \(7\)/);
  }, STEP);

  it('the built manager serves its webhooks to a real API server: defaults, denies, converts v1beta1 ⇄ v1', async () => {
    // The CRD as config/crd renders it (conversion by webhook), and the webhook configurations; the
    // manager, run outside a cluster, points both at itself with a certificate it makes.
    const crdDir = join(work, 'crds');
    mkdirSync(crdDir, { recursive: true });
    const crd = await run('kubectl', ['kustomize', 'config/crd']);
    expect(crd.exitCode, crd.all).toBe(0);
    writeFileSync(join(crdDir, 'crds.yaml'), String(crd.stdout));
    const env = await startTestEnv({ crdPaths: [crdDir], webhookPaths: [join(project, 'config/webhook/manifests.yaml')] });
    try {
      const probePort = await freePort();
      const webhookPort = await freePort();
      const metricsPort = await freePort();
      const args = [`--health-probe-bind-address=127.0.0.1:${probePort}`, `--webhook-port=${webhookPort}`, `--metrics-bind-address=127.0.0.1:${metricsPort}`];
      const manager = execa(process.execPath, ['dist/main.js', ...args], {
        cwd: project, reject: false, all: true, env: { ...process.env, KUBECONFIG: env.kubeconfigPath },
      });
      let log = '';
      manager.all?.on('data', (chunk: Buffer) => void (log += chunk.toString()));
      await waitFor(async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`).catch(() => undefined))?.ok === true, () => log);

      const client = createClient(env.kubeConfig);
      const v1 = groupVersion('cache.example.com', 'v1').kind<Memcached>('Memcached', { plural: 'memcacheds' });
      const v1beta1 = groupVersion('cache.example.com', 'v1beta1').kind<Memcached>('Memcached', { plural: 'memcacheds' });
      const metadata = (name: string) => ({ name, namespace: 'default' });

      // Defaulting (v1): size filled in. The configurations may take a moment to be repointed.
      let defaulted: Memcached | undefined;
      await waitFor(async () => {
        defaulted = await client.create(v1, { apiVersion: v1.apiVersion, kind: 'Memcached', metadata: metadata('defaulted'), spec: {} }).catch(() => undefined);
        return defaulted !== undefined;
      }, () => log);
      expect(defaulted?.spec?.size).toBe(1);

      // Validation: the denial's message reaches the client.
      const refused = await client.create(v1, { apiVersion: v1.apiVersion, kind: 'Memcached', metadata: metadata('too-big'), spec: { size: 9 } }).catch((e: unknown) => e);
      expect(String(refused)).toContain('spec.size must be at most 5');

      // Conversion: create as v1beta1 (replicas), read as v1 (size) and back, list in both versions.
      await client.create(v1beta1, { apiVersion: v1beta1.apiVersion, kind: 'Memcached', metadata: metadata('converted'), spec: { foo: 'x', replicas: 3 } });
      const asV1 = await client.get(v1, metadata('converted'));
      expect(asV1.apiVersion).toBe('cache.example.com/v1');
      expect(asV1.spec).toEqual({ foo: 'x', size: 3 });
      const asV1beta1 = await client.get(v1beta1, metadata('converted'));
      expect(asV1beta1.spec).toEqual({ foo: 'x', replicas: 3 });
      expect((await client.list(v1beta1, { namespace: 'default' })).items.map((m) => m.spec?.replicas).sort()).toEqual([1, 3]);

      // Secure metrics by default (--metrics-secure=true): HTTPS, and a caller without a token is refused.
      expect(await metricsStatus(metricsPort)).toBe(401);

      manager.kill('SIGTERM');
      const r = await manager;
      expect(r.exitCode, log).toBe(0);
    } finally {
      await env.stop();
    }
  }, STEP);
});

/** The status of GET https://127.0.0.1:<port>/metrics without credentials (the certificate is self-signed). */
function metricsStatus(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/metrics', rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject).end();
  });
}

interface Memcached {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  spec?: { foo?: string; size?: number; replicas?: number };
}
