// One leader under faults that stop the leader from renewing without failing its renew, against a real
// kube-apiserver (envtest): a reconcile that blocks the event loop past renewDeadline, and an exec
// credential plugin that answers once and then hangs. Leadership counts from the last successful
// renew, so in both cases the leader sends nothing more once renewDeadline has passed, steps down
// and its start() rejects (the scaffolded main exits non-zero).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigMap, Lease, Namespace } from '../api/builtins.js';
import type { Client } from '../client/client.js';
import { isNotFound } from '../client/errors.js';
import type { TestEnv } from '../envtest/index.js';
import { loadKubeConfig } from '../kubeconfig/index.js';
import { silentLogger } from '../log/index.js';
import { createManager, type Manager, type ManagerOptions } from '../manager/index.js';
import { Guestbook, useGuestbookEnv } from '../manager/testdata/guestbook.js';
import { started } from '../manager/testdata/started.js';
import { waitFor } from '../manager/testdata/wait.js';
import { Result } from '../reconcile/index.js';
import { Transport } from '../transport/index.js';
import { LeaderElectionLostError } from '../index.js';

const plugin = fileURLToPath(new URL('../kubeconfig/testdata/exec-plugin.mjs', import.meta.url));
let env: TestEnv;
let admin: Client;
let work: string;

useGuestbookEnv((started) => ({ env, client: admin } = started));
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'opgen-fencing-'));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

const timings = { leaseDurationMs: 5000, renewDeadlineMs: 3000, retryPeriodMs: 500 };

async function elected(ns: string, kubeConfig: ManagerOptions['kubeConfig'], lease: string): Promise<Manager> {
  return createManager({
    kubeConfig,
    logger: silentLogger(),
    namespaces: [ns],
    leaderElection: true,
    leaderElectionID: lease,
    leaderElectionNamespace: ns,
    ...timings,
  });
}

const busyWait = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // a long synchronous reconcile
  }
};

describe('leadership counts from the last successful renew', () => {
  it('a reconcile that blocks the event loop past renewDeadline: its next write is refused, the manager steps down and start() rejects', async () => {
    const ns = 'blocked-loop';
    await admin.create(Namespace, { metadata: { name: ns } });
    await admin.create(Guestbook, { metadata: { namespace: ns, name: 'g' }, spec: { size: 1 } });
    const mgr = await elected(ns, env.kubeConfig, 'fencing-blocked');
    let afterBlock: 'written' | Error | undefined;
    mgr.controllerFor(Guestbook).complete({
      reconcile: async (req) => {
        if (afterBlock !== undefined) return Result.done();
        // Longer than leaseDuration: another replica could have taken the lease meanwhile.
        busyWait(timings.leaseDurationMs + 1000);
        try {
          await mgr.client.create(ConfigMap, { metadata: { namespace: req.namespace, name: 'written-after-block' }, data: {} });
          afterBlock = 'written';
        } catch (err) {
          afterBlock = err as Error;
        }
        return Result.done();
      },
    });
    const run = started(mgr);
    try {
      await waitFor(() => afterBlock !== undefined, 30_000, 'the reconcile after the block');
      expect(afterBlock).toBeInstanceOf(Error);
      expect((afterBlock as Error).message).toMatch(/leader election lost|renewDeadline/);
      await expect(admin.get(ConfigMap, { namespace: ns, name: 'written-after-block' })).rejects.toSatisfy(isNotFound);
      await waitFor(() => run.settled !== undefined, 10_000, 'the manager to stop');
      expect(run.settled).toBeInstanceOf(LeaderElectionLostError);
      expect((run.settled as Error).message).toContain('leader election lost');
    } finally {
      run.stop();
      await run.done;
    }
  });

  it('an exec plugin that answers once, then hangs: the leader steps down and exits non-zero, and writes nothing after another manager takes over', async () => {
    const ns = 'hung-plugin';
    await admin.create(Namespace, { metadata: { name: ns } });
    await admin.create(Guestbook, { metadata: { namespace: ns, name: 'g' }, spec: { size: 1 } });
    // A client-certificate user of the API server, handed out by the plugin for 2 s at a time.
    const user = env.addUser({ name: 'hung-plugin-leader', groups: ['system:masters'] }).getCurrentUser()!;
    const dir = join(work, 'hung');
    mkdirSync(dir, { recursive: true });
    const hangWhile = join(dir, 'hang');
    writeFileSync(join(dir, 'cert.pem'), Buffer.from(user.certData!, 'base64'));
    writeFileSync(join(dir, 'key.pem'), Buffer.from(user.keyData!, 'base64'));
    writeFileSync(hangWhile, '');
    const runLog = join(dir, 'runs.log');
    const kubeconfigFile = join(dir, 'config');
    writeFileSync(kubeconfigFile, stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'envtest', cluster: { server: env.server, 'certificate-authority-data': Buffer.from(env.caData).toString('base64') } }],
      users: [{ name: 'u', user: { exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: process.execPath,
        args: [plugin],
        env: [
          { name: 'PLUGIN_CERT_FILE', value: join(dir, 'cert.pem') },
          { name: 'PLUGIN_KEY_FILE', value: join(dir, 'key.pem') },
          { name: 'PLUGIN_EXPIRES_IN_MS', value: '2000' },
          { name: 'PLUGIN_RUN_LOG', value: runLog },
          { name: 'PLUGIN_HANG_WHILE', value: hangWhile },
        ],
        interactiveMode: 'Never',
      } } }],
      contexts: [{ name: 'ctx', context: { cluster: 'envtest', user: 'u' } }],
      'current-context': 'ctx',
    }));
    const savedKubeconfig = process.env.KUBECONFIG;
    process.env.KUBECONFIG = kubeconfigFile;
    let pluginKubeConfig;
    try {
      pluginKubeConfig = await loadKubeConfig();
    } finally {
      if (savedKubeconfig === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = savedKubeconfig;
    }

    // A writes a ConfigMap on every reconcile, 5 times a second, as leader.
    const a = await elected(ns, pluginKubeConfig, 'fencing-plugin');
    let written = 0;
    a.controllerFor(Guestbook).complete({
      reconcile: async (req) => {
        await a.client.create(ConfigMap, { metadata: { namespace: req.namespace, generateName: 'by-a-', labels: { writer: 'a' } }, data: {} });
        written++;
        return Result.requeueAfter(200);
      },
    });
    const runA = started(a);
    const b = await elected(ns, env.kubeConfig, 'fencing-plugin');
    let bLeads = false;
    b.controllerFor(Guestbook).complete({ reconcile: async () => void (bLeads = true) });
    let runB: ReturnType<typeof started> | undefined;
    try {
      await waitFor(() => written > 0, 20_000, 'A to lead and write');
      // The lease's history from here: the resourceVersion of the update that gave it to B.
      const held = await admin.get(Lease, { namespace: ns, name: 'fencing-plugin' });
      const holderA = held.spec?.holderIdentity;
      let takeover: number | undefined;
      let aWhenTakenOver: 'running' | 'resolved' | Error | undefined;
      const watchStop = new AbortController();
      const watcher = new Transport(env.kubeConfig);
      const watching = (async () => {
        const events = watcher.watch(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, { fieldSelector: 'metadata.name=fencing-plugin', resourceVersion: held.metadata!.resourceVersion }, watchStop.signal);
        for await (const ev of events) {
          const lease = ev.object as { metadata?: { resourceVersion?: string }; spec?: { holderIdentity?: string } };
          const holder = lease.spec?.holderIdentity ?? '';
          if (holder !== '' && holder !== holderA) {
            takeover = Number(lease.metadata!.resourceVersion);
            aWhenTakenOver = runA.settled ?? 'running';
            return;
          }
        }
      })().catch(() => {});
      runB = started(b);
      // The plugin's credential expires after 2 s; its second run hangs. B takes the lease once it expires.
      await waitFor(() => bLeads && takeover !== undefined, 30_000, 'B to take over the lease');
      watchStop.abort();
      await watching;
      watcher.destroy();
      // One leader: A had stepped down (start() rejected) before B took the lease.
      expect(aWhenTakenOver).toBeInstanceOf(LeaderElectionLostError);
      expect((aWhenTakenOver as Error).message).toContain('leader election lost');
      // The plugin answers again: whatever A still had queued could go out now.
      unlinkSync(hangWhile);
      await new Promise((r) => setTimeout(r, 2000));
      const byA = (await admin.list(ConfigMap, { namespace: ns, labelSelector: { writer: 'a' } })).items;
      expect(byA.length).toBeGreaterThan(0);
      const lastWriteByA = Math.max(...byA.map((cm) => Number(cm.metadata!.resourceVersion)));
      expect(lastWriteByA).toBeLessThan(takeover!);
      expect(readFileSync(runLog, 'utf8').split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(2);
    } finally {
      try {
        unlinkSync(hangWhile);
      } catch {
        // gone already
      }
      runA.stop();
      runB?.stop();
      await Promise.all([runA.done, runB?.done]);
    }
  });
});
