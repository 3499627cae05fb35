// Two managers with leader election against a real kube-apiserver (envtest): only the leader
// reconciles, the other takes over after the first stops, and a lost lease stops the manager.
import { CoordinationV1Api } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Namespace } from '../api/builtins.js';
import type { Client } from '../client/client.js';
import type { TestEnv } from '../envtest/index.js';
import { silentLogger } from '../log/index.js';
import { LeaderElectionLostError } from '../index.js';
import { createManager, type Manager } from '../manager/index.js';
import { Result } from '../reconcile/index.js';
import { Guestbook, useGuestbookEnv } from '../manager/testdata/guestbook.js';
import { started } from '../manager/testdata/started.js';
import { waitFor } from '../manager/testdata/wait.js';

let env: TestEnv;
let client: Client;

useGuestbookEnv((started) => ({ env, client } = started));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Reconciled { manager: string; name: string; at: number }

/** A manager with leader election whose Guestbook controller records every reconcile in `log`. */
async function electedManager(name: string, ns: string, lease: string, log: Reconciled[]): Promise<Manager> {
  const mgr = await createManager({
    kubeConfig: env.kubeConfig,
    logger: silentLogger(),
    namespaces: [ns],
    leaderElection: true,
    leaderElectionID: lease,
    leaderElectionNamespace: ns,
    leaseDurationMs: 5000,
    renewDeadlineMs: 3000,
    retryPeriodMs: 500,
    gracefulShutdownTimeoutMs: 5000,
  });
  mgr.controllerFor(Guestbook).complete({
    reconcile: async (req) => {
      log.push({ manager: name, name: req.name, at: performance.now() });
      return Result.done();
    },
  });
  return mgr;
}

async function createGuestbook(ns: string, name: string): Promise<void> {
  await client.create(Guestbook, { apiVersion: 'runtime.opgen.dev/v1', kind: 'Guestbook', metadata: { name, namespace: ns }, spec: { size: 1 } });
}

describe('managers with leader election', () => {
  it('only the leader reconciles; the other takes over within the lease duration after the first stops', async () => {
    const ns = 'election-handover';
    await client.create(Namespace, { metadata: { name: ns } });
    const log: Reconciled[] = [];
    const a = started(await electedManager('a', ns, 'guestbook-operator', log));
    const b = started(await electedManager('b', ns, 'guestbook-operator', log));

    await createGuestbook(ns, 'first');
    await waitFor(() => log.some((r) => r.name === 'first'), 15_000, 'a reconcile of "first"');
    const leaderName = log[0]!.manager;
    await createGuestbook(ns, 'second');
    await waitFor(() => log.some((r) => r.name === 'second'), 10_000, 'a reconcile of "second"');
    await sleep(2000);
    expect(new Set(log.map((r) => r.manager))).toEqual(new Set([leaderName]));

    const [leader, follower] = leaderName === 'a' ? [a, b] : [b, a];
    const followerName = leaderName === 'a' ? 'b' : 'a';
    leader.stop();
    await leader.done;
    expect(leader.settled).toBe('resolved');
    const stoppedAt = performance.now();

    // The follower lists the Guestbooks that exist once it leads, and reconciles new ones.
    await createGuestbook(ns, 'third');
    await waitFor(() => log.some((r) => r.manager === followerName && r.name === 'third'), 10_000, 'the follower to reconcile "third"');
    const takeover = log.find((r) => r.manager === followerName)!.at - stoppedAt;
    expect(takeover).toBeLessThan(5000);
    expect(log.filter((r) => r.manager === followerName).map((r) => r.name).sort()).toEqual(['first', 'second', 'third']);
    expect(log.filter((r) => r.manager === leaderName).every((r) => r.at < stoppedAt)).toBe(true);

    follower.stop();
    await follower.done;
    expect(follower.settled).toBe('resolved');
    const lease = await env.kubeConfig.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: 'guestbook-operator', namespace: ns });
    expect(lease.spec?.holderIdentity).toBeFalsy();
    expect(lease.spec?.leaseTransitions).toBe(1); // created by the first leader, handed over once
  });

  it('stops the manager with an error when another holder takes the lease', async () => {
    const ns = 'election-lost';
    await client.create(Namespace, { metadata: { name: ns } });
    const log: Reconciled[] = [];
    const a = started(await electedManager('a', ns, 'guestbook-operator', log));
    await createGuestbook(ns, 'only');
    await waitFor(() => log.length > 0, 15_000, 'the leader to reconcile');

    const now = new Date().toISOString().replace('Z', '000Z');
    await promisify(execFile)('kubectl', ['patch', 'lease', 'guestbook-operator', '-n', ns, '--type=merge', '-p',
      JSON.stringify({ spec: { holderIdentity: 'someone-else', renewTime: now, acquireTime: now } })],
      { env: { ...process.env, KUBECONFIG: env.kubeconfigPath } });
    await waitFor(() => a.settled !== undefined, 10_000, 'the manager to stop');
    expect(a.settled).toBeInstanceOf(LeaderElectionLostError);
    expect((a.settled as Error).message).toBe('leader election lost');
  });
});
