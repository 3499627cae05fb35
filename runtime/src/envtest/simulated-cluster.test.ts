// startTestEnv({ simulatedCluster: true }): kube-controller-manager, kube-scheduler and kwok beside the
// API server. Everything checked here is those components' own behaviour: the Deployment and ReplicaSet
// controllers, the scheduler binding pods to the fake node, kwok's stages making them Running and
// Ready, and the garbage collector deleting dependents in the background and in the foreground.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMap, createClient, Deployment, groupVersion, isNotFound, Pod, type Client, type KubeObject } from '../index.js';
import { eventually, MissingBinariesError, startTestEnv, type TestEnv } from './index.js';
import { findClusterBinaries } from './internal/simulated-cluster.js';

const ReplicaSet = groupVersion('apps', 'v1').kind<KubeObject & { spec?: { replicas?: number } }>('ReplicaSet');
const labels = { app: 'web' };

describe('startTestEnv({ simulatedCluster: true })', () => {
  let env: TestEnv;
  let client: Client;
  const ns = 'default';

  beforeAll(async () => {
    // As a generated project's tests run it: no OPGEN_CLUSTER_ASSETS; the binaries come from opgen's
    // cache, where .ci/cluster-assets.sh and `opgen setup-envtest --cluster` put them.
    delete process.env.OPGEN_CLUSTER_ASSETS;
    env = await startTestEnv({ simulatedCluster: true });
    client = createClient(env.kubeConfig);
  }, 180_000);
  afterAll(async () => { await env?.stop(); }, 120_000);

  const gone = async (kind: Parameters<Client['get']>[0], name: string) => {
    const err = await client.get(kind, { namespace: ns, name }).then(() => undefined, (e: unknown) => e);
    expect(isNotFound(err), `${kind.kind} ${name} still exists`).toBe(true);
  };
  const podsOf = async (selector: Record<string, string>) =>
    (await client.list(Pod, { namespace: ns, labelSelector: selector })).items as Array<KubeObject & {
      spec?: { nodeName?: string }; status?: { phase?: string; conditions?: Array<{ type: string; status: string }> };
    }>;

  it('runs a Deployment: its pods are scheduled on the fake node and become Running and Ready', async () => {
    await client.create(Deployment, {
      metadata: { name: 'web', namespace: ns },
      spec: {
        replicas: 3,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
      },
    } as Deployment);
    const status = await eventually(async () => {
      const d = await client.get(Deployment, { namespace: ns, name: 'web' }) as Deployment & { status?: Record<string, number> };
      expect(d.status?.availableReplicas).toBe(3);
      return d.status;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    expect(status?.readyReplicas).toBe(3);
    const pods = await podsOf(labels);
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.spec?.nodeName).toBe('kwok-node-0');
      expect(pod.status?.phase).toBe('Running');
      expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'ReplicaSet', controller: true });
    }
  }, 90_000);

  it('garbage collector, background: deleting the Deployment deletes its ReplicaSet and pods', async () => {
    const [rs] = (await client.list(ReplicaSet, { namespace: ns, labelSelector: labels })).items;
    expect(rs?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'web' });
    await client.delete(Deployment, { namespace: ns, name: 'web' }, { propagationPolicy: 'Background' });
    await gone(Deployment, 'web'); // background: the owner goes at once, the dependents after
    await eventually(async () => {
      expect((await client.list(ReplicaSet, { namespace: ns, labelSelector: labels })).items).toEqual([]);
      expect(await podsOf(labels)).toEqual([]);
    }, { timeoutMs: 60_000, intervalMs: 250 });
  }, 90_000);

  it('garbage collector, foreground: the owner waits, with the foregroundDeletion finalizer, until its blocking dependents are gone', async () => {
    const owner = await client.create(ConfigMap, { metadata: { name: 'owner', namespace: ns } });
    // The dependent holds a finalizer of ours, so the wait can be observed before we release it.
    await client.create(ConfigMap, {
      metadata: {
        name: 'dependent', namespace: ns, finalizers: ['test.opgen.dev/hold'],
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid!, blockOwnerDeletion: true }],
      },
    });
    await client.delete(ConfigMap, { namespace: ns, name: 'owner' }, { propagationPolicy: 'Foreground' });
    // The collector deletes the dependent (it gets a deletionTimestamp) while the owner stays.
    await eventually(async () => {
      const dependent = await client.get(ConfigMap, { namespace: ns, name: 'dependent' });
      expect(dependent.metadata?.deletionTimestamp).toBeDefined();
    }, { timeoutMs: 30_000, intervalMs: 100 });
    const waiting = await client.get(ConfigMap, { namespace: ns, name: 'owner' });
    expect(waiting.metadata?.deletionTimestamp).toBeDefined();
    expect(waiting.metadata?.finalizers).toContain('foregroundDeletion');
    // Release the dependent: it goes, and then so does the owner.
    await client.patch(ConfigMap, { namespace: ns, name: 'dependent' }, { type: 'json', ops: [{ op: 'remove', path: '/metadata/finalizers' }] });
    await eventually(async () => { await gone(ConfigMap, 'dependent'); await gone(ConfigMap, 'owner'); }, { timeoutMs: 30_000, intervalMs: 100 });
  }, 60_000);

  it('garbage collector, foreground on a Deployment: its pods are gone before it is', async () => {
    const fg = { app: 'fg' };
    await client.create(Deployment, {
      metadata: { name: 'fg', namespace: ns },
      spec: { replicas: 2, selector: { matchLabels: fg }, template: { metadata: { labels: fg }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    } as Deployment);
    await eventually(async () => { expect((await podsOf(fg)).filter((p) => p.status?.phase === 'Running')).toHaveLength(2); }, { timeoutMs: 60_000, intervalMs: 250 });
    await client.delete(Deployment, { namespace: ns, name: 'fg' }, { propagationPolicy: 'Foreground' });
    const waiting = await client.get(Deployment, { namespace: ns, name: 'fg' });
    expect(waiting.metadata?.finalizers).toContain('foregroundDeletion');
    await eventually(() => gone(Deployment, 'fg'), { timeoutMs: 60_000, intervalMs: 100 });
    // Foreground all the way down: the ReplicaSet and its pods went before the Deployment could.
    expect(await podsOf(fg)).toEqual([]);
    expect((await client.list(ReplicaSet, { namespace: ns, labelSelector: fg })).items).toEqual([]);
  }, 90_000);
});

describe('simulatedCluster binaries', () => {
  it("uses a complete folder in opgen's cache when no folder is named, and says how to get one when there is none", () => {
    const scratch = mkdtempSync(join(tmpdir(), 'opgen-cluster-missing-'));
    try {
      const env = { OPGEN_ASSETS_CACHE: join(scratch, 'cache'), HOME: scratch };
      let err: unknown;
      try { findClusterBinaries({}, undefined, env); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(MissingBinariesError);
      expect((err as Error).message).toContain('simulatedCluster needs kube-controller-manager, kube-scheduler, kwok');
      expect((err as Error).message).toContain(`OPGEN_CLUSTER_ASSETS is unset and ${join(scratch, 'cache')} has none`);
      expect((err as Error).message).toContain('Run `npx opgen setup-envtest --cluster`');

      // A complete folder in the cache root (as setup-envtest --cluster and cluster-assets.sh leave it) is used.
      const built = join(scratch, 'cache', 'cluster-k8s-1.36.3-kwok-0.7.0');
      mkdirSync(built, { recursive: true });
      for (const b of ['kube-controller-manager', 'kube-scheduler', 'kwok']) writeFileSync(join(built, b), '#!/bin/sh\n', { mode: 0o755 });
      writeFileSync(join(built, 'kwok-stages.yaml'), '');
      expect(findClusterBinaries({}, undefined, env)).toEqual({
        kubeControllerManager: join(built, 'kube-controller-manager'), kubeScheduler: join(built, 'kube-scheduler'), kwok: join(built, 'kwok'), kwokStages: join(built, 'kwok-stages.yaml'),
      });
      // A folder named on purpose that lacks them stays an error, naming the cache's.
      const empty = join(scratch, 'empty');
      mkdirSync(empty);
      expect(() => findClusterBinaries({}, undefined, { ...env, OPGEN_CLUSTER_ASSETS: empty })).toThrow(`This machine has them in ${built}: \`export OPGEN_CLUSTER_ASSETS=${built}\``);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
