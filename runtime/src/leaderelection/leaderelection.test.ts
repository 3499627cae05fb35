// Leader election against a real kube-apiserver (envtest). The test reads and overwrites the Lease
// through kubectl and client-node, not through the elector's own lease client.
import { CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../envtest/index.js';
import { type LeaderElectionConfig, LeaderElector } from './index.js';

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

async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<number> {
  const start = performance.now();
  while (!cond()) {
    if (performance.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - start;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    // Next attempt comes within retryPeriod × (1 + 1.2 jitter); allow a second for the API calls.
    await waitFor(() => follower.leading, 2100, 'the follower to take over the released lease');
    expect(follower.ledAt! - released).toBeLessThan(2100);
    const taken = await readLease('one-leader');
    expect(taken.spec?.holderIdentity).toBe(followerId);
    expect(taken.spec?.leaseTransitions).toBe((first.spec?.leaseTransitions ?? 0) + 1);

    follower.stop();
    expect(await follower.done).toEqual({ lost: false });
    expect((await readLease('one-leader')).spec?.holderIdentity).toBeFalsy();
    expect(leader.startedLeading).toBe(1);
    expect(follower.startedLeading).toBe(1);
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

    await waitFor(() => b.leading, 4000, 'the candidate to take over the expired lease');
    const waited = b.ledAt! - started;
    expect(waited).toBeGreaterThanOrEqual(3000);
    expect(waited).toBeLessThan(3000 + 1100 + 1500);
    const lease = await readLease('crashed');
    expect(lease.spec?.holderIdentity).toBe('candidate-b');
    expect(lease.spec?.leaseTransitions).toBe(5);
    b.stop();
    await b.done;
  });

  it('reports lost when another holder overwrites the lease and does not take it back', async () => {
    const a = campaign(elector('stolen', 'candidate-a'));
    await waitFor(() => a.leading, 5000, 'a to lead');
    const now = new Date();
    await kubectl(['patch', 'lease', 'stolen', '-n', 'default', '--type=merge', '-p', JSON.stringify({
      spec: { holderIdentity: 'intruder', renewTime: micro(now), acquireTime: micro(now) },
    })]);
    const overwritten = performance.now();
    // Renew fails from the next round on; after renewDeadline (2 s) of failing, leadership is lost.
    expect(await a.done).toEqual({ lost: true });
    const tookMs = performance.now() - overwritten;
    expect(tookMs).toBeGreaterThanOrEqual(1500);
    expect(tookMs).toBeLessThan(500 + 2000 + 1500);
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
