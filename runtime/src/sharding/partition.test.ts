// A replica partitioned from the cluster past its Lease (SIGSTOP, then SIGCONT once the others have
// taken its share) must write nothing when it resumes, in every mode, and exit 1. Its writes are
// counted from outside, by watching the API server from just before the SIGCONT: a change of its
// shard Lease by it (a renew), a ConfigMap whose data it rewrote (the replicas' reconciler names its
// writer in data.writer), a shard label it released (label mode's acknowledgement). Many partitions,
// short Leases, each victim idle when stopped, so that when it resumes its Lease-loop timer (due long
// ago) runs before any watch event: the order in which a renew used to refresh the fence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMap, Lease, Namespace } from '../api/builtins.js';
import type { KubeObject } from '../api/types.js';
import { createClient, type Client } from '../client/client.js';
import { startTestEnv, type TestEnv } from '../envtest/index.js';
import { Guestbook, guestbookCrd } from '../manager/testdata/guestbook.js';
import { resourcePath, Transport } from '../transport/index.js';
import type { OwnershipEvent } from './sharding.js';
import { Replica, until, useRuntimeBuild } from './testdata/processes.js';
import type { Reconcile } from './testdata/spans.js';

/** Partitions per mode: OPGEN_SHARDING_PARTITIONS overrides. */
const partitions = Number(process.env.OPGEN_SHARDING_PARTITIONS ?? 5);
const objects = 24;
const timings = { OPGEN_LEASE_MS: '4000', OPGEN_RENEW_MS: '3000', OPGEN_RETRY_MS: '500' };
const shard = 'sharding.opgen.dev/shard-guestbooks';
const build = useRuntimeBuild();

let env: TestEnv;
let client: Client;
const replicas: Replica[] = [];

beforeAll(async () => {
  // The gate on, so server mode can run; client and label mode are forced (OPGEN_SHARDING_MODE).
  env = await startTestEnv({ crdPaths: [guestbookCrd], apiServerFlags: { 'feature-gates': 'ShardedListAndWatch=true' }, simulatedCluster: true });
  client = createClient(env.kubeConfig);
}, 120_000);
afterAll(async () => {
  for (const r of replicas) if (r.exitCode === undefined) r.kill('SIGKILL');
  await Promise.all(replicas.map((r) => r.exited));
  await env?.stop();
});

/**
 * Watches the namespace's Leases, ConfigMaps and Guestbooks from now on, and names every write the
 * API server shows `member` made: its Lease changed, a ConfigMap's data rewritten with it as writer,
 * its shard label removed (only the labelled replica removes its own label; the sharder replaces it).
 */
async function watchWrites(ns: string, member: string) {
  const transport = new Transport(env.kubeConfig);
  const stop = new AbortController();
  const writes: string[] = [];
  const last = new Map<string, KubeObject>();
  const seen = new Set<string>();
  const judge: Record<string, (before: KubeObject | undefined, after: KubeObject) => string | undefined> = {
    Lease: (_, after) => ((after as Lease).spec?.holderIdentity === member ? 'renewed its Lease' : undefined),
    ConfigMap: (before, after) => {
      const data = (after as ConfigMap).data;
      return data?.writer === member && JSON.stringify(data) !== JSON.stringify((before as ConfigMap | undefined)?.data) ? `wrote ConfigMap ${after.metadata?.name}` : undefined;
    },
    Guestbook: (before, after) => (before?.metadata?.labels?.[shard] === member && !after.metadata?.labels?.[shard] ? `released Guestbook ${after.metadata?.name}` : undefined),
  };
  const watches = [Lease, ConfigMap, Guestbook].map(async (kind) => {
    const list = await client.list(kind as typeof ConfigMap, { namespace: ns });
    for (const o of list.items) last.set(`${kind.kind}/${o.metadata?.name}`, o);
    try {
      for await (const ev of transport.watch(resourcePath(kind, ns), { resourceVersion: list.metadata?.resourceVersion }, stop.signal)) {
        const obj = ev.object as KubeObject;
        const key = `${kind.kind}/${obj.metadata?.name}`;
        seen.add(key);
        if (ev.type === 'DELETED') continue;
        const write = judge[kind.kind]!(last.get(key), obj);
        if (write) writes.push(`${write} (resourceVersion ${obj.metadata?.resourceVersion})`);
        last.set(key, obj);
      }
    } catch (err) {
      if (!stop.signal.aborted) throw err;
    }
  });
  return {
    /** Ends the watches once they have seen a marker written after everything else; answers the writes. */
    async stop(round: string): Promise<string[]> {
      const name = `marker-${round}`;
      await client.create(ConfigMap, { metadata: { name, namespace: ns } });
      await client.create(Lease, { metadata: { name, namespace: ns }, spec: {} });
      await until('the watches to see the markers', 30_000, () => seen.has(`ConfigMap/${name}`) && seen.has(`Lease/${name}`));
      stop.abort();
      await Promise.all(watches);
      transport.destroy();
      return writes;
    },
  };
}

describe.each(['server', 'client', 'label'] as const)('partitions in %s mode', (mode) => {
  it(`a replica stopped past its Lease and resumed (${partitions} times) writes nothing after it resumes, and exits 1`, async () => {
    const ns = `partition-${mode}`;
    await client.create(Namespace, { metadata: { name: ns } });
    const names = Array.from({ length: objects }, (_, i) => `gb-${i}`);
    await Promise.all(names.map((name) => client.create(Guestbook, { metadata: { name, namespace: ns }, spec: { size: 1 } })));
    const records: Reconcile[] = [];
    const spans: OwnershipEvent[] = [];
    const mine: Replica[] = [];
    const start = (id: string) => {
      const r = new Replica(id, build(), env.kubeconfigPath, ns, records, spans, { OPGEN_SHARDING_MODE: mode, OPGEN_OWNED: '1', OPGEN_CM_WRITER: '1', ...timings });
      replicas.push(r);
      mine.push(r);
      return r;
    };
    const debug = () => [mine[0]!, mine.at(-1)!].map((r) => `${r.id} (exit ${r.exitCode}): ${JSON.stringify(r.gauges)}\n${r.stderr.split('\n').slice(-4).join('\n')}`).join('\n');
    const unreconciled = async () => {
      const done = new Set(records.map((r) => `${r.k}@${r.v}`));
      return (await client.list(Guestbook, { namespace: ns })).items.filter((g) => !done.has(`${g.metadata!.name}@${g.metadata!.resourceVersion}`)).length;
    };
    const touch = (round: string) => Promise.all(names.map((name) => client.patch(Guestbook, { namespace: ns, name }, { type: 'merge', body: { spec: { message: `round ${round}` } } })));
    const alone = () => stable.gauges.opgen_sharding_ring_members === 1 && stable.gauges.opgen_sharding_objects_owned === objects;

    const stable = start('a');
    await until('the first replica to own every object', 60_000, alone, debug);
    const writes: string[] = [];
    const exits: string[] = [];
    for (let i = 0; i < partitions; i++) {
      const victim = start(`v${i}`);
      await until(`v${i} to join and own a share`, 60_000, () => [stable, victim].every((r) => r.gauges.opgen_sharding_ring_members === 2 && r.gauges.opgen_sharding_active === 1) && (victim.gauges.opgen_sharding_objects_owned ?? 0) > 0, debug);
      // Work for both, reconciled, then the victim is idle when it is stopped.
      await touch(`${i}`);
      await until('every object reconciled', 60_000, async () => (await unreconciled()) === 0, debug);
      victim.kill('SIGSTOP');
      await until(`the other replica to own everything once v${i}'s Lease expired`, 60_000, alone, debug);
      const watch = await watchWrites(ns, victim.id);
      victim.kill('SIGCONT');
      // Fenced, it exits; a replica that went on would renew, rejoin, and reconcile its share of new work.
      await until(`v${i} to exit or rejoin`, 30_000, () => victim.exitCode !== undefined || stable.gauges.opgen_sharding_ring_members === 2, debug);
      await touch(`${i}.resumed`);
      await until('every object reconciled after the resume', 60_000, async () => (await unreconciled()) === 0, debug);
      if (victim.exitCode === undefined) victim.kill('SIGKILL');
      await victim.exited;
      exits.push(victim.killedAt === undefined ? String(victim.exitCode) : 'killed');
      writes.push(...(await watch.stop(`${i}`)).map((w) => `partition ${i}: v${i} ${w}`));
      await until('the other replica alone again', 60_000, alone, debug);
    }
    console.log(`sharding partitions, ${mode} mode: ${partitions} partitions, writes after the resume: ${writes.length}${writes.length ? ` (${writes.slice(0, 3).join('; ')} ...)` : ''}; exit codes ${exits.join(',')}`);
    expect(writes).toEqual([]);
    expect(exits).toEqual(Array<string>(partitions).fill('1'));
    expect(stable.exitCode).toBeUndefined();
    stable.kill('SIGTERM');
    await stable.exited;
  }, 900_000);
});
