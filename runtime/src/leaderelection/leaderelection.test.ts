// Leader election against a real kube-apiserver (envtest). The test reads and overwrites the Lease
// through kubectl and client-node, not through the elector's own lease client.
import { CoordinationV1Api, KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { createServer, connect, type Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../envtest/index.js';
import { type LeaderElectionConfig, LeaderElector } from './index.js';
import { waitFor } from '../manager/testdata/wait.js';

const run = promisify(execFile);
let env: TestEnv;
let leases: CoordinationV1Api;

beforeAll(async () => {
  env = await startTestEnv();
  leases = env.kubeConfig.makeApiClient(CoordinationV1Api);
});
afterAll(async () => {
  await env?.stop();
});

function readLease(name: string): Promise<V1Lease> {
  return leases.readNamespacedLease({ name, namespace: 'default' });
}

async function kubectl(args: string[], input?: string): Promise<void> {
  const child = run('kubectl', args, { env: { ...process.env, KUBECONFIG: env.kubeconfigPath } });
  if (input !== undefined) child.child.stdin?.end(input);
  await child;
}

// client-node hands MicroTime fields over as the API server's strings.
const time = (t: unknown) => Date.parse(String(t));
const micro = (d: Date) => d.toISOString().replace('Z', '000Z');

/** Starts `elector.run` and records when it started leading and how it ended. */
function campaign(elector: LeaderElector) {
  const stop = new AbortController();
  let ledAt: number | undefined;
  let startedLeading = 0;
  let ended: { lost: boolean } | undefined;
  const done = elector.run(stop.signal, () => {
    startedLeading++;
    ledAt = performance.now();
  }).then((r) => (ended = r));
  return {
    stop: () => stop.abort(),
    done,
    get leading() { return ledAt !== undefined && ended === undefined; },
    get ledAt() { return ledAt; },
    get startedLeading() { return startedLeading; },
    get ended() { return ended; },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A TCP relay to the API server, and a KubeConfig that goes through it: cut() partitions whoever
 * uses it from the API server, as a crashed or cut-off node would be.
 */
async function partitionable(): Promise<{ kubeConfig: KubeConfig; cut: () => void }> {
  const upstream = new URL(env.server);
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    const server = connect(Number(upstream.port), upstream.hostname);
    for (const s of [client, server]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(server).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const address = relay.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: env.kubeConfig.clusters.map((c) => ({ ...c, server: `https://127.0.0.1:${port}` })),
    users: env.kubeConfig.users,
    contexts: env.kubeConfig.contexts,
    currentContext: env.kubeConfig.currentContext,
  });
  return {
    kubeConfig,
    cut: () => {
      relay.close();
      for (const s of sockets) s.destroy();
    },
  };
}

function elector(name: string, identity: string, timings: Partial<LeaderElectionConfig> = {}): LeaderElector {
  return new LeaderElector({
    kubeConfig: env.kubeConfig, namespace: 'default', name, identity,
    leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500, ...timings,
  });
}

describe('LeaderElector', () => {
  it('lets only one of two candidates lead, and hands over at once on a graceful stop', async () => {
    // A long lease duration: a takeover well inside it can only come from the released lease.
    const timings = { leaseDurationMs: 20_000, renewDeadlineMs: 2000, retryPeriodMs: 500 };
    const a = campaign(elector('one-leader', 'candidate-a', timings));
    const b = campaign(elector('one-leader', 'candidate-b', timings));
    await waitFor(() => a.leading || b.leading, 5000, 'a leader');
    const [leader, follower, leaderId, followerId] = a.leading ? [a, b, 'candidate-a', 'candidate-b'] : [b, a, 'candidate-b', 'candidate-a'];

    const first = await readLease('one-leader');
    expect(first.spec?.holderIdentity).toBe(leaderId);
    expect(first.spec?.leaseDurationSeconds).toBe(20);
    await sleep(3000);
    expect(leader.leading).toBe(true);
    expect(follower.ledAt).toBeUndefined();
    const renewed = await readLease('one-leader');
    expect(renewed.spec?.holderIdentity).toBe(leaderId);
    expect(time(renewed.spec?.renewTime)).toBeGreaterThan(time(first.spec?.renewTime));
    expect(time(renewed.spec?.acquireTime)).toBe(time(first.spec?.acquireTime));

    leader.stop();
    expect(await leader.done).toEqual({ lost: false });
    const released = performance.now();
    // The next attempt comes within retryPeriod × (1 + 1.2 jitter) = 1.1 s; the rest is slack for a
    // busy machine. Without the release it would take the whole 20 s lease duration.
    await waitFor(() => follower.leading, 5000, 'the follower to take over the released lease');
    expect(follower.ledAt! - released).toBeLessThan(5000);
    const taken = await readLease('one-leader');
    expect(taken.spec?.holderIdentity).toBe(followerId);
    expect(taken.spec?.leaseTransitions).toBe((first.spec?.leaseTransitions ?? 0) + 1);

    follower.stop();
    expect(await follower.done).toEqual({ lost: false });
    expect((await readLease('one-leader')).spec?.holderIdentity).toBeFalsy();
    expect(leader.startedLeading).toBe(1);
    expect(follower.startedLeading).toBe(1);
  });

  it('releases the lease on a graceful stop even when it changed since the leader last read it', async () => {
    // A renew the stop cut short may still land on the server; the leader is then left with an old
    // resourceVersion. Simulated by touching the lease (same holder) just before the stop, with a
    // retry period long enough that no renew comes between.
    const a = campaign(elector('stale-release', 'candidate-a', { leaseDurationMs: 20_000, renewDeadlineMs: 15_000, retryPeriodMs: 10_000 }));
    await waitFor(() => a.leading, 5000, 'a to lead');
    await kubectl(['patch', 'lease', 'stale-release', '-n', 'default', '--type=merge', '-p', JSON.stringify({ spec: { renewTime: micro(new Date()) } })]);
    expect((await readLease('stale-release')).spec?.holderIdentity).toBe('candidate-a');
    a.stop();
    expect(await a.done).toEqual({ lost: false });
    const released = await readLease('stale-release');
    expect(released.spec?.holderIdentity).toBeFalsy();
    expect(released.spec?.leaseDurationSeconds).toBe(1);
  });

  it('takes over a lease left by a crashed leader only once the lease duration has passed', async () => {
    // What a leader that died without releasing leaves behind.
    const now = new Date();
    await kubectl(['create', '-f', '-'], JSON.stringify({
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'crashed', namespace: 'default' },
      spec: { holderIdentity: 'crashed-leader', leaseDurationSeconds: 3, acquireTime: micro(now), renewTime: micro(now), leaseTransitions: 4 },
    }));
    const started = performance.now();
    const b = campaign(elector('crashed', 'candidate-b'));
    await sleep(2500);
    expect(b.ledAt).toBeUndefined();
    expect((await readLease('crashed')).spec?.holderIdentity).toBe('crashed-leader');

    await waitFor(() => b.leading, 6000, 'the candidate to take over the expired lease');
    const waited = b.ledAt! - started;
    expect(waited).toBeGreaterThanOrEqual(3000);
    expect(waited).toBeLessThan(3000 + 1100 + 3000);
    const lease = await readLease('crashed');
    expect(lease.spec?.holderIdentity).toBe('candidate-b');
    expect(lease.spec?.leaseTransitions).toBe(5);
    b.stop();
    await b.done;
  });

  it('judges a lease held by another identity by the duration written in it, not by its own option', async () => {
    // Held for 60 s by a holder configured differently (client-go's isLeaseValid reads the lease's own
    // leaseDurationSeconds); our candidate's own 2 s must not make it take the lease after 2 s.
    const now = new Date();
    await kubectl(['create', '-f', '-'], JSON.stringify({
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'long-held', namespace: 'default' },
      spec: { holderIdentity: 'patient-leader', leaseDurationSeconds: 60, acquireTime: micro(now), renewTime: micro(now), leaseTransitions: 0 },
    }));
    const b = campaign(elector('long-held', 'candidate-b', { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 }));
    await sleep(5000);
    expect(b.ledAt).toBeUndefined();
    expect((await readLease('long-held')).spec?.holderIdentity).toBe('patient-leader');
    b.stop();
    expect(await b.done).toEqual({ lost: false });
  });

  it('when the leader is cut off, it reports lost before the other candidate takes over after the lease duration', async () => {
    const link = await partitionable();
    const a = campaign(new LeaderElector({
      kubeConfig: link.kubeConfig, namespace: 'default', name: 'partitioned', identity: 'candidate-a',
      leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500,
    }));
    await waitFor(() => a.leading, 5000, 'a to lead');
    const b = campaign(elector('partitioned', 'candidate-b'));
    await sleep(1500);
    expect(b.ledAt).toBeUndefined();

    link.cut();
    const cutAt = performance.now();
    expect(await a.done).toEqual({ lost: true });
    const lostAt = performance.now();
    await waitFor(() => b.leading, 8000, 'b to take over');
    // a renewed at most retryPeriod before the cut and gives up within renewDeadline after its next
    // round; b waits a full lease duration from the last renew it saw: no two leaders at once.
    expect(lostAt).toBeLessThan(b.ledAt!);
    expect(lostAt - cutAt).toBeLessThan(500 + 2000 + 1500);
    expect(b.ledAt! - cutAt).toBeGreaterThanOrEqual(3000 - 500);
    expect(b.ledAt! - cutAt).toBeLessThan(3000 + 1100 + 3000);
    expect((await readLease('partitioned')).spec?.holderIdentity).toBe('candidate-b');
    b.stop();
    await b.done;
  });

  it('reports lost at its next renew when another holder overwrites the lease, and does not take it back', async () => {
    const a = campaign(elector('stolen', 'candidate-a'));
    await waitFor(() => a.leading, 5000, 'a to lead');
    const now = new Date();
    await kubectl(['patch', 'lease', 'stolen', '-n', 'default', '--type=merge', '-p', JSON.stringify({
      spec: { holderIdentity: 'intruder', renewTime: micro(now), acquireTime: micro(now) },
    })]);
    const overwritten = performance.now();
    // The next renew (within retryPeriod, 500 ms) sees the other holder: lost at once, without waiting
    // out renewDeadline while the intruder may already be acting as leader.
    expect(await a.done).toEqual({ lost: true });
    const tookMs = performance.now() - overwritten;
    expect(tookMs).toBeLessThan(500 + 1500);
    expect((await readLease('stolen')).spec?.holderIdentity).toBe('intruder');
    expect(a.startedLeading).toBe(1);
  });

  it('gives up campaigning when stopped before it ever leads, leaving the holder alone', async () => {
    const a = campaign(elector('held', 'candidate-a'));
    await waitFor(() => a.leading, 5000, 'a to lead');
    const b = campaign(elector('held', 'candidate-b'));
    await sleep(1500);
    b.stop();
    expect(await b.done).toEqual({ lost: false });
    expect(b.startedLeading).toBe(0);
    expect((await readLease('held')).spec?.holderIdentity).toBe('candidate-a');
    a.stop();
    await a.done;
  });

  it('creates the lease with its defaults when none exists', async () => {
    const e = new LeaderElector({ kubeConfig: env.kubeConfig, namespace: 'default', name: 'fresh' });
    expect(e.identity).toMatch(/^.+_[0-9a-f-]{36}$/);
    const c = campaign(e);
    await waitFor(() => c.leading, 5000, 'the only candidate to lead');
    const lease = await readLease('fresh');
    expect(lease.spec?.holderIdentity).toBe(e.identity);
    expect(lease.spec?.leaseDurationSeconds).toBe(15);
    expect(lease.spec?.leaseTransitions).toBe(0);
    c.stop();
    await c.done;
  });

  it('refuses timings client-go would refuse', () => {
    const base = { kubeConfig: env.kubeConfig, namespace: 'default', name: 'x' };
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 10_000 })).toThrow(
      'leader election: leaseDurationMs (10000) must be greater than renewDeadlineMs (10000)',
    );
    expect(() => new LeaderElector({ ...base, renewDeadlineMs: 2000, retryPeriodMs: 2000 })).toThrow(
      'leader election: renewDeadlineMs (2000) must be greater than 1.2 × retryPeriodMs (2000)',
    );
  });
});
