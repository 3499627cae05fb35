// Runs against real etcd and kube-apiserver binaries (KUBEBUILDER_ASSETS, set by test/global-setup.ts).
import { ApiException, CoreV1Api, CustomObjectsApi, type KubeConfig, PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions, Watch } from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestEnv, type TestEnv } from './index.js';
import { processesMentioning } from './testdata/processes.js';

const testdata = fileURLToPath(new URL('./testdata/', import.meta.url));
const widgets = { group: 'test.opgen.dev', version: 'v1', namespace: 'default', plural: 'widgets' };

async function apiError(promise: Promise<unknown>): Promise<{ code: number; message: string; reason: string }> {
  try {
    await promise;
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const body = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
    return { code: err.code, message: body.message, reason: body.reason };
  }
  throw new Error('expected the API server to reject the request');
}

describe('startTestEnv with CRDs', () => {
  let env: TestEnv;
  let objects: CustomObjectsApi;

  beforeAll(async () => {
    env = await startTestEnv({ crdPaths: [testdata] });
    objects = env.kubeConfig.makeApiClient(CustomObjectsApi);
  });
  afterAll(async () => { await env?.stop(); });

  it('installs every CRD found in the folder, including multi-document files', () => {
    expect(env.crds.sort()).toEqual(['gadgets.test.opgen.dev', 'widgets.test.opgen.dev']);
    expect(env.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('creates a custom resource that passes the schema', async () => {
    const created = await objects.createNamespacedCustomObject({
      ...widgets, body: { apiVersion: 'test.opgen.dev/v1', kind: 'Widget', metadata: { name: 'good' }, spec: { size: 3 } },
    });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.spec).toEqual({ size: 3 });
  });

  it('rejects a structural-schema violation with the API server message', async () => {
    const err = await apiError(objects.createNamespacedCustomObject({
      ...widgets, body: { apiVersion: 'test.opgen.dev/v1', kind: 'Widget', metadata: { name: 'too-small' }, spec: { size: 0 } },
    }));
    expect(err.code).toBe(422);
    expect(err.reason).toBe('Invalid');
    expect(err.message).toContain('Widget.test.opgen.dev "too-small" is invalid');
    expect(err.message).toContain('spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1');
  });

  it('rejects a CEL (x-kubernetes-validations) rule violation with the rule message', async () => {
    const err = await apiError(objects.createNamespacedCustomObject({
      ...widgets, body: { apiVersion: 'test.opgen.dev/v1', kind: 'Widget', metadata: { name: 'inverted' }, spec: { size: 1, minReplicas: 5, maxReplicas: 2 } },
    }));
    expect(err.code).toBe(422);
    expect(err.message).toContain('Widget.test.opgen.dev "inverted" is invalid');
    expect(err.message).toContain('minReplicas must not exceed maxReplicas');
  });

  it('updates status only through the status subresource', async () => {
    const created = await objects.createNamespacedCustomObject({
      ...widgets, body: { apiVersion: 'test.opgen.dev/v1', kind: 'Widget', metadata: { name: 'statusful' }, spec: { size: 2 } },
    });
    const withStatus = await objects.replaceNamespacedCustomObjectStatus({
      ...widgets, name: 'statusful', body: { ...created, status: { ready: true } },
    });
    expect(withStatus.status).toEqual({ ready: true });
    expect(withStatus.metadata.generation).toBe(created.metadata.generation);

    // The main resource ignores status changes, as with controller-gen's +kubebuilder:subresource:status.
    const replaced = await objects.replaceNamespacedCustomObject({
      ...widgets, name: 'statusful', body: { ...withStatus, spec: { size: 4 }, status: { ready: false } },
    });
    expect(replaced.status).toEqual({ ready: true });
    expect(replaced.metadata.generation).toBe(created.metadata.generation + 1);
  });

  it('delivers watch events for changes', async () => {
    const events: string[] = [];
    let sawDelete!: () => void;
    let watchEnded!: (err: unknown) => void;
    const deleted = new Promise<void>((resolve, reject) => { sawDelete = resolve; watchEnded = reject; });
    // watch() resolves once the API server has answered the request, i.e. the watch is registered.
    const watch = await new Watch(env.kubeConfig.toClientNode() as KubeConfig).watch(
      '/apis/test.opgen.dev/v1/namespaces/default/widgets', { fieldSelector: 'metadata.name=watched' },
      (type, obj: { metadata: { name: string } }) => {
        events.push(`${type} ${obj.metadata.name}`);
        if (type === 'DELETED') sawDelete();
      },
      (err) => watchEnded(err ?? new Error('the watch ended before the DELETED event')),
    );
    await objects.createNamespacedCustomObject({
      ...widgets, body: { apiVersion: 'test.opgen.dev/v1', kind: 'Widget', metadata: { name: 'watched' }, spec: { size: 1 } },
    });
    await objects.patchNamespacedCustomObject(
      { ...widgets, name: 'watched', body: { spec: { size: 5 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await objects.deleteNamespacedCustomObject({ ...widgets, name: 'watched' });
    await deleted;
    watch.abort();
    expect(events).toEqual(['ADDED watched', 'MODIFIED watched', 'DELETED watched']);
  });

  it('adds users whose rights come from RBAC alone', async () => {
    const jane = env.addUser({ name: 'jane', groups: ['testers'] }).makeApiClient(CoreV1Api);
    const denied = await apiError(jane.listNamespacedConfigMap({ namespace: 'default' }));
    expect(denied.code).toBe(403);
    expect(denied.message).toBe('configmaps is forbidden: User "jane" cannot list resource "configmaps" in API group "" in the namespace "default"');

    // Not the built-in 'view': its rules are aggregated by kube-controller-manager, which envtest does not run.
    const rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createClusterRole({ body: {
      metadata: { name: 'configmap-reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    } });
    await rbac.createClusterRoleBinding({ body: {
      metadata: { name: 'testers-read-configmaps' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'configmap-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'testers' }],
    } });
    // The authorizer sees new bindings through an informer: allow it a moment.
    let listed: unknown;
    for (let i = 0; i < 50 && !listed; i++) {
      listed = await jane.listNamespacedConfigMap({ namespace: 'default' }).catch(() => new Promise((r) => setTimeout(() => r(undefined), 100)));
    }
    expect(listed).toHaveProperty('items');
  });

  it('writes a kubeconfig file that kubectl can use', () => {
    const out = execFileSync('kubectl', ['--kubeconfig', env.kubeconfigPath, 'get', 'widgets.test.opgen.dev', 'good', '-n', 'default', '-o', 'jsonpath={.spec.size}'], { encoding: 'utf8' });
    expect(out).toBe('3');
  });

  it('restarts kube-apiserver on the same address, keeping what etcd stored', async () => {
    const folder = dirname(env.kubeconfigPath);
    const apiServerPid = () => processesMentioning(folder).find((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'kube-apiserver');
    const before = apiServerPid();
    await env.restartApiServer();
    const after = apiServerPid();
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    const good = await objects.getNamespacedCustomObject({ ...widgets, name: 'good' });
    expect(good.spec).toEqual({ size: 3 });
  });
});

describe('startTestEnv lifecycle', () => {
  it('runs two environments side by side, isolated from each other, each with its own flags', async () => {
    const [a, b] = await Promise.all([startTestEnv({ apiServerFlags: { 'service-cluster-ip-range': '10.96.0.0/24' } }), startTestEnv()]);
    try {
      expect(a.server).not.toBe(b.server);
      // The built-in kubernetes Service takes the first address of each server's service range.
      // It is created just after start, so allow it a moment.
      const kubernetesServiceIp = async (env: TestEnv) => {
        const core = env.kubeConfig.makeApiClient(CoreV1Api);
        for (let i = 0; ; i++) {
          try {
            return (await core.readNamespacedService({ name: 'kubernetes', namespace: 'default' })).spec?.clusterIP;
          } catch (err) {
            if (i >= 50) throw err;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      };
      expect(await kubernetesServiceIp(a)).toBe('10.96.0.1');
      expect(await kubernetesServiceIp(b)).toBe('10.0.0.1');
      await a.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'only-in-a' } } });
      const inA = await a.kubeConfig.makeApiClient(CoreV1Api).listNamespace();
      const inB = await b.kubeConfig.makeApiClient(CoreV1Api).listNamespace();
      expect(inA.items.map((n) => n.metadata?.name)).toContain('only-in-a');
      expect(inB.items.map((n) => n.metadata?.name)).not.toContain('only-in-a');
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('stop() ends etcd and kube-apiserver and removes the temp folder (with logs attached)', async () => {
    const written: string[] = [];
    // Captured for the whole test so the servers' logs do not flood the test output.
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(chunk.toString());
      return true;
    });
    try {
      const env = await startTestEnv({ attachLogs: true });
      expect(written.some((w) => w.startsWith('[etcd] '))).toBe(true);
      expect(written.some((w) => w.startsWith('[kube-apiserver] '))).toBe(true);

      const folder = dirname(env.kubeconfigPath);
      const running = processesMentioning(folder);
      const commands = running.map((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim()).sort();
      expect(commands).toEqual(['etcd', 'kube-apiserver']);
      expect(existsSync(join(folder, 'kubeconfig'))).toBe(true);

      // A client still watching (a running informer) is closed cleanly, not cut by SIGKILL at the deadline.
      let watchEnd: unknown = 'still open';
      const watch = await new Watch(env.kubeConfig.toClientNode() as KubeConfig).watch('/api/v1/configmaps', {}, () => {}, (err) => { watchEnd = err; });

      await env.stop();
      expect(watchEnd).toBeNull();
      watch.abort();
      expect(processesMentioning(folder)).toEqual([]);
      for (const pid of running) expect(existsSync(`/proc/${pid}`)).toBe(false);
      expect(existsSync(folder)).toBe(false);
      await env.stop(); // a second stop is a no-op
    } finally {
      spy.mockRestore();
    }
  });
});
