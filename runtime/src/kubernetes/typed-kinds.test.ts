// The typed built-in kinds in use: a controller's create-or-update of a Deployment written with no casts
// (this file is type-checked under strict by `npm run typecheck`), run against a real API server, and a
// check that importing them loads nothing beyond the kinds' own modules.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../client/client.js';
import type { TestEnv } from '../envtest/index.js';
import { useTestEnv } from '../envtest/testdata/use-test-env.js';
import { createOrUpdate } from '../helpers/create-or-update.js';
import { appsv1, corev1, rbacv1, apiextensionsv1, networkingv1, policyv1, batchv1, coordinationv1, eventsv1, autoscalingv2, admissionregistrationv1, type admissionv1 } from './index.js';

/**
 * What a Memcached controller writes: every field below is typed, none falls into an index signature.
 * It sets fields in place rather than replacing whole objects, so the API server's defaults survive and
 * a second run changes nothing (createOrUpdate then answers 'unchanged').
 */
function deploymentFor(d: appsv1.Deployment, replicas: number): void {
  const labels = { app: 'memcached' };
  d.metadata = { ...d.metadata, labels: { ...d.metadata?.labels, ...labels } };
  const spec: appsv1.DeploymentSpec = (d.spec ??= { selector: { matchLabels: labels }, template: {} });
  spec.replicas = replicas;
  spec.template.metadata = { ...spec.template.metadata, labels: { ...spec.template.metadata?.labels, ...labels } };
  const pod: corev1.PodSpec = (spec.template.spec ??= { containers: [] });
  pod.securityContext = { ...pod.securityContext, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
  let container = pod.containers.find((c) => c.name === 'memcached');
  if (!container) pod.containers.push((container = { name: 'memcached' }));
  container.image = 'memcached:1.6.26-alpine3.19';
  container.imagePullPolicy = 'IfNotPresent';
  container.ports = [{ containerPort: 11211, name: 'memcached', protocol: 'TCP' }];
  container.resources = { ...container.resources, limits: { cpu: '500m', memory: '64Mi' } };
  container.securityContext = { ...container.securityContext, runAsUser: 1001, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
  container.livenessProbe = { ...container.livenessProbe, tcpSocket: { port: 'memcached' }, periodSeconds: 10 };
}

describe('typed built-in kinds', () => {
  let env: TestEnv;
  let client: Client;
  useTestEnv({}, (started) => ({ env, client } = started));

  it('creates and updates a Deployment and reads its typed status', async () => {
    const d: appsv1.Deployment = { metadata: { name: 'memcached', namespace: 'default' } };
    expect(await createOrUpdate(client, appsv1.Deployment, d, (o) => deploymentFor(o, 1))).toBe('created');
    expect(await createOrUpdate(client, appsv1.Deployment, d, (o) => deploymentFor(o, 1))).toBe('unchanged');
    expect(await createOrUpdate(client, appsv1.Deployment, d, (o) => deploymentFor(o, 3))).toBe('updated');

    // No controller-manager runs here: write the status a deployment controller would, then read it typed.
    const status: appsv1.DeploymentStatus = {
      replicas: 3, updatedReplicas: 2, readyReplicas: 1, availableReplicas: 1, observedGeneration: d.metadata?.generation,
      conditions: [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', lastUpdateTime: '2026-01-01T00:00:00Z' }],
    };
    await client.status().patch(appsv1.Deployment, { name: 'memcached', namespace: 'default' }, { type: 'merge', body: { status } });
    const read = await client.get(appsv1.Deployment, { name: 'memcached', namespace: 'default' });
    const updated: number | undefined = read.status?.updatedReplicas;
    const progressing: string | undefined = read.status?.conditions?.find((c) => c.type === 'Progressing')?.reason;
    expect([updated, progressing]).toEqual([2, 'NewReplicaSetAvailable']);
    const container: corev1.Container | undefined = read.spec?.template.spec?.containers[0];
    expect(container?.securityContext?.capabilities?.drop).toEqual(['ALL']);
    // Served as the API server writes them: quantities are strings, an int-or-string port as given.
    expect(container?.resources?.limits).toEqual({ cpu: '500m', memory: '64Mi' });
    expect(container?.livenessProbe?.tcpSocket?.port).toBe('memcached');
  });

  it('has a ResourceKind with plural and scope for each served kind', () => {
    expect(appsv1.Deployment).toMatchObject({ group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true, apiVersion: 'apps/v1' });
    expect(corev1.Namespace).toMatchObject({ group: '', plural: 'namespaces', namespaced: false, apiVersion: 'v1' });
    expect(corev1.Endpoints.plural).toBe('endpoints');
    expect(rbacv1.ClusterRole.namespaced).toBe(false);
    expect(apiextensionsv1.CustomResourceDefinition.plural).toBe('customresourcedefinitions');
    expect(networkingv1.Ingress.plural).toBe('ingresses');
    expect(policyv1.PodDisruptionBudget.plural).toBe('poddisruptionbudgets');
    expect(batchv1.CronJob.plural).toBe('cronjobs');
    expect(coordinationv1.Lease.namespaced).toBe(true);
    expect(eventsv1.Event.apiVersion).toBe('events.k8s.io/v1');
    expect(autoscalingv2.HorizontalPodAutoscaler.apiVersion).toBe('autoscaling/v2');
    expect(admissionregistrationv1.ValidatingWebhookConfiguration.namespaced).toBe(false);
    const review: admissionv1.AdmissionReview = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' };
    expect(review.kind).toBe('AdmissionReview');
  });
});

describe('importing the typed kinds', () => {
  const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
  const moduleLog = fileURLToPath(new URL('../../../test/module-log/register.mjs', import.meta.url));
  let work: string;
  beforeAll(() => {
    if (!existsSync(join(dist, 'kubernetes', 'index.js'))) throw new Error(`${dist}kubernetes/index.js is missing; run \`npm run build\` first`);
    work = mkdtempSync(join(tmpdir(), 'opgen-kinds-load-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('loads only the kinds\' own modules and the ResourceKind helper (the interfaces are erased)', () => {
    const log = join(work, 'loaded.txt');
    const r = spawnSync(process.execPath, ['--import', moduleLog, '--input-type=module', '-e',
      `const k = await import(${JSON.stringify(join(dist, 'kubernetes', 'index.js'))}); console.log(k.appsv1.Deployment.plural);`],
    { encoding: 'utf8', env: { ...process.env, OPGEN_LOAD_LOG: log } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('deployments');
    const loaded = readFileSync(log, 'utf8').split('\n').filter((u) => u.startsWith('file:') && !u.includes('/test/module-log/'));
    const runtimeFiles = [...new Set(loaded.map((u) => fileURLToPath(u).slice(dist.length)))].sort();
    // dist is bundled (runtime/build/bundle.mjs): kubernetes/index.js and the chunks it imports — the
    // kinds' own, groupVersion() (kind-*) with the pluralize entry it uses, and the bundler's namespace
    // helper — and no client, cache or manager code among them.
    expect(runtimeFiles).toContain('kubernetes/index.js');
    const others = runtimeFiles.filter((f) => !f.startsWith('kubernetes/'));
    expect(others.some((f) => /^chunks\/kind-[\w-]+\.js$/.test(f))).toBe(true);
    expect(others.filter((f) => /^chunks\/[a-z]+v\d+-[\w-]+\.js$/.test(f))).toHaveLength(11); // the group-versions with kinds
    expect(others.filter((f) => f !== 'api/pluralize.js' && !/^chunks\/(kind|rolldown-runtime|[a-z]+v\d+)-[\w-]+\.js$/.test(f))).toEqual([]);
    const code = runtimeFiles.map((f) => readFileSync(join(dist, f), 'utf8')).join('\n');
    const root = readFileSync(join(dist, 'index.js'), 'utf8');
    for (const other of [/function createManager\b/, /\b(class|var) Informer\b/, /\b(class|var) Transport\b/, /\b(class|var) Controller\b/]) {
      expect(code).not.toMatch(other);
      expect(root).toMatch(other); // the check can fail
    }
    expect(loaded.every((u) => fileURLToPath(u).startsWith(dist))).toBe(true);
  });
});
