// Test support (excluded from the build with the rest of testdata/): a Backup CRD stored as v1alpha1 with
// objects in it, the switch of its storage version to v1, and etcd read directly, since the API server
// does not say in which version an object is stored.
import { groupVersion } from '../../api/kind.js';
import type { KubeObject } from '../../api/types.js';
import type { Client } from '../../client/client.js';
import { CustomResourceDefinition, type Crd } from '../crd.js';
import { eachLimited } from '../rewrite.js';

export const CRD_NAME = 'backups.ops.example.com';
export const BackupV1alpha1 = groupVersion('ops.example.com', 'v1alpha1').kind<Backup>('Backup', { plural: 'backups' });
export const BackupV1 = groupVersion('ops.example.com', 'v1').kind<Backup>('Backup', { plural: 'backups' });

export interface Backup extends KubeObject {
  spec: { size: number; target?: string };
}

const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, target: { type: 'string' } } } } } };

/** The CRD as `opgen generate` writes it for two versions, v1alpha1 the storage version, both served. */
export function backupCrd(storage: 'v1alpha1' | 'v1' = 'v1alpha1'): Crd {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: CRD_NAME },
    spec: {
      group: 'ops.example.com', scope: 'Namespaced', names: { kind: 'Backup', listKind: 'BackupList', plural: 'backups', singular: 'backup' },
      versions: [
        { name: 'v1alpha1', served: true, storage: storage === 'v1alpha1', schema },
        { name: 'v1', served: true, storage: storage === 'v1', schema },
      ],
    },
  } as Crd;
}

export async function installBackupCrd(client: Client): Promise<void> {
  await client.create(CustomResourceDefinition, backupCrd());
  await until(async () => {
    try {
      await client.list(BackupV1alpha1, { limit: 1 });
      return true;
    } catch {
      return false;
    }
  });
}

/** `count` Backups b-00000… in `namespace`, created as v1alpha1, with sizes 0…count-1. */
export async function createBackups(client: Client, count: number, namespace = 'default'): Promise<void> {
  const names = Array.from({ length: count }, (_, i) => i);
  await eachLimited(names, 16, async (i) => {
    await client.create(BackupV1alpha1, { metadata: { name: `b-${String(i).padStart(5, '0')}`, namespace }, spec: { size: i, target: `s3://bucket/${i}` } });
  });
}

/** Makes v1 the storage version and waits until the API server stores new objects as v1. */
export async function switchStorageToV1(client: Client, etcdUrl: string): Promise<void> {
  const crd = await client.get(CustomResourceDefinition, { name: CRD_NAME });
  crd.spec.versions = crd.spec.versions.map((v) => ({ ...v, storage: v.name === 'v1' }));
  await client.update(CustomResourceDefinition, crd);
  await until(async () => {
    const probe = await client.create(BackupV1, { metadata: { generateName: 'probe-', namespace: 'kube-system' }, spec: { size: 0 } });
    const stored = await storedObjects(etcdUrl, `/registry/ops.example.com/backups/kube-system/${probe.metadata!.name}`);
    await client.delete(BackupV1, { namespace: 'kube-system', name: probe.metadata!.name! });
    return stored[0]?.apiVersion === 'ops.example.com/v1';
  });
}

export interface StoredObject {
  key: string;
  /** The apiVersion of the JSON in etcd: the version the object is stored in. */
  apiVersion: string;
  /** etcd's count of writes of the key since it was created (1: never rewritten). */
  version: number;
  spec: unknown;
}

/** Every key under `prefix` as etcd holds it, read through etcd's JSON gateway (POST /v3/kv/range) in pages. */
export async function storedObjects(etcdUrl: string, prefix: string): Promise<StoredObject[]> {
  const b64 = (s: Buffer | string): string => Buffer.from(s).toString('base64');
  const end = Buffer.from(prefix);
  end[end.length - 1]!++;
  const out: StoredObject[] = [];
  let from = Buffer.from(prefix);
  for (;;) {
    const res = await fetch(`${etcdUrl}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: b64(from), range_end: b64(end), limit: 500 }) });
    const body = (await res.json()) as { kvs?: { key: string; value: string; version: string }[]; more?: boolean };
    for (const kv of body.kvs ?? []) {
      const value = JSON.parse(Buffer.from(kv.value, 'base64').toString('utf8')) as { apiVersion: string; spec?: unknown };
      out.push({ key: Buffer.from(kv.key, 'base64').toString('utf8'), apiVersion: value.apiVersion, version: Number(kv.version), spec: value.spec });
    }
    if (!body.more) return out;
    from = Buffer.concat([Buffer.from(out[out.length - 1]!.key), Buffer.from([0])]);
  }
}

/** The objects of `namespace` by stored version: `{ 'ops.example.com/v1': 1000 }`. */
export async function storedVersionCounts(etcdUrl: string, namespace = 'default'): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const o of await storedObjects(etcdUrl, `/registry/ops.example.com/backups/${namespace}/`)) counts[o.apiVersion] = (counts[o.apiVersion] ?? 0) + 1;
  return counts;
}

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}
