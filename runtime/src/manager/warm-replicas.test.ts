// Warm replicas against a real kube-apiserver (envtest), counted in the API server's own audit log:
// with `warmup` a standby lists and watches what its controllers use but queues nothing, and on
// becoming leader reconciles without listing again; without it (the default) a standby lists nothing
// until it leads. Each replica has its own user, so the audit log tells their requests apart.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Namespace } from '../api/builtins.js';
import { createClient, type Client } from '../client/client.js';
import { startTestEnv, type TestEnv } from '../envtest/index.js';
import { silentLogger } from '../log/index.js';
import { createManager, type Manager, type ManagerOptions } from './index.js';
import { Guestbook, guestbookCrd } from './testdata/guestbook.js';
import { waitFor } from './testdata/wait.js';

let env: TestEnv;
let client: Client;
let dir: string;
let auditLog: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'opgen-warmup-'));
  auditLog = join(dir, 'audit.log');
  const policy = join(dir, 'audit-policy.yaml');
  writeFileSync(policy, [
    'apiVersion: audit.k8s.io/v1',
    'kind: Policy',
    'omitStages: [RequestReceived]',
    'rules:',
    '  - level: Metadata',
    '    verbs: [list, watch]',
    '    resources: [{ group: runtime.opgen.dev, resources: [guestbooks] }]',
    '  - level: None',
  ].join('\n'));
  env = await startTestEnv({ crdPaths: [guestbookCrd], apiServerFlags: { 'audit-policy-file': policy, 'audit-log-path': auditLog } });
  client = createClient(env.kubeConfig);
});
afterAll(async () => {
  await env?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface AuditEvent { verb: string; stage: string; user: { username: string }; requestURI: string }

/** Guestbook requests of `user` with `verb` the API server has logged (list: completed; watch: started). */
function requests(user: string, verb: 'list' | 'watch'): AuditEvent[] {
  let text = '';
  try {
    text = readFileSync(auditLog, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditEvent)
    .filter((e) => e.user.username === user && e.verb === verb && e.stage === (verb === 'list' ? 'ResponseComplete' : 'ResponseStarted'));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A replica as its own user (system:masters), with a Guestbook controller recording what it reconciles. */
async function replica(user: string, ns: string, reconciled: string[], extra: Partial<ManagerOptions> = {}): Promise<Manager> {
  const mgr = await createManager({
    kubeConfig: env.addUser({ name: user, groups: ['system:masters'] }),
    logger: silentLogger(),
    namespaces: [ns],
    leaderElection: true,
    leaderElectionID: 'warmup',
    leaderElectionNamespace: ns,
    leaseDurationMs: 5000,
    renewDeadlineMs: 3000,
    retryPeriodMs: 300,
    ...extra,
  });
  mgr.controllerFor(Guestbook).complete({ reconcile: async (req) => void reconciled.push(`${user}/${req.name}`) });
  return mgr;
}

function started(mgr: Manager): { stop: () => void; done: Promise<void> } {
  const ctl = new AbortController();
  return { stop: () => ctl.abort(), done: mgr.start(ctl.signal) };
}

async function scenario(ns: string, standbyUser: string, standbyOptions: Partial<ManagerOptions>) {
  await client.create(Namespace, { metadata: { name: ns } });
  for (const name of ['one', 'two', 'three']) await client.create(Guestbook, { metadata: { name, namespace: ns }, spec: {} });
  const reconciled: string[] = [];
  const leader = await replica(`${ns}-leader`, ns, reconciled);
  const leaderRun = started(leader);
  await waitFor(() => reconciled.length >= 3, 20_000, 'the first replica to lead and reconcile all three');
  const standby = await replica(standbyUser, ns, reconciled, standbyOptions);
  const standbyRun = started(standby);
  return { reconciled, standby, leaderRun, standbyRun };
}

describe('warm replicas', () => {
  it('warmup: the standby lists and watches once, queues nothing, and as the new leader reconciles without a second list', async () => {
    const { reconciled, standby, leaderRun, standbyRun } = await scenario('warm', 'warm-standby', { warmup: true });
    await waitFor(() => requests('warm-standby', 'list').length === 1 && requests('warm-standby', 'watch').length === 1, 15_000, 'the standby to list and watch');
    await waitFor(() => standby.cache.hasSynced(), 10_000, 'the standby cache to sync');
    await sleep(1000);
    expect(reconciled.filter((r) => r.startsWith('warm-standby/'))).toEqual([]);

    leaderRun.stop();
    await leaderRun.done;
    await waitFor(() => reconciled.filter((r) => r.startsWith('warm-standby/')).length >= 3, 20_000, 'the new leader to reconcile all three');
    expect(requests('warm-standby', 'list')).toHaveLength(1); // the one from its warm-up
    expect(requests('warm-standby', 'watch')).toHaveLength(1);
    standbyRun.stop();
    await standbyRun.done;
  });

  it('default: a standby lists nothing and is ready; it lists once it leads', async () => {
    const { reconciled, standby, leaderRun, standbyRun } = await scenario('cold', 'cold-standby', {});
    await sleep(3000); // long enough for a warm standby to have listed (the test above waits under 1 s)
    expect(requests('cold-standby', 'list')).toEqual([]);
    expect(requests('cold-standby', 'watch')).toEqual([]);
    expect(standby.cache.hasSynced()).toBe(true); // its readiness check (informer-sync) passes: nothing it runs is unsynced

    leaderRun.stop();
    await leaderRun.done;
    await waitFor(() => reconciled.filter((r) => r.startsWith('cold-standby/')).length >= 3, 20_000, 'the new leader to reconcile all three');
    expect(requests('cold-standby', 'list')).toHaveLength(1);
    standbyRun.stop();
    await standbyRun.done;
  });

  it('default: a read through a standby\'s cache (a webhook reading) starts that kind\'s informer there', async () => {
    const ns = 'cold-read';
    await client.create(Namespace, { metadata: { name: ns } });
    await client.create(Guestbook, { metadata: { name: 'only', namespace: ns }, spec: {} });
    const reconciled: string[] = [];
    const leaderRun = started(await replica(`${ns}-leader`, ns, reconciled));
    await waitFor(() => reconciled.length >= 1, 20_000, 'the leader to reconcile');
    const standby = await replica('cold-reader', ns, reconciled);
    const standbyRun = started(standby);
    await sleep(1000);
    expect(requests('cold-reader', 'list')).toEqual([]);
    expect((await standby.client.list(Guestbook, { namespace: ns })).items.map((g) => g.metadata?.name)).toEqual(['only']);
    expect(requests('cold-reader', 'list')).toHaveLength(1);
    expect(reconciled.filter((r) => r.startsWith('cold-reader/'))).toEqual([]);
    standbyRun.stop();
    leaderRun.stop();
    await Promise.all([standbyRun.done, leaderRun.done]);
  });
});
