// A sharded manager in this process against a real kube-apiserver (envtest): it joins the ring with a
// Lease of its own, reconciles only while the ring is settled, and stops with an error (its client
// fenced) when its Lease is taken from it; a manager without the option writes no shard Lease.
import { describe, expect, it, vi } from 'vitest';
import { ConfigMap, Lease, Namespace } from '../api/builtins.js';
import type { Client } from '../client/client.js';
import type { TestEnv } from '../envtest/index.js';
import { silentLogger } from '../log/index.js';
import { createManager } from '../manager/index.js';
import { Guestbook, useGuestbookEnv } from '../manager/testdata/guestbook.js';
import { waitFor } from '../manager/testdata/wait.js';
import { Transport, type RequestOptions } from '../transport/index.js';

let env: TestEnv;
let client: Client;

useGuestbookEnv((started) => ({ env, client } = started));

const timings = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 };

const busyWait = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // the process does nothing, as when stopped
  }
};

/** Resolves once the next list of shard Leases (the end of a round of a Lease loop) has been answered. */
function roundDone(): Promise<void> {
  const request = Transport.prototype.request;
  return new Promise((resolve) => {
    const spy = vi.spyOn(Transport.prototype, 'request').mockImplementation(async function (this: Transport, method: string, path: string, opts?: RequestOptions) {
      const answer: unknown = await request.call(this, method, path, opts);
      if (opts?.context === 'list shard leases') {
        spy.mockRestore();
        resolve();
      }
      return answer;
    } as typeof request);
  });
}

async function until(cond: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('sharding in one process', () => {
  it('a replica whose shard Lease is deleted by someone else stops, and its client writes nothing more', async () => {
    const ns = 'fenced';
    await client.create(Namespace, { metadata: { name: ns } });
    await client.create(Guestbook, { metadata: { name: 'one', namespace: ns }, spec: {} });
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns], sharding: { name: 'gb', namespace: ns, identity: 'solo', ...timings } });
    const reconciled: string[] = [];
    mgr.controllerFor(Guestbook).complete({ reconcile: async (req) => void reconciled.push(req.name) });
    const ctl = new AbortController();
    let outcome: unknown;
    const done = mgr.start(ctl.signal).then(() => (outcome = 'resolved'), (err: unknown) => (outcome = err));
    await waitFor(() => reconciled.includes('one'), 20_000, 'the lone member to reconcile its object');
    const lease = await client.get(Lease, { namespace: ns, name: 'gb-solo' });
    expect(lease.spec?.holderIdentity).toBe('solo');
    expect(lease.metadata?.labels?.['sharding.opgen.dev/ring']).toBe('gb');

    await client.delete(Lease, { namespace: ns, name: 'gb-solo' });
    await waitFor(() => outcome !== undefined, 10_000, 'the manager to stop');
    await done;
    expect(String(outcome)).toContain('was changed by someone else');
    await expect(mgr.client.create(Guestbook, { metadata: { name: 'two', namespace: ns }, spec: {} })).rejects.toThrow();
    ctl.abort();
  }, 60_000);

  it('a replica stopped past its lease while idle (its event loop blocked, as by SIGSTOP) neither renews nor writes when it resumes, and stops', async () => {
    const ns = 'stopped';
    await client.create(Namespace, { metadata: { name: ns } });
    await client.create(Guestbook, { metadata: { name: 'one', namespace: ns }, spec: {} });
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns], sharding: { name: 'gb', namespace: ns, identity: 'paused', ...timings } });
    const reconciled: string[] = [];
    mgr.controllerFor(Guestbook).complete({
      reconcile: async (req) => {
        const gb = await mgr.client.get(Guestbook, req);
        await mgr.client.create(ConfigMap, { metadata: { name: `seen-${gb.metadata!.resourceVersion}`, namespace: ns } });
        reconciled.push(gb.metadata!.resourceVersion!);
      },
    });
    let outcome: unknown;
    const done = mgr.start(new AbortController().signal).then(() => (outcome = 'resolved'), (err: unknown) => (outcome = err));
    await waitFor(() => reconciled.length > 0, 20_000, 'the lone member to reconcile its object');

    // Idle, and stopped between two rounds of its Lease loop (just after a round's list of the shard
    // Leases) for longer than the lease: when it resumes, the loop's timer is due at once, before
    // anything else asks the fence; the renew it would send must be refused.
    await roundDone();
    const stoppedAt = Date.now();
    await new Promise<void>((resolve) => setTimeout(() => (busyWait(timings.leaseDurationMs + 1000), resolve()), 20));
    const renewedSince = async () => Date.parse((await client.get(Lease, { namespace: ns, name: 'gb-paused' })).spec!.renewTime!) > stoppedAt;
    await until(async () => outcome !== undefined || (await renewedSince()), 10_000, 'the replica to stop, or to renew after the stop');
    // An edit after the resume: a replica that went on would reconcile it and write a ConfigMap.
    await client.patch(Guestbook, { namespace: ns, name: 'one' }, { type: 'merge', body: { spec: { message: 'after the stop' } } });
    await until(async () => outcome !== undefined || (await client.list(ConfigMap, { namespace: ns })).items.length > 1, 10_000, 'the replica to stop, or to write after the stop');
    await done;
    expect(await renewedSince()).toBe(false);
    expect((await client.list(ConfigMap, { namespace: ns })).items.map((cm) => cm.metadata!.name).filter((n) => n!.startsWith('seen-'))).toHaveLength(1);
    expect(String(outcome)).toContain('was not renewed within renewDeadline');
    await expect(mgr.client.create(ConfigMap, { metadata: { name: 'refused', namespace: ns } })).rejects.toThrow('renewDeadline');
  }, 60_000);

  it('without the option, no shard Lease is written', async () => {
    const ns = 'unsharded';
    await client.create(Namespace, { metadata: { name: ns } });
    await client.create(Guestbook, { metadata: { name: 'one', namespace: ns }, spec: {} });
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), namespaces: [ns] });
    const reconciled: string[] = [];
    mgr.controllerFor(Guestbook).complete({ reconcile: async (req) => void reconciled.push(req.name) });
    const ctl = new AbortController();
    const done = mgr.start(ctl.signal);
    await waitFor(() => reconciled.includes('one'), 20_000, 'the manager to reconcile');
    expect((await client.list(Lease, { namespace: ns })).items).toEqual([]);
    expect(await mgr.metrics.registry.getSingleMetricAsString('opgen_sharding_active')).toBe('');
    ctl.abort();
    await done;
  }, 60_000);
});
