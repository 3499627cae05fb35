// migrateStorage against a real kube-apiserver + etcd: objects stored as v1alpha1, storage switched to
// v1, migrated; etcd read directly shows the version every object is stored in.
import { describe, expect, it } from 'vitest';
import { createClient, type Client } from '../client/client.js';
import { retryOnConflict } from '../client/errors.js';
import { startTestEnv, type TestEnv } from '../envtest/index.js';
import { eventually } from '../envtest/eventually.js';
import { useTestEnv } from '../envtest/testdata/use-test-env.js';
import { CustomResourceDefinition } from './crd.js';
import { createLogger } from '../log/index.js';
import { migrateStorage, type StorageMigrationProgress } from './migrate.js';
import { storageMigration } from './runnable.js';
import { BackupV1, CRD_NAME, createBackups, installBackupCrd, storedObjects, storedVersionCounts, switchStorageToV1 } from './testdata/backups.js';

const SVM_GATES = { 'feature-gates': 'StorageVersionMigrator=true' };

/** What a user checks after a migration: every object stored as v1 and written exactly once more, storedVersions [v1], v1alpha1 removable. */
async function expectMigrated(client: Client, etcdUrl: string, count: number): Promise<void> {
  const stored = await storedObjects(etcdUrl, '/registry/ops.example.com/backups/default/');
  expect(stored).toHaveLength(count);
  expect(stored.filter((o) => o.apiVersion !== 'ops.example.com/v1').map((o) => o.key)).toEqual([]);
  expect((await client.get(CustomResourceDefinition, { name: CRD_NAME })).status?.storedVersions).toEqual(['v1']);
  const crd = await client.get(CustomResourceDefinition, { name: CRD_NAME });
  crd.spec.versions = crd.spec.versions.filter((v) => v.name !== 'v1alpha1');
  await client.update(CustomResourceDefinition, crd); // refused while v1alpha1 is in storedVersions
  const list = await eventually(() => client.list(BackupV1, { namespace: 'default' })); // the server re-initializes the CRD's storage
  expect(list.items.map((b) => b.spec.size).sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
  expect(list.items.every((b) => b.spec.target === `s3://bucket/${b.spec.size}`)).toBe(true);
}

describe('migrateStorage on envtest (no StorageVersionMigration served: rewritten here)', () => {
  let env!: TestEnv;
  let client!: Client;
  useTestEnv({}, (s) => ({ env, client } = s));

  it('rewrites 1,000 v1alpha1 objects as v1, each once, prunes storedVersions, and lets v1alpha1 go', async () => {
    await installBackupCrd(client);
    await createBackups(client, 1000);
    await switchStorageToV1(client, env.etcdUrl);
    expect(await storedVersionCounts(env.etcdUrl)).toEqual({ 'ops.example.com/v1alpha1': 1000 });
    const crd = await client.get(CustomResourceDefinition, { name: CRD_NAME });
    expect(crd.status?.storedVersions).toEqual(['v1alpha1', 'v1']);
    // Removing v1alpha1 now is refused by the API server: the state the migration must get out of.
    await expect(client.update(CustomResourceDefinition, { ...crd, spec: { ...crd.spec, versions: crd.spec.versions.filter((v) => v.name !== 'v1alpha1') } })).rejects.toThrow(/storedVersions/);

    const progress: StorageMigrationProgress[] = [];
    const result = await migrateStorage(client, CRD_NAME, { pageSize: 100, onProgress: (p) => progress.push(p) });
    expect(result).toMatchObject({ via: 'client', storageVersion: 'v1', storedBefore: ['v1alpha1', 'v1'], storedAfter: ['v1'], counts: { rewritten: 1000, current: 0, gone: 0 }, verifyRewrote: 0 });
    const rewrite = progress.filter((p) => p.phase === 'rewrite');
    expect(rewrite).toHaveLength(10);
    expect(rewrite[0]).toMatchObject({ done: 100, total: 1000 });
    expect(rewrite[0]!.etaSeconds).toBeGreaterThan(0);
    // Written once by the migration (etcd's version 2: created, then rewritten), not again by the check.
    const stored = await storedObjects(env.etcdUrl, '/registry/ops.example.com/backups/default/');
    expect(stored.filter((o) => o.version !== 2)).toEqual([]);
    await expectMigrated(client, env.etcdUrl, 1000);

    // A second run finds storedVersions [v1] and writes nothing.
    expect(await migrateStorage(client, CRD_NAME)).toMatchObject({ via: 'none', counts: { rewritten: 0 } });
    expect((await storedObjects(env.etcdUrl, '/registry/ops.example.com/backups/default/')).filter((o) => o.version !== 2)).toEqual([]);
  });
});

describe('storageMigration (the manager\'s runnable) beside an operator that writes', () => {
  let env!: TestEnv;
  let client!: Client;
  useTestEnv({}, (s) => ({ env, client } = s));

  it('loses no concurrent update: conflicts are retried, and every object ends in v1', async () => {
    await installBackupCrd(client);
    await createBackups(client, 600);
    await switchStorageToV1(client, env.etcdUrl);
    const writer = createClient(env.kubeConfig);
    const increments = new Map<string, number>();
    let writing = true;
    let written = 0;
    // The operator: read-modify-write of spec.target with the resourceVersion it read, as reconcilers do.
    const operator = (async () => {
      while (writing) {
        const name = `b-${String(Math.floor(Math.random() * 600)).padStart(5, '0')}`;
        await retryOnConflict(async () => {
          const b = await writer.get(BackupV1, { namespace: 'default', name });
          await writer.update(BackupV1, { ...b, spec: { ...b.spec, target: `${b.spec.target}+` } });
        }, { steps: 50 });
        increments.set(name, (increments.get(name) ?? 0) + 1);
        written++;
      }
    })();
    // Run as the operator's manager runs it (manager.add(storageMigration(...)), on the leader).
    const lines: string[] = [];
    const runnable = storageMigration(client, [CRD_NAME], { pageSize: 50, concurrency: 4, progressEveryMs: 0, logger: createLogger({ write: (l) => void lines.push(l) }) });
    expect(runnable.needLeaderElection).toBe(true);
    await runnable.start(new AbortController().signal);
    writing = false;
    await operator;
    expect(written).toBeGreaterThan(20);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.find((l) => l.msg === 'storage migration progress' && l.phase === 'rewrite')).toMatchObject({ crd: CRD_NAME, total: 600 });
    expect(logged.find((l) => l.msg === 'storage migrated')).toMatchObject({ crd: CRD_NAME, via: 'client', storageVersion: 'v1', storedVersions: ['v1'] });
    expect((await client.get(CustomResourceDefinition, { name: CRD_NAME })).status?.storedVersions).toEqual(['v1']);
    expect(await storedVersionCounts(env.etcdUrl)).toEqual({ 'ops.example.com/v1': 600 });
    const list = await client.list(BackupV1, { namespace: 'default' });
    for (const b of list.items) expect(b.spec.target).toBe(`s3://bucket/${b.spec.size}${'+'.repeat(increments.get(b.metadata!.name!) ?? 0)}`);
  });
});

describe('migrateStorage through a StorageVersionMigration (simulated cluster, migrator controller on)', () => {
  let env: TestEnv | undefined;

  it('creates the StorageVersionMigration, follows it to Succeeded, checks and prunes', async () => {
    env = await startTestEnv({
      apiServerFlags: { ...SVM_GATES, 'runtime-config': 'storagemigration.k8s.io/v1beta1=true' },
      simulatedCluster: { controllerManagerFlags: SVM_GATES },
    });
    try {
      const client = createClient(env.kubeConfig);
      await installBackupCrd(client);
      await createBackups(client, 1000);
      await switchStorageToV1(client, env.etcdUrl);
      const result = await migrateStorage(client, CRD_NAME, { via: 'server' });
      expect(result).toMatchObject({ via: 'server', storedAfter: ['v1'], verifyRewrote: 0 });
      await expectMigrated(client, env.etcdUrl, 1000);
    } finally {
      await env.stop();
    }
  }, 180_000);
});

