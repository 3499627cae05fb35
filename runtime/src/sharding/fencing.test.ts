// A sharded manager in this process against a real kube-apiserver (envtest): it joins the ring with a
// Lease of its own, reconciles only while the ring is settled, and stops with an error (its client
// fenced) when its Lease is taken from it; a manager without the option writes no shard Lease.
import { describe, expect, it } from 'vitest';
import { Lease, Namespace } from '../api/builtins.js';
import type { Client } from '../client/client.js';
import type { TestEnv } from '../envtest/index.js';
import { silentLogger } from '../log/index.js';
import { createManager } from '../manager/index.js';
import { Guestbook, useGuestbookEnv } from '../manager/testdata/guestbook.js';
import { waitFor } from '../manager/testdata/wait.js';

let env: TestEnv;
let client: Client;

useGuestbookEnv((started) => ({ env, client } = started));

const timings = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 };

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
