// The client against a real kube-apiserver (envtest).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../envtest/index.js';
import { ConfigMap, Namespace } from '../api/builtins.js';
import { groupVersion } from '../api/kind.js';
import { Guestbook, guestbookCrd } from '../manager/testdata/guestbook.js';
import { setStatusCondition } from '../helpers/conditions.js';
import { createClient, type Client } from './client.js';
import { ApiError, isAlreadyExists, isConflict, isInvalid, isNotFound, retryOnConflict } from './errors.js';

let env: TestEnv;
let client: Client;
const ns = 'client-test';

beforeAll(async () => {
  env = await startTestEnv({ crdPaths: [guestbookCrd] });
  client = createClient(env.kubeConfig, { fieldManager: 'client-test' });
  await client.create(Namespace, { metadata: { name: ns } });
});

afterAll(async () => {
  await env?.stop();
});

describe('client', () => {
  it('creates, reads, lists by label and deletes', async () => {
    const created = await client.create(ConfigMap, { metadata: { name: 'a', namespace: ns, labels: { app: 'x' } }, data: { k: 'v' } });
    expect(created.metadata?.uid).toBeTruthy();
    expect(created.kind).toBe('ConfigMap');
    await client.create(ConfigMap, { metadata: { name: 'b', namespace: ns, labels: { app: 'y' } } });
    const got = await client.get(ConfigMap, { namespace: ns, name: 'a' });
    expect(got.data).toEqual({ k: 'v' });
    const list = await client.list(ConfigMap, { namespace: ns, labelSelector: { app: 'x' } });
    expect(list.items.map((c) => c.metadata?.name)).toEqual(['a']);
    expect(list.items[0]?.apiVersion).toBe('v1');
    const byString = await client.list(ConfigMap, { namespace: ns, labelSelector: 'app in (x,y)' });
    expect(byString.items.map((c) => c.metadata?.name).sort()).toEqual(['a', 'b']);
    const page1 = await client.list(ConfigMap, { namespace: ns, labelSelector: 'app', limit: 1 });
    expect(page1.items).toHaveLength(1);
    const page2 = await client.list(ConfigMap, { namespace: ns, labelSelector: 'app', limit: 1, continue: page1.metadata?.continue });
    expect([...page1.items, ...page2.items].map((c) => c.metadata?.name)).toEqual(['a', 'b']);
    expect(page2.metadata?.continue ?? '').toBe('');
    await client.delete(ConfigMap, { namespace: ns, name: 'b' });
    const err = await client.get(ConfigMap, { namespace: ns, name: 'b' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(isNotFound(err)).toBe(true);
    expect((err as ApiError).code).toBe(404);
  });

  it('a kind declared without a plural gets the plural the API server serves (flect\'s rules, as CRDs get)', async () => {
    // lower-case + 's' would ask for ingresss, networkpolicys and priorityclasss: all 404.
    const Ingress = groupVersion('networking.k8s.io', 'v1').kind('Ingress');
    const NetworkPolicy = groupVersion('networking.k8s.io', 'v1').kind('NetworkPolicy');
    const PriorityClass = groupVersion('scheduling.k8s.io', 'v1').kind('PriorityClass', { namespaced: false });
    expect([Ingress.plural, NetworkPolicy.plural, PriorityClass.plural]).toEqual(['ingresses', 'networkpolicies', 'priorityclasses']);
    expect((await client.list(Ingress, { namespace: ns })).items).toEqual([]);
    expect((await client.list(NetworkPolicy, { namespace: ns })).items).toEqual([]);
    expect((await client.list(PriorityClass)).items.map((p) => p.metadata?.name)).toContain('system-node-critical');
  });

  it('reports AlreadyExists, Conflict and Invalid as typed errors', async () => {
    const dup = await client.create(ConfigMap, { metadata: { name: 'a', namespace: ns } }).catch((e: unknown) => e);
    expect(isAlreadyExists(dup)).toBe(true);

    const fresh = await client.get(ConfigMap, { namespace: ns, name: 'a' });
    const stale = structuredClone(fresh);
    await client.update(ConfigMap, { ...fresh, data: { k: 'v2' } });
    const conflict = await client.update(ConfigMap, { ...stale, data: { k: 'v3' } }).catch((e: unknown) => e);
    expect(isConflict(conflict)).toBe(true);
    expect((conflict as ApiError).reason).toBe('Conflict');
    expect((conflict as Error).message).toMatch(/update configmaps\.core client-test\/a/);

    const invalid = await client.create(ConfigMap, { metadata: { name: 'Not_Valid', namespace: ns } }).catch((e: unknown) => e);
    expect(isInvalid(invalid)).toBe(true);
  });

  it('retryOnConflict re-runs the read-modify-write until it wins', async () => {
    let attempts = 0;
    const stale = await client.get(ConfigMap, { namespace: ns, name: 'a' });
    await client.update(ConfigMap, { ...(await client.get(ConfigMap, { namespace: ns, name: 'a' })), data: { k: 'changed' } });
    const result = await retryOnConflict(async () => {
      attempts++;
      const cm = attempts === 1 ? stale : await client.get(ConfigMap, { namespace: ns, name: 'a' });
      return client.update(ConfigMap, { ...cm, data: { ...cm.data, retried: 'yes' } });
    });
    expect(attempts).toBe(2);
    expect(result.data).toEqual({ k: 'changed', retried: 'yes' });
  });

  it('patches with merge, JSON patch and server-side apply', async () => {
    const merged = await client.patch(ConfigMap, { namespace: ns, name: 'a' }, { type: 'merge', body: { data: { m: '1' } } });
    expect(merged.data?.m).toBe('1');
    const jsonPatched = await client.patch(ConfigMap, { namespace: ns, name: 'a' }, { type: 'json', ops: [{ op: 'remove', path: '/data/m' }] });
    expect(jsonPatched.data?.m).toBeUndefined();
    const strategic = await client.patch(ConfigMap, { namespace: ns, name: 'a' }, { type: 'strategic', body: { metadata: { labels: { s: 't' } } } });
    expect(strategic.metadata?.labels?.s).toBe('t');

    const applied = await client.apply(ConfigMap, { metadata: { name: 'applied', namespace: ns }, data: { owner: 'one' } }, { fieldManager: 'one' });
    expect(applied.data).toEqual({ owner: 'one' });
    expect(applied.metadata?.managedFields?.some((f) => f.manager === 'one' && f.operation === 'Apply')).toBe(true);
    const clash = await client.apply(ConfigMap, { metadata: { name: 'applied', namespace: ns }, data: { owner: 'two' } }, { fieldManager: 'two' }).catch((e: unknown) => e);
    expect(isConflict(clash)).toBe(true);
    const forced = await client.apply(ConfigMap, { metadata: { name: 'applied', namespace: ns }, data: { owner: 'two' } }, { fieldManager: 'two', force: true });
    expect(forced.data).toEqual({ owner: 'two' });
  });

  it('writes status through the status subresource only', async () => {
    const gb = await client.create(Guestbook, { metadata: { name: 'g', namespace: ns }, spec: { size: 1 }, status: { observedSize: 99 } });
    expect(gb.status?.observedSize).toBeUndefined();
    const { conditions } = setStatusCondition(undefined, { type: 'Ready', status: 'True', reason: 'Done', message: 'ok', observedGeneration: gb.metadata?.generation });
    const updated = await client.status().update(Guestbook, { ...gb, spec: { size: 5 }, status: { observedSize: 1, conditions } });
    expect(updated.status?.observedSize).toBe(1);
    expect(updated.status?.conditions?.[0]?.type).toBe('Ready');
    expect(updated.spec?.size).toBe(1);
    const patched = await client.status().patch(Guestbook, { namespace: ns, name: 'g' }, { type: 'merge', body: { status: { observedSize: 2 } } });
    expect(patched.status?.observedSize).toBe(2);
    expect(patched.metadata?.generation).toBe(gb.metadata?.generation);
  });

  it('deletes with a propagation policy and names the missing namespace', async () => {
    // envtest runs no garbage collector, so a foreground delete leaves the object marked and finalized.
    await client.delete(ConfigMap, { namespace: ns, name: 'applied' }, { propagationPolicy: 'Foreground' });
    const marked = await client.get(ConfigMap, { namespace: ns, name: 'applied' });
    expect(marked.metadata?.deletionTimestamp).toBeTruthy();
    expect(marked.metadata?.finalizers).toEqual(['foregroundDeletion']);
    await client.delete(ConfigMap, { namespace: ns, name: 'a' }, { propagationPolicy: 'Background', gracePeriodSeconds: 0 });
    expect(isNotFound(await client.get(ConfigMap, { namespace: ns, name: 'a' }).catch((e: unknown) => e))).toBe(true);
    await expect(client.get(ConfigMap, { name: 'x' })).rejects.toThrow(/needs metadata.namespace/);
  });
});
