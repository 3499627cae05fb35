// Controllers run by a manager against a real kube-apiserver (envtest).
import { describe, expect, it } from 'vitest';
import { type TestEnv, eventually } from '../envtest/index.js';
import { ConfigMap, Namespace } from '../api/builtins.js';
import type { Client } from '../client/client.js';
import { ignoreAlreadyExists, ignoreNotFound, isNotFound } from '../client/errors.js';
import { EventsV1Event } from '../events/index.js';
import { setControllerReference } from '../helpers/owner-references.js';
import { ensureFinalizer, isBeingDeleted, releaseFinalizer } from '../helpers/finalizers.js';
import { setStatusCondition } from '../helpers/conditions.js';
import { createLogger, silentLogger } from '../log/index.js';
import { Result, terminal, type ReconcileContext, type Request } from '../reconcile/index.js';
import { ShutdownTimeoutError } from '../index.js';
import { createManager, type Manager } from './manager.js';
import { Guestbook, useGuestbookEnv } from './testdata/guestbook.js';

let env: TestEnv;
let client: Client;

useGuestbookEnv((started) => ({ env, client } = started));


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function namespace(name: string): Promise<string> {
  await client.create(Namespace, { metadata: { name } });
  return name;
}

async function running(mgr: Manager): Promise<{ stop: () => Promise<void>; done: Promise<void> }> {
  const ctl = new AbortController();
  const done = mgr.start(ctl.signal);
  await mgr.cache.waitForSync();
  return {
    done,
    stop: async () => {
      ctl.abort();
      await done;
    },
  };
}

describe('manager + controller', () => {
  it('reconciles on create, update and delete, and owned objects requeue their owner', async () => {
    const ns = await namespace('mgr-basic');
    const calls: string[] = [];
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns] });
    const recorder = mgr.eventRecorder('guestbook-controller');
    mgr
      .controllerFor(Guestbook)
      .owns(ConfigMap)
      .complete({
        async reconcile(req: Request, ctx: ReconcileContext) {
          let gb;
          try {
            gb = await mgr.client.get(Guestbook, req);
          } catch (err) {
            ignoreNotFound(err);
            calls.push(`gone ${req.name}`);
            return Result.done();
          }
          calls.push(`${req.name} size=${gb.spec?.size}`);
          expect(ctx.controller).toBe('guestbook');
          expect(ctx.reconcileID).toMatch(/^[0-9a-f-]{36}$/);
          const cm = { metadata: { name: `${req.name}-data`, namespace: req.namespace }, data: { size: String(gb.spec?.size) } };
          setControllerReference(gb, cm, Guestbook);
          await mgr.client.apply(ConfigMap, cm, { fieldManager: 'guestbook', force: true });
          const { conditions, changed } = setStatusCondition(gb.status?.conditions, {
            type: 'Ready',
            status: 'True',
            reason: 'Reconciled',
            message: `size ${gb.spec?.size}`,
            observedGeneration: gb.metadata?.generation,
          });
          if (changed) {
            await mgr.client.status().update(Guestbook, { ...gb, status: { ...gb.status, conditions } });
            recorder.event(gb, 'Normal', 'Reconciled', `size ${gb.spec?.size}`);
          }
          return Result.done();
        },
      });
    const run = await running(mgr);
    try {
      await client.create(Guestbook, { metadata: { name: 'one', namespace: ns }, spec: { size: 1 } });
      await eventually(async () => {
        const gb = await client.get(Guestbook, { namespace: ns, name: 'one' });
        expect(gb.status?.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'True', message: 'size 1', observedGeneration: 1 });
        expect((await client.get(ConfigMap, { namespace: ns, name: 'one-data' })).data).toEqual({ size: '1' });
      });

      await client.patch(Guestbook, { namespace: ns, name: 'one' }, { type: 'merge', body: { spec: { size: 3 } } });
      await eventually(async () => {
        expect((await client.get(ConfigMap, { namespace: ns, name: 'one-data' })).data).toEqual({ size: '3' });
        expect(calls).toContain('one size=3');
      });

      // An edit to the owned ConfigMap requeues the Guestbook, which puts it back.
      await client.patch(ConfigMap, { namespace: ns, name: 'one-data' }, { type: 'merge', body: { data: { size: 'tampered' } } });
      await eventually(async () => expect((await client.get(ConfigMap, { namespace: ns, name: 'one-data' })).data).toEqual({ size: '3' }));
      // So does deleting it.
      await client.delete(ConfigMap, { namespace: ns, name: 'one-data' });
      await eventually(async () => expect((await client.get(ConfigMap, { namespace: ns, name: 'one-data' })).data).toEqual({ size: '3' }));

      await client.delete(Guestbook, { namespace: ns, name: 'one' });
      await eventually(() => expect(calls).toContain('gone one'));

      const events = await client.list(EventsV1Event, { namespace: ns });
      // (The manager's own Event of the Ready transition has the same reason; it comes from guestbook-conditions.)
      const reconciled = events.items.filter((e) => e.reason === 'Reconciled' && e.reportingController === 'guestbook-controller');
      expect(reconciled.map((e) => e.note)).toContain('size 3');
      expect(reconciled[0]).toMatchObject({ type: 'Normal', reportingController: 'guestbook-controller', regarding: { kind: 'Guestbook', name: 'one' } });
    } finally {
      await run.stop();
    }
  });

  it('runs cleanup behind a finalizer before the object goes away', async () => {
    const ns = await namespace('mgr-finalizer');
    const finalizer = 'runtime.opgen.dev/cleanup';
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns] });
    mgr.controllerFor(Guestbook).complete({
      async reconcile(req) {
        let gb;
        try {
          gb = await mgr.client.get(Guestbook, req);
        } catch (err) {
          ignoreNotFound(err);
          return Result.done();
        }
        if (isBeingDeleted(gb)) {
          await mgr.client.delete(ConfigMap, { namespace: req.namespace, name: `${req.name}-external` }).catch(ignoreNotFound);
          await releaseFinalizer(mgr.client, Guestbook, gb, finalizer);
          return Result.done();
        }
        gb = await ensureFinalizer(mgr.client, Guestbook, gb, finalizer);
        await mgr.client.create(ConfigMap, { metadata: { name: `${req.name}-external`, namespace: req.namespace } }).catch(ignoreAlreadyExists);
        return Result.done();
      },
    });
    const run = await running(mgr);
    try {
      await client.create(Guestbook, { metadata: { name: 'fin', namespace: ns }, spec: {} });
      await eventually(async () => {
        expect((await client.get(Guestbook, { namespace: ns, name: 'fin' })).metadata?.finalizers).toEqual([finalizer]);
        await client.get(ConfigMap, { namespace: ns, name: 'fin-external' });
      });
      await client.delete(Guestbook, { namespace: ns, name: 'fin' });
      await eventually(async () => {
        expect(isNotFound(await client.get(Guestbook, { namespace: ns, name: 'fin' }).catch((e: unknown) => e))).toBe(true);
        expect(isNotFound(await client.get(ConfigMap, { namespace: ns, name: 'fin-external' }).catch((e: unknown) => e))).toBe(true);
      });
    } finally {
      await run.stop();
    }
  });

  it('retries errors with growing backoff, does not retry terminal errors, and honours requeueAfter', async () => {
    const ns = await namespace('mgr-retry');
    const attempts = new Map<string, number[]>();
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns] });
    mgr.controllerFor(Guestbook).complete({
      async reconcile(req) {
        const times = attempts.get(req.name) ?? [];
        times.push(performance.now());
        attempts.set(req.name, times);
        if (req.name === 'flaky' && times.length <= 6) throw new Error(`attempt ${times.length} fails`);
        if (req.name === 'broken') throw terminal(new Error('spec can never work'));
        if (req.name === 'periodic' && times.length < 3) return Result.requeueAfter(300);
        return Result.done();
      },
    });
    const run = await running(mgr);
    try {
      for (const name of ['flaky', 'broken', 'periodic']) await client.create(Guestbook, { metadata: { name, namespace: ns }, spec: {} });
      await eventually(() => expect(attempts.get('flaky')).toHaveLength(7));
      const t = attempts.get('flaky')!;
      const gaps = t.slice(1).map((x, i) => x - t[i]!);
      // controller-runtime's per-item backoff: 5, 10, 20, 40, 80, 160 ms (timers never fire early by more than a tick).
      gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(5 * 2 ** i - 2));
      // And they grow: the first waits are short next to the last (loose enough for a busy machine).
      expect(Math.min(gaps[0]!, gaps[1]!)).toBeLessThan(gaps[5]! / 2);

      await eventually(() => expect(attempts.get('periodic')).toHaveLength(3));
      const p = attempts.get('periodic')!;
      expect(p[1]! - p[0]!).toBeGreaterThanOrEqual(295);
      expect(p[2]! - p[1]!).toBeGreaterThanOrEqual(295);

      await sleep(500);
      expect(attempts.get('broken')).toHaveLength(1);
      expect(attempts.get('flaky')).toHaveLength(7);
      expect(attempts.get('periodic')).toHaveLength(3);
    } finally {
      await run.stop();
    }
  });

  it('reconciles every cached object again each syncPeriod without any change', async () => {
    const ns = await namespace('mgr-resync');
    let count = 0;
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns], syncPeriodMs: 400 });
    mgr.controllerFor(Guestbook).complete({
      async reconcile() {
        count++;
        return Result.done();
      },
    });
    const run = await running(mgr);
    try {
      await client.create(Guestbook, { metadata: { name: 'quiet', namespace: ns }, spec: {} });
      await eventually(() => expect(count).toBeGreaterThanOrEqual(4), { timeoutMs: 10_000 });
    } finally {
      await run.stop();
    }
  });

  it('never runs one key in two reconciles at once, while different keys run in parallel', async () => {
    const ns = await namespace('mgr-concurrency');
    const active = new Map<string, number>();
    let maxPerKey = 0;
    let maxTotal = 0;
    let total = 0;
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns] });
    mgr
      .controllerFor(Guestbook)
      .withOptions({ maxConcurrentReconciles: 4 })
      .complete({
        async reconcile(req) {
          const n = (active.get(req.name) ?? 0) + 1;
          active.set(req.name, n);
          total++;
          maxPerKey = Math.max(maxPerKey, n);
          maxTotal = Math.max(maxTotal, total);
          await sleep(150);
          active.set(req.name, n - 1);
          total--;
          return Result.done();
        },
      });
    const run = await running(mgr);
    try {
      for (let i = 0; i < 4; i++) await client.create(Guestbook, { metadata: { name: `g${i}`, namespace: ns }, spec: { size: 0 } });
      for (let i = 1; i <= 10; i++) await client.patch(Guestbook, { namespace: ns, name: 'g0' }, { type: 'merge', body: { spec: { size: i } } });
      await sleep(1000);
      expect(maxPerKey).toBe(1);
      expect(maxTotal).toBeGreaterThan(1);
      expect(maxTotal).toBeLessThanOrEqual(4);
    } finally {
      await run.stop();
    }
  });

  it('filters events with predicates and maps watched objects with watches()', async () => {
    const ns = await namespace('mgr-predicates');
    const seen: string[] = [];
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns] });
    const { predicates } = await import('../controller/predicates.js');
    mgr
      .controllerFor(Guestbook)
      .withEventFilter(predicates.generationChanged())
      .watches(ConfigMap, (cm) => (cm.metadata?.labels?.guestbook ? [{ namespace: cm.metadata.namespace, name: cm.metadata.labels.guestbook }] : []))
      .complete({
        async reconcile(req) {
          seen.push(req.name);
          return Result.done();
        },
      });
    const run = await running(mgr);
    try {
      await client.create(Guestbook, { metadata: { name: 'p', namespace: ns }, spec: { size: 1 } });
      await eventually(() => expect(seen).toEqual(['p']));
      // A label-only change keeps the generation: filtered out.
      await client.patch(Guestbook, { namespace: ns, name: 'p' }, { type: 'merge', body: { metadata: { labels: { x: 'y' } } } });
      await sleep(500);
      expect(seen).toEqual(['p']);
      await client.create(ConfigMap, { metadata: { name: 'points-at-p', namespace: ns, labels: { guestbook: 'mapped' } } });
      await eventually(() => expect(seen).toEqual(['p', 'mapped']));
    } finally {
      await run.stop();
    }
  });

  it('manager.client reads watched kinds from the cache and others from the server', async () => {
    const ns = await namespace('mgr-reads');
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns] });
    mgr.controllerFor(Guestbook).complete({ reconcile: async () => Result.done() });
    mgr.cache.indexField(Guestbook, 'spec.message', (g) => g.spec?.message);
    const run = await running(mgr);
    try {
      await client.create(ConfigMap, { metadata: { name: 'direct', namespace: ns } });
      // ConfigMaps are not watched: the read goes to the server and sees the object at once.
      expect((await mgr.client.get(ConfigMap, { namespace: ns, name: 'direct' })).metadata?.name).toBe('direct');
      expect(mgr.cache.has(ConfigMap)).toBe(false);
      await client.create(Guestbook, { metadata: { name: 'cached', namespace: ns }, spec: { size: 2 } });
      await eventually(async () => expect((await mgr.client.get(Guestbook, { namespace: ns, name: 'cached' })).spec?.size).toBe(2));
      await client.delete(Guestbook, { namespace: ns, name: 'cached' });
      await eventually(async () => expect(isNotFound(await mgr.client.get(Guestbook, { namespace: ns, name: 'cached' }).catch((e: unknown) => e))).toBe(true));
      expect((await mgr.apiReader.list(Guestbook, { namespace: ns })).items).toEqual([]);
      // Lists by an indexed field come from memory; by an unindexed one they go to the server.
      for (const [name, tier] of [['web-1', 'web'], ['web-2', 'web'], ['db-1', 'db']]) {
        await client.create(Guestbook, { metadata: { name: name!, namespace: ns }, spec: { message: tier } });
      }
      await eventually(async () => {
        const web = await mgr.client.list(Guestbook, { namespace: ns, fieldSelector: 'spec.message=web' });
        expect(web.items.map((g) => g.metadata?.name)).toEqual(['web-1', 'web-2']);
      });
      expect(mgr.cache.canList(Guestbook, { fieldSelector: 'spec.message=web' })).toBe(true);
      await eventually(async () => {
        const db = await mgr.client.list(Guestbook, { namespace: ns, fieldSelector: 'metadata.name=db-1' });
        expect(db.items.map((g) => g.spec?.message)).toEqual(['db']);
      });
      await expect(mgr.cache.list(Guestbook, { fieldSelector: 'spec.size=1' })).rejects.toThrow(/no index for field "spec.size"/);
    } finally {
      await run.stop();
    }
  });

  it('caches objects without managedFields by default; an update from the cache keeps the server-side apply owners', async () => {
    const ns = await namespace('mgr-managed-fields');
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns] });
    mgr.controllerFor(ConfigMap).complete({ reconcile: async () => Result.done() });
    const keep = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns], cacheTransform: null });
    keep.controllerFor(ConfigMap).complete({ reconcile: async () => Result.done() });
    const runs = [await running(mgr), await running(keep)];
    try {
      const key = { namespace: ns, name: 'owned' };
      await client.apply(ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned', namespace: ns }, data: { a: '1' } }, { fieldManager: 'applier' });
      await eventually(async () => expect((await mgr.client.get(ConfigMap, key)).data).toEqual({ a: '1' }));
      expect((await mgr.client.get(ConfigMap, key)).metadata?.managedFields).toBeUndefined();
      expect((await mgr.apiReader.get(ConfigMap, key)).metadata?.managedFields?.map((f) => f.manager)).toEqual(['applier']);
      await eventually(async () => expect((await keep.client.get(ConfigMap, key)).metadata?.managedFields?.map((f) => f.manager)).toEqual(['applier']));

      // A read-modify-write from the cache sends no managedFields; the server keeps the applier's.
      const cached = await mgr.client.get(ConfigMap, key);
      await mgr.client.update(ConfigMap, { ...cached, data: { ...cached.data, b: '2' } });
      const afterUpdate = await mgr.apiReader.get(ConfigMap, key);
      expect(afterUpdate.metadata?.managedFields?.map((f) => `${f.manager}/${f.operation}`).sort()).toEqual(['applier/Apply', 'opgen-manager/Update']);
      // So the applier still owns data.a: applying without it removes it, and leaves b (not its own).
      await client.apply(ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned', namespace: ns }, data: {} }, { fieldManager: 'applier' });
      expect((await client.get(ConfigMap, key)).data).toEqual({ b: '2' });
    } finally {
      for (const run of runs) await run.stop();
    }
  });

  it('on abort stops taking work and lets in-flight reconciles finish', async () => {
    const ns = await namespace('mgr-drain');
    const started: string[] = [];
    const finished: string[] = [];
    const lines: string[] = [];
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: createLogger({ write: (l) => lines.push(l) }), namespaces: [ns], gracefulShutdownTimeoutMs: 10_000 });
    mgr.controllerFor(Guestbook).complete({
      async reconcile(req, ctx) {
        started.push(req.name);
        ctx.log.info('working');
        await sleep(1500);
        finished.push(req.name);
        return Result.done();
      },
    });
    const ctl = new AbortController();
    const done = mgr.start(ctl.signal);
    await client.create(Guestbook, { metadata: { name: 'slow', namespace: ns }, spec: {} });
    await eventually(() => expect(started).toEqual(['slow']));
    ctl.abort();
    await client.create(Guestbook, { metadata: { name: 'too-late', namespace: ns }, spec: {} });
    await done;
    expect(finished).toEqual(['slow']);
    expect(started).toEqual(['slow']);
    const working = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'working');
    expect(working).toMatchObject({ level: 'info', controller: 'guestbook', controllerGroup: 'runtime.opgen.dev', controllerKind: 'Guestbook', namespace: ns, name: 'slow' });
    expect(working?.reconcileID).toEqual(expect.any(String));
  });

  it('gives up on reconciles that outlive the grace period: their signal aborts and start() rejects', async () => {
    const ns = await namespace('mgr-deadline');
    let sawAbort = false;
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns], gracefulShutdownTimeoutMs: 300 });
    let began = false;
    mgr.controllerFor(Guestbook).complete({
      async reconcile(_req, ctx) {
        began = true;
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        sawAbort = ctx.signal.aborted;
        return Result.done();
      },
    });
    const ctl = new AbortController();
    const done = mgr.start(ctl.signal);
    await client.create(Guestbook, { metadata: { name: 'stuck', namespace: ns }, spec: {} });
    await eventually(() => expect(began).toBe(true));
    ctl.abort();
    await expect(done).rejects.toBeInstanceOf(ShutdownTimeoutError);
    await expect(done).rejects.toThrow(/300 ms graceful shutdown/);
    expect(sawAbort).toBe(true);
  });

  it('stops with an error when a runnable fails, and serves readyz once caches synced', async () => {
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), healthProbeBindAddress: '127.0.0.1:0' });
    mgr.controllerFor(Guestbook).complete({ reconcile: async () => Result.done() });
    let failNow!: () => void;
    mgr.add({
      needLeaderElection: false,
      start: (signal) =>
        new Promise<void>((resolve, reject) => {
          failNow = () => reject(new Error('runnable broke'));
          signal.addEventListener('abort', () => resolve(), { once: true });
        }),
    });
    const done = mgr.start(new AbortController().signal);
    await mgr.cache.waitForSync();
    await eventually(async () => {
      const res = await fetch(`http://127.0.0.1:${mgr.ports.healthProbe}/readyz`);
      expect(res.status).toBe(200);
    });
    failNow();
    await expect(done).rejects.toThrow('runnable broke');
  });
});
