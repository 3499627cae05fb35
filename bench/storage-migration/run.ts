// bench/storage-migration: objects migrated per second by migrateStorage, through each path: rewritten by
// the client (envtest) and by kube-controller-manager's StorageVersionMigration controller (simulated
// cluster with the StorageVersionMigrator gate). N objects are created as v1alpha1, v1 becomes the storage
// version, the clock runs over migrateStorage (migration, check listing, storedVersions prune).
// Usage (via `npm run bench:storage-migration -- <flags>`): --objects 10000 --paths client,server
import { parseArgs } from 'node:util';
import { createClient, groupVersion, migrateStorage, type Client } from '@opgen/runtime';
import { startTestEnv, type TestEnvOptions } from '@opgen/runtime/envtest';

const { values } = parseArgs({ options: { objects: { type: 'string', default: '10000' }, paths: { type: 'string', default: 'client,server' }, concurrency: { type: 'string', default: '8' } } });
const objects = Number(values.objects);
if (!Number.isInteger(objects) || objects < 1) {
  console.error(`bench:storage-migration: --objects ${values.objects} is not a positive whole number; pass e.g. --objects 10000`);
  process.exit(2);
}
const CRD = 'backups.ops.example.com';
const Crds = groupVersion('apiextensions.k8s.io', 'v1').kind<any>('CustomResourceDefinition', { plural: 'customresourcedefinitions', namespaced: false });
const Backup = groupVersion('ops.example.com', 'v1alpha1').kind('Backup', { plural: 'backups' });
const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function prepare(client: Client): Promise<void> {
  await client.create(Crds, { metadata: { name: CRD }, spec: { group: 'ops.example.com', scope: 'Namespaced', names: { kind: 'Backup', listKind: 'BackupList', plural: 'backups', singular: 'backup' }, versions: [{ name: 'v1alpha1', served: true, storage: true, schema }, { name: 'v1', served: true, storage: false, schema }] } });
  for (;;) {
    try {
      await client.list(Backup, { limit: 1 });
      break;
    } catch {
      await sleep(200);
    }
  }
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < objects) {
      const i = next++;
      await client.create(Backup, { metadata: { name: `b-${i}`, namespace: 'default' }, spec: { size: i } } as any);
    }
  }));
  const crd = await client.get(Crds, { name: CRD });
  crd.spec.versions = crd.spec.versions.map((v: { name: string }) => ({ ...v, storage: v.name === 'v1' }));
  await client.update(Crds, crd);
  await sleep(2000); // the API server's CRD handler picks up the new storage version
}

const gates = { 'feature-gates': 'StorageVersionMigrator=true' };
const setups: Record<string, TestEnvOptions> = {
  client: {},
  server: { apiServerFlags: { ...gates, 'runtime-config': 'storagemigration.k8s.io/v1beta1=true' }, simulatedCluster: { controllerManagerFlags: gates } },
};
for (const path of values.paths!.split(',') as ('client' | 'server')[]) {
  const env = await startTestEnv(setups[path]);
  try {
    const client = createClient(env.kubeConfig);
    await prepare(client);
    const r = await migrateStorage(client, CRD, { via: path, concurrency: Number(values.concurrency) });
    console.log(`${path}: ${objects} objects migrated in ${r.seconds.toFixed(1)} s = ${Math.round(objects / r.seconds)} objects/s (via ${r.via}; rewritten here ${r.counts.rewritten}, check rewrote ${r.verifyRewrote}; storedVersions [${r.storedBefore.join(' ')}] -> [${r.storedAfter.join(' ')}])`);
  } finally {
    await env.stop();
  }
}
