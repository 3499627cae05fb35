// The informer cache against a real kube-apiserver, including one that is restarted under it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv, eventually } from '../envtest/index.js';
import { ConfigMap, Namespace } from '../api/builtins.js';
import type { KubeObject } from '../api/types.js';
import { createClient, type Client } from '../client/client.js';
import { Transport } from '../transport/index.js';
import { isNotFound } from '../client/errors.js';
import { createLogger, silentLogger } from '../log/index.js';
import { Cache, createCache, stripManagedFields } from './cache.js';

let env: TestEnv;
let client: Client;

beforeAll(async () => {
  env = await startTestEnv();
  client = createClient(env.kubeConfig);
  for (const name of ['cache-a', 'cache-b', 'cache-c']) await client.create(Namespace, { metadata: { name } });
});

afterAll(async () => {
  await env?.stop();
});


function snapshot(items: KubeObject[]): string[] {
  return items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();
}

describe('Cache', () => {
  it('lists, then follows creates, updates and deletes; reads by namespace and label from memory', async () => {
    await client.create(ConfigMap, { metadata: { name: 'before', namespace: 'cache-a', labels: { app: 'x' } } });
    const stop = new AbortController();
    const cache = new Cache(new Transport(env.kubeConfig), { log: silentLogger() });
    const events: string[] = [];
    cache.informerFor(ConfigMap).addEventHandler({
      onAdd: (o) => o.metadata?.namespace?.startsWith('cache-') && events.push(`add ${o.metadata?.name}`),
      onUpdate: (_o, n) => n.metadata?.namespace?.startsWith('cache-') && events.push(`update ${n.metadata?.name}`),
      onDelete: (o) => o.metadata?.namespace?.startsWith('cache-') && events.push(`delete ${o.metadata?.name}`),
    });
    const running = cache.start(stop.signal);
    expect(await cache.waitForSync(stop.signal)).toBe(true);
    expect((await cache.get(ConfigMap, { namespace: 'cache-a', name: 'before' })).metadata?.labels).toEqual({ app: 'x' });

    await client.create(ConfigMap, { metadata: { name: 'later', namespace: 'cache-b', labels: { app: 'y' } }, data: { v: '1' } });
    await client.patch(ConfigMap, { namespace: 'cache-b', name: 'later' }, { type: 'merge', body: { data: { v: '2' } } });
    await client.delete(ConfigMap, { namespace: 'cache-a', name: 'before' });
    await eventually(() => expect(events).toEqual(['add before', 'add later', 'update later', 'delete before']));

    const got = await cache.get(ConfigMap, { namespace: 'cache-b', name: 'later' });
    expect(got.data).toEqual({ v: '2' });
    got.data!.v = 'edited by caller';
    expect((await cache.get(ConfigMap, { namespace: 'cache-b', name: 'later' })).data).toEqual({ v: '2' });
    expect(isNotFound(await cache.get(ConfigMap, { namespace: 'cache-a', name: 'before' }).catch((e: unknown) => e))).toBe(true);
    expect((await cache.list(ConfigMap, { namespace: 'cache-b' })).items.map((c) => c.metadata?.name)).toContain('later');
    expect((await cache.list(ConfigMap, { labelSelector: 'app=y' })).items.map((c) => c.metadata?.name)).toEqual(['later']);
    expect((await cache.list(ConfigMap, { labelSelector: { app: 'x' } })).items).toEqual([]);
    stop.abort();
    await running;
  });

  it('watches only the namespaces it is restricted to', async () => {
    await client.create(ConfigMap, { metadata: { name: 'scoped', namespace: 'cache-a' } });
    await client.create(ConfigMap, { metadata: { name: 'scoped', namespace: 'cache-c' }, data: { k: 'v' } });
    const stop = new AbortController();
    const cache = createCache(env.kubeConfig, { namespaces: ['cache-c'], transform: stripManagedFields });
    cache.informerFor(ConfigMap);
    const running = cache.start(stop.signal);
    await cache.waitForSync(stop.signal);
    const all = await cache.list(ConfigMap);
    expect(new Set(all.items.map((c) => c.metadata?.namespace))).toEqual(new Set(['cache-c']));
    await expect(cache.get(ConfigMap, { namespace: 'cache-a', name: 'scoped' })).rejects.toThrow(/restricted to namespaces cache-c/);
    // The transform ran on what was stored: the server keeps managedFields, the cache does not.
    expect((await client.get(ConfigMap, { namespace: 'cache-c', name: 'scoped' })).metadata?.managedFields).toBeDefined();
    expect((await cache.get(ConfigMap, { namespace: 'cache-c', name: 'scoped' })).metadata?.managedFields).toBeUndefined();
    stop.abort();
    await running;
  });

  it('survives a kube-apiserver restart and converges without losing the changes made meanwhile', async () => {
    for (let i = 0; i < 5; i++) await client.create(ConfigMap, { metadata: { name: `r${i}`, namespace: 'cache-c' }, data: { v: '0' } });
    const stop = new AbortController();
    const logLines: string[] = [];
    const cache = new Cache(new Transport(env.kubeConfig), { namespaces: ['cache-c'], log: createLogger({ level: 'debug', write: (l) => logLines.push(l) }) });
    const deleted: string[] = [];
    cache.informerFor(ConfigMap).addEventHandler({ onDelete: (o) => deleted.push(o.metadata?.name ?? '') });
    const running = cache.start(stop.signal);
    await cache.waitForSync(stop.signal);

    await env.restartApiServer();
    // The informer is still backing off from the outage while these land.
    const fresh = createClient(env.kubeConfig);
    await fresh.patch(ConfigMap, { namespace: 'cache-c', name: 'r0' }, { type: 'merge', body: { data: { v: 'after-restart' } } });
    await fresh.delete(ConfigMap, { namespace: 'cache-c', name: 'r1' });
    await fresh.create(ConfigMap, { metadata: { name: 'r-new', namespace: 'cache-c' } });

    await eventually(async () => {
      const server = await fresh.list(ConfigMap, { namespace: 'cache-c' });
      const cached = await cache.list(ConfigMap, { namespace: 'cache-c' });
      expect(snapshot(cached.items)).toEqual(snapshot(server.items));
    }, { timeoutMs: 60_000 });
    expect((await cache.get(ConfigMap, { namespace: 'cache-c', name: 'r0' })).data).toEqual({ v: 'after-restart' });
    expect(deleted).toContain('r1');

    // And it keeps following changes after the reconnect.
    await fresh.delete(ConfigMap, { namespace: 'cache-c', name: 'r2' });
    await eventually(() => expect(deleted).toContain('r2'));
    // The restarted server's watch cache starts at the current revision, so resuming from the old
    // resourceVersion is answered 410 Gone and the informer relists (diffing against its store).
    expect(logLines.join('')).toMatch(/resourceVersion expired, listing again/);
    stop.abort();
    await running;
  }, 120_000);

  it('resumes a cut watch from its last resourceVersion without listing again', async () => {
    await client.create(Namespace, { metadata: { name: 'cache-d' } });
    await client.create(ConfigMap, { metadata: { name: 'first', namespace: 'cache-d' } });
    const stop = new AbortController();
    const logLines: string[] = [];
    const transport = new Transport(env.kubeConfig);
    const cache = new Cache(transport, { namespaces: ['cache-d'], log: createLogger({ level: 'debug', write: (l) => logLines.push(l) }), });
    const added: string[] = [];
    cache.informerFor(ConfigMap).addEventHandler({ onAdd: (o) => added.push(o.metadata?.name ?? '') });
    const running = cache.start(stop.signal);
    await cache.waitForSync(stop.signal);
    // Let the watch request go out after the list, then drop every connection, that watch included,
    // as a network cut would.
    await new Promise((r) => setTimeout(r, 1000));
    transport.destroy();
    await client.create(ConfigMap, { metadata: { name: 'during-cut', namespace: 'cache-d' } });
    await eventually(() => expect(added).toEqual(['first', 'during-cut']));
    const messages = logLines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages.filter((m) => m === 'listed')).toHaveLength(1);
    expect(messages.some((m) => m === 'list/watch failed, retrying' || m === 'watch ended; resuming')).toBe(true);
    stop.abort();
    await running;
  });

  it('reopens a watch that went quiet from its last resourceVersion', async () => {
    await client.create(Namespace, { metadata: { name: 'cache-e' } });
    const stop = new AbortController();
    const logLines: string[] = [];
    const cache = createCache(env.kubeConfig, { namespaces: ['cache-e'], watchIdleTimeoutMs: 1000, log: createLogger({ level: 'debug', write: (l) => logLines.push(l) }) });
    const added: string[] = [];
    cache.informerFor(ConfigMap).addEventHandler({ onAdd: (o) => added.push(o.metadata?.name ?? '') });
    const running = cache.start(stop.signal);
    await cache.waitForSync(stop.signal);
    const messages = () => logLines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    await eventually(() => expect(messages()).toContain('watch idle for too long, reopening'), { timeoutMs: 10_000 });
    await client.create(ConfigMap, { metadata: { name: 'after-idle', namespace: 'cache-e' } });
    await eventually(() => expect(added).toEqual(['after-idle']));
    expect(messages().filter((m) => m === 'listed')).toHaveLength(1);
    stop.abort();
    await running;
  });
});
