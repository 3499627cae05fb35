// docs/tutorial.md, end to end, on a simulated cluster (kube-apiserver + kube-controller-manager +
// kube-scheduler + kwok), from the packed tarballs: every code block of the document runs in order
// (e2e/tutorial-runner.ts), and between them this test checks what the cluster did. The operator runs
// as a process with the environment's kubeconfig, as the tutorial tells a reader to run it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, Deployment, EventsV1Event, groupVersion, isNotFound, Pod, type Client, type Condition, type KubeObject } from '@opgen/runtime';
import { eventually, startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { admissionregistrationv1 } from '@opgen/runtime/kubernetes';
import { packPackages, unpackCli } from './helpers.js';
import { TutorialRunner } from './tutorial-runner.js';

const STEP = 600_000;
const Memcached = groupVersion('cache.example.com', 'v1alpha1').kind<KubeObject & {
  spec?: { size?: number }; status?: { conditions?: Condition[] };
}>('Memcached', { plural: 'memcacheds' });
const key = { namespace: 'default', name: 'memcached-sample' };
const podLabels = { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': 'memcached-sample' };

describe('docs/tutorial.md on a simulated cluster (packed tarballs)', () => {
  let work: string;
  let env: TestEnv;
  let client: Client;
  let tutorial: TutorialRunner;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'opgen-tutorial-'));
    const [tarballs, started] = await Promise.all([packPackages(work), startTestEnv({ simulatedCluster: true })]);
    env = started;
    client = createClient(env.kubeConfig);
    tutorial = new TutorialRunner({
      work, tarballs, cli: await unpackCli(tarballs.opgen, work),
      env: { KUBECONFIG: env.kubeconfigPath },
    });
  }, STEP);

  afterAll(async () => {
    for (const { process: p } of tutorial?.background ?? []) p.kill('SIGKILL');
    await env?.stop();
    if (work && process.env.OPGEN_E2E_KEEP !== '1') rmSync(work, { recursive: true, force: true });
  }, STEP);

  const memcached = () => client.get(Memcached, key);
  const deployment = () => client.get(Deployment, key);
  const pods = async () => (await client.list(Pod, { namespace: 'default', labelSelector: podLabels })).items as Array<KubeObject & {
    status?: { phase?: string; conditions?: Array<{ type: string; status: string }> };
  }>;
  const runningAndReady = (list: Awaited<ReturnType<typeof pods>>) =>
    list.filter((p) => p.status?.phase === 'Running' && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
  const operatorLog = () => tutorial.background.map((b) => b.output()).join('');

  it('the project is created, installs the packed tarballs, builds, passes its own tests, and generate --check is clean', async () => {
    await tutorial.runUntil('apply-sample').catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\n--- operator output:\n${operatorLog()}`);
    });
    const project = tutorial.projectDir;
    expect(project).toBe(join(work, 'memcached-operator'));
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules/@opgen/runtime/package.json'), 'utf8')) as { version: string };
    expect(pkg.version).toBeTruthy();
    const check = await execa('npx', ['--no-install', 'opgen', 'generate', '--check'], { cwd: project, reject: false, all: true });
    expect(check.exitCode, check.all).toBe(0);
    // The blocks up to here included `npm test`; the project's tests ran against envtest.
    expect(tutorial.blocks.some((b) => b.code.includes('npm test'))).toBe(true);
    expect(tutorial.background).toHaveLength(1); // the operator
  }, STEP);

  it('sample applied → a Deployment with the right replicas, image and controller owner reference', async () => {
    const cr = await memcached();
    const d = await deployment();
    expect(d.spec?.replicas).toBe(1);
    expect(d.spec?.template?.spec?.containers[0]?.image).toBe('memcached:1.6.26-alpine3.19');
    expect(d.spec?.template?.spec?.containers[0]?.ports?.[0]?.containerPort).toBe(11211);
    expect(d.metadata?.ownerReferences).toEqual([expect.objectContaining({
      apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached', name: 'memcached-sample', uid: cr.metadata?.uid, controller: true, blockOwnerDeletion: true,
    })]);
    expect(cr.metadata?.finalizers).toEqual(['cache.example.com/finalizer']);
  });

  it('pods Running → Available=True with observedGeneration', async () => {
    // The tutorial's `kubectl wait --for=condition=Available` already returned.
    expect(runningAndReady(await pods())).toHaveLength(1);
    const cr = await memcached();
    const available = cr.status?.conditions?.find((c) => c.type === 'Available');
    expect(available).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable', observedGeneration: cr.metadata?.generation });
    expect(cr.status?.conditions?.find((c) => c.type === 'Degraded')).toMatchObject({ status: 'False' });
    await eventually(async () => {
      const latest = await memcached();
      expect(latest.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({ status: 'False', observedGeneration: latest.metadata?.generation });
    }, { timeoutMs: 30_000, intervalMs: 200 });
  });

  it('size changed → Deployment scaled → pods follow, and the status describes the new generation', async () => {
    const run = await tutorial.runUntil('scale');
    expect(run?.output).toContain('memcached-sample');
    expect((await deployment()).spec?.replicas).toBe(3);
    await eventually(async () => {
      expect(runningAndReady(await pods())).toHaveLength(3);
      const cr = await memcached();
      expect(cr.metadata?.generation).toBe(2);
      expect(cr.status?.conditions?.find((c) => c.type === 'Available')).toMatchObject({ status: 'True', observedGeneration: 2, message: '3/3 replicas are available' });
    }, { timeoutMs: 60_000, intervalMs: 250 });
  }, STEP);

  it('size: 9 → refused by the API server with the schema\'s message', async () => {
    const run = await tutorial.runUntil('too-big');
    expect(run?.exitCode).not.toBe(0);
    expect(run?.output).toContain('spec.size in body should be less than or equal to 5');
    expect((await memcached()).spec?.size).toBe(3);
  }, STEP);

  it('CR deleted → the finalizer\'s event is recorded, the CR is gone, the GC deletes the Deployment and its pods', async () => {
    const uid = (await memcached()).metadata?.uid;
    const run = await tutorial.runUntil('delete');
    expect(run?.output).toContain('memcached-sample'); // kubectl get events shows the Deleting event
    const events = (await client.list(EventsV1Event, { namespace: 'default' })).items
      .filter((e) => e.reason === 'Deleting' && e.regarding?.uid === uid);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'Warning', reportingController: 'memcached-controller' });
    expect(isNotFound(await memcached().catch((e: unknown) => e))).toBe(true);
    await eventually(async () => {
      expect(isNotFound(await deployment().catch((e: unknown) => e))).toBe(true);
      expect(await pods()).toEqual([]);
    }, { timeoutMs: 60_000, intervalMs: 250 });
  }, STEP);

  it('SIGTERM → the operator exits 0 within the grace period', async () => {
    const [operator] = tutorial.background;
    const started = performance.now();
    operator!.process.kill('SIGTERM');
    const r = await operator!.process;
    const seconds = (performance.now() - started) / 1000;
    expect(r.exitCode, operator!.output()).toBe(0);
    expect(seconds).toBeLessThan(10); // idle: far inside the Deployment's 40 s terminationGracePeriodSeconds
  }, STEP);

  it('webhooks: create webhook, the handlers, generate; lint and the webhook tests (envtest) pass', async () => {
    const run = await tutorial.runUntil('webhook-tests');
    for (const file of ['memcached-defaulter.test.ts', 'memcached-validator.test.ts']) expect(run?.output).toContain(file);
    const manifests = readFileSync(join(tutorial.projectDir, 'config/webhook/manifests.yaml'), 'utf8');
    expect(manifests).toContain('path: /mutate-cache-example-com-v1alpha1-memcached');
    expect(manifests).toContain('name: vmemcached-v1alpha1.kb.io');
  }, STEP);

  it('webhooks run locally: the manager points the configurations at itself; a missing size is defaulted, a long name denied with the webhook\'s message', async () => {
    await tutorial.runUntil('run-webhooks');
    expect(tutorial.background).toHaveLength(2);
    // The manager repoints the configurations once it listens; then the API server calls it. A
    // server-side dry run goes through both webhooks and stores nothing.
    await eventually(async () => {
      const probe = await client.create(Memcached, { metadata: { name: 'probe', namespace: 'default' }, spec: {} }, { dryRun: true });
      expect(probe.spec?.size).toBe(1);
    }, { timeoutMs: 90_000, intervalMs: 500 }).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\n--- operator output:\n${tutorial.background[1]!.output()}`);
    });
    const mutating = await client.get(admissionregistrationv1.MutatingWebhookConfiguration, { name: 'mutating-webhook-configuration' });
    expect(mutating.webhooks?.[0]?.clientConfig).toMatchObject({ url: 'https://127.0.0.1:9443/mutate-cache-example-com-v1alpha1-memcached', caBundle: expect.any(String) });
    expect(tutorial.background[1]!.output()).toContain('pointed webhooks at this process (local development)');

    const defaulted = await tutorial.runUntil('webhook-default');
    expect(defaulted?.output).toContain('size=1');
    expect((await client.get(Memcached, { namespace: 'default', name: 'memcached-defaulted' })).spec?.size).toBe(1);

    // The runner checks the ```text output blocks (the warning, size=1; then the denial) as it goes.
    const refused = await tutorial.runUntil('webhook-deny');
    expect(refused?.exitCode).not.toBe(0);
    expect(refused?.output).toContain('denied the request: metadata.name must be no more than 63 characters, it is 79');
    const longName = 'memcached-whose-name-is-longer-than-a-label-value-and-is-refused-by-the-webhook';
    expect(isNotFound(await client.get(Memcached, { namespace: 'default', name: longName }).catch((e: unknown) => e))).toBe(true);

    await tutorial.runUntil('webhook-cleanup');
    expect(isNotFound(await client.get(Memcached, { namespace: 'default', name: 'memcached-defaulted' }).catch((e: unknown) => e))).toBe(true);
    const operator = tutorial.background[1]!;
    operator.process.kill('SIGTERM');
    expect((await operator.process).exitCode, operator.output()).toBe(0);
  }, STEP);

  it('the rest of the document: the webhook configurations are removed, the installer renders; the blocks not run say why', async () => {
    await tutorial.runUntil();
    expect((await client.list(admissionregistrationv1.ValidatingWebhookConfiguration)).items).toEqual([]);
    const installer = readFileSync(join(tutorial.projectDir, 'dist/install.yaml'), 'utf8');
    expect(installer).toContain('name: memcacheds.cache.example.com');
    expect(installer).toContain('name: memcached-operator-controller-manager');
    expect(installer).toContain('cert-manager.io/inject-ca-from: memcached-operator-system/memcached-operator-serving-cert');
    expect(tutorial.skipped.map((b) => b.attrs.manual)).toEqual([
      'starts a cluster from the opgen repository, not from the operator\'s folder',
      'needs a container engine and a registry',
      'downloads cert-manager from GitHub',
      'needs the image above and a cluster that can pull it',
    ]);
  }, STEP);
});
