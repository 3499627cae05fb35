// controller-runtime's scheduling features in the controller: the priority queue (the initial list and
// resyncs behind real changes; Result.priority), the reconciliation timeout, and resyncs spread over a
// tenth of the sync period. The initial-list and resync cases run against a real kube-apiserver.
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ConfigMap, Namespace } from '../api/builtins.js';
import { Cache } from '../cache/cache.js';
import type { Client } from '../client/client.js';
import { eventually, type TestEnv } from '../envtest/index.js';
import { useTestEnv } from '../envtest/testdata/use-test-env.js';
import { silentLogger } from '../log/index.js';
import { createManager } from '../manager/index.js';
import { MetricsRegistry, RuntimeMetrics } from '../metrics/index.js';
import { ReconciliationTimeoutError, Result, requestKey, type Reconciler, type ReconcileContext, type Request } from '../reconcile/index.js';
import { Transport } from '../transport/index.js';
import { LowPriority } from '../workqueue/queue.js';
import { Builder, type ControllerBuilderOptions, type ControllerHost } from './builder.js';
import { Controller } from './controller.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A controller with no sources: requests come only from enqueue(), so the order is the queue's alone. */
function bareController(reconciler: Reconciler, opts: { usePriorityQueue?: boolean; reconciliationTimeoutMs?: number; metrics?: RuntimeMetrics; hardStop?: AbortSignal } = {}): Controller {
  return new Controller({ name: 'bare', reconciler, sources: [], log: silentLogger(), ...opts });
}

describe('Result.priority', () => {
  // One worker. 'poller' requeues itself after 1 ms; while 'gate' holds the worker, the requeue
  // becomes ready and then a real change of 'changed' arrives. Released, the worker takes 'changed'
  // first only when the poller lowered its requeue's priority.
  for (const lowered of [true, false]) {
    it(`a requeue ${lowered ? 'at LowPriority goes behind' : 'keeps its priority 0 and goes before'} a real change that came later`, async () => {
      const order: string[] = [];
      let openGate!: () => void;
      const gate = new Promise<void>((r) => (openGate = r));
      let polled = 0;
      const controller = bareController({
        reconcile: async (req) => {
          order.push(req.name);
          if (req.name === 'gate') await gate;
          if (req.name === 'poller' && polled++ === 0) return lowered ? Result.requeueAfter(1, { priority: LowPriority }) : Result.requeueAfter(1);
          return Result.done();
        },
      });
      const stop = new AbortController();
      const running = controller.start(stop.signal);
      controller.enqueue({ name: 'poller' });
      controller.enqueue({ name: 'gate' });
      await eventually(() => expect(order).toEqual(['poller', 'gate']));
      await sleep(30); // the poller's requeue is ready by now
      controller.enqueue({ name: 'changed' });
      openGate();
      await eventually(() => expect(order).toHaveLength(4));
      expect(order.slice(2)).toEqual(lowered ? ['changed', 'poller'] : ['poller', 'changed']);
      stop.abort();
      await running;
    });
  }

  it('is ignored when the controller does not use the priority queue', async () => {
    const order: string[] = [];
    let openGate!: () => void;
    const gate = new Promise<void>((r) => (openGate = r));
    const controller = bareController(
      {
        reconcile: async (req) => {
          order.push(req.name);
          if (req.name === 'gate') await gate;
          return Result.done();
        },
      },
      { usePriorityQueue: false },
    );
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    controller.enqueue({ name: 'gate' });
    await eventually(() => expect(order).toEqual(['gate']));
    controller.enqueue({ name: 'low' }, { priority: LowPriority });
    controller.enqueue({ name: 'high' }, { priority: 10 });
    openGate();
    await eventually(() => expect(order).toEqual(['gate', 'low', 'high']));
    stop.abort();
    await running;
  });
});

describe('reconciliationTimeoutMs', () => {
  it("aborts the reconcile's signal with a ReconciliationTimeoutError, counts it, and retries the error that follows", async () => {
    const registry = new MetricsRegistry();
    const metrics = new RuntimeMetrics(registry);
    const seen: { reason: unknown; afterMs: number }[] = [];
    const controller = bareController(
      {
        reconcile: async (_req: Request, ctx: ReconcileContext) => {
          const started = performance.now();
          if (seen.length === 0) {
            // A reconcile that waits on the signal, as a client call given { signal: ctx.signal } does.
            await once(ctx.signal, 'abort');
            seen.push({ reason: ctx.signal.reason, afterMs: performance.now() - started });
            throw ctx.signal.reason;
          }
          seen.push({ reason: ctx.signal.reason, afterMs: performance.now() - started });
          return Result.done();
        },
      },
      { reconciliationTimeoutMs: 150, metrics },
    );
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    controller.enqueue({ name: 'slow' });
    await eventually(() => expect(seen).toHaveLength(2));
    expect(seen[0]!.reason).toBeInstanceOf(ReconciliationTimeoutError);
    expect((seen[0]!.reason as Error).message).toBe("reconcile exceeded controller bare's reconciliationTimeoutMs (150 ms)");
    expect(seen[0]!.afterMs).toBeGreaterThanOrEqual(140);
    expect(seen[0]!.afterMs).toBeLessThan(1_000);
    // The retry got a fresh signal: the timeout is per reconcile.
    expect(seen[1]!.reason).toBeUndefined();
    const text = await registry.metrics();
    expect(text).toMatch(/^controller_runtime_reconcile_timeouts_total\{controller="bare"\} 1$/m);
    expect(text).toMatch(/^controller_runtime_reconcile_total\{controller="bare",result="error"\} 1$/m);
    stop.abort();
    await running;
  });

  it('keeps the hard stop: its reason wins when it comes first, and a quick reconcile is never cut', async () => {
    const hardStop = new AbortController();
    const reasons: unknown[] = [];
    const controller = bareController(
      {
        reconcile: async (req, ctx) => {
          if (req.name === 'quick') {
            await sleep(250); // the timeout of the earlier reconcile must not reach this one
            reasons.push(ctx.signal.aborted ? ctx.signal.reason : 'not aborted');
            return Result.done();
          }
          await once(ctx.signal, 'abort');
          reasons.push(ctx.signal.reason);
          return Result.done();
        },
      },
      { reconciliationTimeoutMs: 10_000, hardStop: hardStop.signal },
    );
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    controller.enqueue({ name: 'quick' });
    await eventually(() => expect(reasons).toEqual(['not aborted']));
    controller.enqueue({ name: 'stuck' });
    await sleep(50);
    const lost = new Error('leader election lost');
    hardStop.abort(lost);
    await eventually(() => expect(reasons).toHaveLength(2));
    expect(reasons[1]).toBe(lost);
    stop.abort();
    await running;
  });

  it('refuses a negative or non-numeric limit', () => {
    expect(() => bareController({ reconcile: async () => {} }, { reconciliationTimeoutMs: -1 })).toThrow(
      'controller bare: reconciliationTimeoutMs must be a number of ms ≥ 0 (0 = no limit), got -1',
    );
  });
});

describe('against the API server', () => {
  let env: TestEnv;
  let client: Client;

  useTestEnv({}, (started) => ({ env, client } = started));

  it("the manager's controller defaults reach every controller, and withOptions overrides them", async () => {
    const namespace = 'manager-defaults';
    await seed(namespace, 2);
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [namespace], controller: { reconciliationTimeoutMs: 100 } });
    const reasons = new Map<string, unknown>();
    const waitForAbort = (controller: string): Reconciler => ({
      reconcile: async (req, ctx) => {
        if (reasons.has(`${controller} ${req.name}`)) return Result.done();
        await Promise.race([once(ctx.signal, 'abort'), sleep(600)]);
        reasons.set(`${controller} ${req.name}`, ctx.signal.reason ?? 'not aborted');
        return Result.done();
      },
    });
    mgr.controllerFor(ConfigMap).named('defaults').complete(waitForAbort('defaults'));
    mgr.controllerFor(ConfigMap).named('own').withOptions({ reconciliationTimeoutMs: 0 }).complete(waitForAbort('own'));
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      await eventually(() => expect(reasons.size).toBe(4), { timeoutMs: 30_000 });
      expect(reasons.get('defaults cm-000')).toBeInstanceOf(ReconciliationTimeoutError);
      expect(reasons.get('defaults cm-001')).toBeInstanceOf(ReconciliationTimeoutError);
      expect(reasons.get('own cm-000')).toBe('not aborted');
      expect(reasons.get('own cm-001')).toBe('not aborted');
    } finally {
      stop.abort();
      await running;
    }
  });

  /** Creates `count` ConfigMaps cm-000… in a new namespace, 16 at a time. */
  async function seed(namespace: string, count: number): Promise<string[]> {
    await client.create(Namespace, { metadata: { name: namespace } });
    const names = Array.from({ length: count }, (_, i) => `cm-${String(i).padStart(3, '0')}`);
    let next = 0;
    const worker = async () => {
      while (next < names.length) {
        const name = names[next++]!;
        await client.create(ConfigMap, { metadata: { name, namespace }, data: { v: '0' } });
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    return names;
  }

  /** A ConfigMap controller built as the manager builds one, on its own cache. */
  function start(namespace: string, reconciler: Reconciler, opts: ControllerBuilderOptions, cacheOpts: { resyncPeriodMs?: number } = {}) {
    const cache = new Cache(new Transport(env.kubeConfig), { namespaces: [namespace], log: silentLogger(), ...cacheOpts });
    let controller!: Controller;
    const host: ControllerHost = {
      cache,
      log: silentLogger(),
      syncPeriodMs: cacheOpts.resyncPeriodMs,
      claimControllerName: () => {},
      addController: (c) => (controller = c),
    };
    new Builder(host, ConfigMap).named(`cm-${namespace}`).withOptions(opts).complete(reconciler);
    const stop = new AbortController();
    const running = Promise.all([cache.start(stop.signal), controller.start(stop.signal)]);
    return {
      stop: async () => {
        stop.abort();
        await running;
      },
    };
  }

  // 300 ConfigMaps listed at start, each reconcile taking 5 ms, one worker. As soon as the workers
  // start, the last ConfigMap of the list is edited: with the priority queue its reconcile comes
  // within a few; with one FIFO queue it waits for the whole list (it is already queued, and a
  // queued key keeps its place).
  for (const usePriorityQueue of [true, false]) {
    it(`an edit during the initial list's reconciles is reconciled ${usePriorityQueue ? 'next (priority queue)' : 'last (FIFO queue)'}`, async () => {
      const namespace = `initial-list-${usePriorityQueue ? 'pq' : 'fifo'}`;
      const names = await seed(namespace, 300);
      const last = names.at(-1)!;
      const reconciled: string[] = [];
      const running = start(
        namespace,
        {
          reconcile: async (req) => {
            reconciled.push(req.name);
            await sleep(5);
            return Result.done();
          },
        },
        { usePriorityQueue },
      );
      try {
        await eventually(() => expect(reconciled.length).toBeGreaterThan(0));
        const current = await client.get(ConfigMap, { namespace, name: last });
        await client.update(ConfigMap, { ...current, data: { v: '1' } });
        const editedAt = reconciled.length;
        await eventually(() => expect(reconciled.lastIndexOf(last)).toBeGreaterThanOrEqual(editedAt), { timeoutMs: 30_000 });
        const waitedFor = reconciled.indexOf(last, editedAt) - editedAt;
        if (usePriorityQueue) expect(waitedFor).toBeLessThanOrEqual(5);
        else expect(waitedFor).toBeGreaterThan(200);
        // Every listed object is reconciled either way, the edited one once only when its turn had not come.
        await eventually(() => expect(new Set(reconciled).size).toBe(names.length), { timeoutMs: 30_000 });
      } finally {
        await running.stop();
      }
    });
  }

  // Reconciles that read only the cache never wait for I/O. 2,000 of them (0.1 ms of work each) are
  // queued when the controller starts on a synced cache, and the last one is edited right then: the
  // edit's watch event must get in while the list drains, and be reconciled long before its end.
  it('lets the watch event of an edit in while reconciles that never wait for I/O drain the initial list', async () => {
    const namespace = 'busy-workers';
    const names = await seed(namespace, 2_000);
    const last = names.at(-1)!;
    const reconciled: string[] = [];
    const cache = new Cache(new Transport(env.kubeConfig), { namespaces: [namespace], log: silentLogger() });
    let controller!: Controller;
    const host: ControllerHost = { cache, log: silentLogger(), claimControllerName: () => {}, addController: (c) => (controller = c) };
    new Builder(host, ConfigMap).named('busy').complete({
      reconcile: async (req) => {
        reconciled.push(req.name);
        for (const until = performance.now() + 0.1; performance.now() < until; );
        return Result.done();
      },
    });
    const stop = new AbortController();
    const cacheRunning = cache.start(stop.signal);
    try {
      expect(await cache.informerFor(ConfigMap).waitForSync()).toBe(true);
      const current = await client.get(ConfigMap, { namespace, name: last });
      const controllerRunning = controller.start(stop.signal);
      await client.update(ConfigMap, { ...current, data: { v: 'edited' } });
      await eventually(() => expect(reconciled.length).toBeGreaterThanOrEqual(names.length));
      // Its last reconcile (the one that saw the edit) came early: before the fix it came after all 2,000.
      expect(reconciled.lastIndexOf(last)).toBeLessThan(names.length / 2);
      stop.abort();
      await controllerRunning;
    } finally {
      stop.abort();
      await cacheRunning;
    }
  });

  // A resync every ~3 s hands all 200 ConfigMaps to the controller at once; each is queued after a
  // random delay within a tenth of the period (300 ms), so their reconciles spread over that window
  // instead of coming in one burst (200 no-op reconciles take a few ms).
  it('spreads a resync over a tenth of the sync period', async () => {
    const namespace = 'resync-jitter';
    const names = await seed(namespace, 200);
    const seen: { name: string; at: number }[] = [];
    const running = start(
      namespace,
      {
        reconcile: async (req) => {
          seen.push({ name: requestKey(req), at: performance.now() });
          return Result.done();
        },
      },
      {},
      { resyncPeriodMs: 3_000 },
    );
    try {
      await eventually(() => expect(seen.length).toBe(names.length));
      const firstWave = seen.length;
      await eventually(() => expect(seen.length).toBeGreaterThanOrEqual(firstWave + names.length), { timeoutMs: 10_000 });
      const resync = seen.slice(firstWave, firstWave + names.length).map((s) => s.at);
      expect(new Set(seen.slice(firstWave, firstWave + names.length).map((s) => s.name)).size).toBe(names.length);
      const start = Math.min(...resync);
      const span = Math.max(...resync) - start;
      expect(span).toBeGreaterThan(200);
      expect(span).toBeLessThan(400);
      // Roughly even: no third of the window holds more than half of the objects.
      for (let third = 0; third < 3; third++) {
        const inThird = resync.filter((t) => t - start >= (third * span) / 3 && t - start < ((third + 1) * span) / 3).length;
        expect(inThird).toBeLessThan(names.length / 2);
      }
    } finally {
      await running.stop();
    }
  });
});
