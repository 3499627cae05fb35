// What a replica may do around leadership, against a real kube-apiserver (envtest): a standby keeps
// its queues empty, a leader that loses the lease stops writing before the next leader starts, and a
// leader whose drain timed out keeps the lease instead of handing it to a successor.
import { describe, expect, it } from 'vitest';
import { ConfigMap, Lease, Namespace } from '../api/builtins.js';
import type { Client } from '../client/client.js';
import { eventually, type TestEnv } from '../envtest/index.js';
import { silentLogger } from '../log/index.js';
import { Result } from '../reconcile/index.js';
import { LeaderElectionLostError, ShutdownTimeoutError } from '../index.js';
import { createManager, type Manager, type ManagerOptions } from './index.js';
import { Guestbook, useGuestbookEnv } from './testdata/guestbook.js';
import { started } from './testdata/started.js';
import { waitFor } from './testdata/wait.js';

let env: TestEnv;
let client: Client;

useGuestbookEnv((started) => ({ env, client } = started));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function namespace(name: string): Promise<string> {
  await client.create(Namespace, { metadata: { name } });
  return name;
}

function elected(ns: string, extra: Partial<ManagerOptions> = {}): Promise<Manager> {
  return createManager({
    kubeConfig: env.kubeConfig,
    logger: silentLogger(),
    namespaces: [ns],
    leaderElection: true,
    leaderElectionID: 'guestbook-operator',
    leaderElectionNamespace: ns,
    leaseDurationMs: 5000,
    renewDeadlineMs: 3000,
    retryPeriodMs: 500,
    ...extra,
  });
}

/** The value of workqueue_depth for the `guestbook` controller in `mgr`'s registry. */
async function queueDepth(mgr: Manager): Promise<number> {
  const text = await mgr.metrics.registry.getSingleMetricAsString('workqueue_depth');
  const line = text.split('\n').find((l) => l.startsWith('workqueue_depth{') && l.includes('name="guestbook"'));
  if (!line) throw new Error(`no workqueue_depth series for the guestbook controller in:\n${text}`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function readLease(ns: string) {
  return client.get(Lease, { namespace: ns, name: 'guestbook-operator' });
}

describe('leadership', () => {
  it('a standby replica with warmup attaches no event handlers: its queue stays empty while its cache is warm', async () => {
    const ns = await namespace('standby-idle');
    const reconciled: string[] = [];
    const a = await elected(ns);
    a.controllerFor(Guestbook).complete({ reconcile: async (req) => void reconciled.push(`a/${req.name}`) });
    const aRun = started(a);
    await waitFor(() => a.cache.hasSynced() && reconciled.length === 0, 15_000, 'the first manager to start');
    await sleep(1500); // a has the lease by now (first candidate, empty lease)

    const b = await elected(ns, { warmup: true });
    b.controllerFor(Guestbook).complete({ reconcile: async (req) => void reconciled.push(`b/${req.name}`) });
    const bRun = started(b);
    for (const name of ['one', 'two', 'three']) await client.create(Guestbook, { metadata: { name, namespace: ns }, spec: {} });
    await waitFor(() => reconciled.filter((r) => r.startsWith('a/')).length >= 3, 15_000, 'the leader to reconcile all three');
    // b's cache holds them (warm for a takeover), yet nothing is queued or reconciled there.
    await waitFor(() => b.cache.hasSynced(), 10_000, 'the standby cache to sync');
    // hasSynced() means the first list is in, not that the watch has delivered every later create.
    await eventually(async () => expect((await b.client.list(Guestbook, { namespace: ns })).items).toHaveLength(3));
    await sleep(500);
    expect(await queueDepth(b)).toBe(0);
    expect(reconciled.filter((r) => r.startsWith('b/'))).toEqual([]);

    aRun.stop();
    await aRun.done;
    // Once b leads, its controller starts and sees every object already cached.
    await waitFor(() => reconciled.filter((r) => r.startsWith('b/')).length >= 3, 15_000, 'the new leader to reconcile all three');
    bRun.stop();
    await bRun.done;
    expect(aRun.settled).toBe('resolved');
    expect(bRun.settled).toBe('resolved');
  });

  it('lost leadership aborts the slow reconcile and fences the client: the old leader writes nothing once the new one starts', async () => {
    const ns = await namespace('lost-lease');
    await client.create(ConfigMap, { metadata: { name: 'counter', namespace: ns }, data: { n: '0' } });
    const writes: { by: string; at: number }[] = [];
    const refused: unknown[] = [];
    let abortedAt: number | undefined;
    let bFirstReconcile: number | undefined;

    // a's reconcile ignores its signal and keeps writing through the manager's client for 20 s.
    const a = await elected(ns, { gracefulShutdownTimeoutMs: 15_000 });
    let n = 0;
    a.controllerFor(Guestbook).complete({
      async reconcile(_req, ctx) {
        ctx.signal.addEventListener('abort', () => (abortedAt = performance.now()), { once: true });
        const until = performance.now() + 20_000;
        while (performance.now() < until) {
          try {
            await a.client.patch(ConfigMap, { namespace: ns, name: 'counter' }, { type: 'merge', body: { data: { n: String(++n) } } });
            writes.push({ by: 'a', at: performance.now() });
          } catch (err) {
            refused.push(err);
          }
          await sleep(100);
        }
        return Result.done();
      },
    });
    const aRun = started(a);
    await client.create(Guestbook, { metadata: { name: 'slow', namespace: ns }, spec: {} });
    await waitFor(() => writes.length >= 3, 15_000, 'the leader to start writing');

    const b = await elected(ns);
    b.controllerFor(Guestbook).complete({
      async reconcile() {
        bFirstReconcile ??= performance.now();
        await b.client.patch(ConfigMap, { namespace: ns, name: 'counter' }, { type: 'merge', body: { data: { by: 'b' } } });
        writes.push({ by: 'b', at: performance.now() });
        return Result.done();
      },
    });
    const bRun = started(b);
    await sleep(1000);

    // Someone else takes the lease, for 2 s; then b (a candidate all along) acquires it. Taken through the
    // test's client, not kubectl: on a loaded machine kubectl's own start took 1-5 s before its patch was
    // sent, which the bound below would count against the leader (the 3.3 s of b5a0eeb's runs).
    const now = new Date().toISOString().replace('Z', '000Z');
    const takenAt = performance.now();
    const spec = { holderIdentity: 'someone-else', leaseDurationSeconds: 2, renewTime: now, acquireTime: now };
    await client.patch(Lease, { namespace: ns, name: 'guestbook-operator' }, { type: 'merge', body: { spec } });

    await waitFor(() => aRun.settled !== undefined, 10_000, 'the old leader to stop');
    expect(aRun.settled).toBeInstanceOf(LeaderElectionLostError);
    expect((aRun.settled as Error).message).toBe('leader election lost');
    // Known at the next renew (retryPeriod 500 ms), not after the 15 s graceful drain.
    expect(aRun.settledAt! - takenAt).toBeLessThan(2500);
    expect(abortedAt).toBeDefined();
    expect(abortedAt! - takenAt).toBeLessThan(2500);

    await waitFor(() => bFirstReconcile !== undefined, 15_000, 'the new leader to reconcile');
    await sleep(2000);
    const lastByA = Math.max(...writes.filter((w) => w.by === 'a').map((w) => w.at));
    expect(lastByA).toBeLessThan(bFirstReconcile!);
    expect(lastByA).toBeLessThan(aRun.settledAt!);
    // a's reconcile is still looping, and every write it tries is refused.
    expect(refused.length).toBeGreaterThan(5);
    expect(refused.every((e) => e instanceof Error && e.name === 'AbortError')).toBe(true);
    expect((await client.get(ConfigMap, { namespace: ns, name: 'counter' })).data?.by).toBe('b');

    bRun.stop();
    await bRun.done;
  });

  it('a drain that timed out keeps the lease (it expires) instead of handing it over while the old work may still write', async () => {
    const ns = await namespace('drain-timeout');
    const outcomes: string[] = [];
    const a = await elected(ns, { gracefulShutdownTimeoutMs: 300 });
    let began = false;
    a.controllerFor(Guestbook).complete({
      async reconcile() {
        began = true;
        await sleep(3000); // ignores its signal
        try {
          await a.client.create(ConfigMap, { metadata: { name: 'late', namespace: ns } });
          outcomes.push('written');
        } catch (err) {
          outcomes.push((err as Error).name);
        }
        return Result.done();
      },
    });
    const aRun = started(a);
    await client.create(Guestbook, { metadata: { name: 'stuck', namespace: ns }, spec: {} });
    await waitFor(() => began, 15_000, 'the reconcile to begin');
    aRun.stop();
    await aRun.done;
    expect(aRun.settled).toBeInstanceOf(ShutdownTimeoutError);
    expect((aRun.settled as Error).message).toBe('runnables did not finish within the 300 ms graceful shutdown period');
    const lease = await readLease(ns);
    expect(lease.spec?.holderIdentity).toBeTruthy(); // not released
    expect(lease.spec?.leaseDurationSeconds).toBe(5);
    // The abandoned reconcile's write after the hard stop is refused by the fenced client.
    await waitFor(() => outcomes.length > 0, 5000, 'the abandoned reconcile to try its write');
    expect(outcomes).toEqual(['AbortError']);
  });
});
