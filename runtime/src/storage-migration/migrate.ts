// migrateStorage: every stored object of a CRD rewritten in its storage version, checked by a second
// listing, then status.storedVersions pruned to the storage version, so older versions can be removed.
import type { Client } from '../client/client.js';
import { CustomResourceDefinition, pruneStoredVersions, storageKind, storageVersionOf, type Crd } from './crd.js';
import { rewritePass, type PassCounts } from './rewrite.js';
import { migrateOnServer, NoMigratorError, servesStorageVersionMigration } from './server.js';

/** Where an interrupted migration stands; pass it back as `resume` to continue there. */
export interface StorageMigrationCheckpoint {
  crd: string;
  /** The CRD's metadata.uid: a checkpoint of another cluster (or a re-created CRD) is not resumed. */
  uid: string;
  storageVersion: string;
  /** The list resourceVersion when the migration began: objects written after it need nothing. */
  since: string;
  /** The next page of the first pass; '' once it is done. */
  continue?: string;
  counts: PassCounts;
}

export interface StorageMigrationProgress extends PassCounts {
  crd: string;
  phase: 'rewrite' | 'verify' | 'server';
  done: number;
  /** Objects in all (the server's count when it gives one). */
  total?: number;
  perSecond: number;
  etaSeconds?: number;
}

export interface StorageMigrationOptions {
  /**
   * 'auto' (default): a StorageVersionMigration when the server serves storagemigration.k8s.io and a
   * controller picks it up, otherwise rewrite here. 'server' or 'client' force one.
   */
  via?: 'auto' | 'server' | 'client';
  /** Objects per list page (default 500). */
  pageSize?: number;
  /** Writes in flight at once (default 8). */
  concurrency?: number;
  /** A checkpoint of an interrupted run of this CRD. */
  resume?: StorageMigrationCheckpoint;
  onCheckpoint?: (c: StorageMigrationCheckpoint) => void | Promise<void>;
  onProgress?: (p: StorageMigrationProgress) => void;
  /** How long 'auto' waits for a migrator controller to start before rewriting here (default 30 s). */
  serverStartTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface StorageMigrationResult {
  crd: string;
  storageVersion: string;
  via: 'server' | 'client' | 'none';
  /** status.storedVersions before and after. */
  storedBefore: string[];
  storedAfter: string[];
  /** The client pass's counts (all 0 when the server migrated). */
  counts: PassCounts;
  /** Objects the verifying listing found not yet in the storage version (and rewrote). */
  verifyRewrote: number;
  seconds: number;
}

const MAX_VERIFY_PASSES = 3;

export async function migrateStorage(client: Client, crdName: string, o: StorageMigrationOptions = {}): Promise<StorageMigrationResult> {
  const began = Date.now();
  const crd: Crd = await client.get(CustomResourceDefinition, { name: crdName }, { signal: o.signal });
  const storageVersion = storageVersionOf(crd);
  const storedBefore = crd.status?.storedVersions ?? [];
  const result = (via: StorageMigrationResult['via'], counts: PassCounts, verifyRewrote: number, storedAfter: string[]): StorageMigrationResult =>
    ({ crd: crdName, storageVersion, via, storedBefore, storedAfter, counts, verifyRewrote, seconds: (Date.now() - began) / 1000 });
  const zero = (): PassCounts => ({ rewritten: 0, current: 0, gone: 0 });
  // The API server keeps storedVersions a superset of what etcd holds: one entry, the storage version, means nothing to do.
  if (storedBefore.length === 1 && storedBefore[0] === storageVersion) return result('none', zero(), 0, storedBefore);

  const kind = storageKind(crd);
  const uid = crd.metadata?.uid ?? '';
  const resume = o.resume?.crd === crdName && o.resume.uid === uid && o.resume.storageVersion === storageVersion ? o.resume : undefined;
  const since = resume ? BigInt(resume.since) : BigInt((await client.list(kind, { limit: 1, signal: o.signal })).metadata?.resourceVersion ?? '0');
  const pageSize = o.pageSize ?? 500;
  const concurrency = o.concurrency ?? 8;
  const confirmed = new Set<string>();
  const progress = (phase: StorageMigrationProgress['phase'], counts: PassCounts, total: number | undefined, startedAt: number, doneBefore: number): void => {
    if (!o.onProgress) return;
    const done = counts.rewritten + counts.current + counts.gone;
    const perSecond = (done - doneBefore) / Math.max((Date.now() - startedAt) / 1000, 0.001);
    const etaSeconds = total !== undefined && perSecond > 0 ? Math.max(total - done, 0) / perSecond : undefined;
    o.onProgress({ crd: crdName, phase, ...counts, done, ...(total === undefined ? {} : { total }), perSecond, ...(etaSeconds === undefined ? {} : { etaSeconds }) });
  };

  let via: 'server' | 'client' = 'client';
  let counts = resume ? { ...resume.counts } : zero();
  if (o.via !== 'client' && !resume && (await servesStorageVersionMigration(client))) {
    try {
      await migrateOnServer(client, crd, {
        signal: o.signal,
        startTimeoutMs: o.via === 'server' ? 24 * 3600_000 : (o.serverStartTimeoutMs ?? 30_000),
        onCondition: () => progress('server', counts, undefined, began, 0),
      });
      via = 'server';
    } catch (err) {
      if (!(err instanceof NoMigratorError) || o.via === 'server') throw err;
    }
  } else if (o.via === 'server') {
    throw new Error(`the API server does not serve ${'storagemigration.k8s.io/v1beta1'}: enable the StorageVersionMigrator feature gate and runtime config storagemigration.k8s.io/v1beta1=true, or migrate with via 'client'`);
  }

  if (via === 'client' && resume?.continue !== '') {
    const startedAt = Date.now();
    const doneBefore = counts.rewritten + counts.current + counts.gone;
    const base = { ...counts };
    counts = await rewritePass(client, {
      kind, since, pageSize, concurrency, confirmed, signal: o.signal,
      ...(resume?.continue ? { continueFrom: resume.continue } : {}),
      onPage: async (next, c, total) => {
        const sum = { rewritten: base.rewritten + c.rewritten, current: base.current + c.current, gone: base.gone + c.gone };
        progress('rewrite', sum, total === undefined ? undefined : total + doneBefore, startedAt, doneBefore);
        await o.onCheckpoint?.({ crd: crdName, uid, storageVersion, since: since.toString(), continue: next ?? '', counts: sum });
      },
    }).then((c) => ({ rewritten: base.rewritten + c.rewritten, current: base.current + c.current, gone: base.gone + c.gone }));
  }

  // The check: a fresh listing in which every object not written since the migration began is written
  // again; it must find nothing left to rewrite (objects created meanwhile are in the storage version).
  let verifyRewrote = 0;
  for (let pass = 1; ; pass++) {
    const startedAt = Date.now();
    const found = await rewritePass(client, { kind, since, pageSize, concurrency, confirmed, signal: o.signal, onPage: (_n, c, total) => progress('verify', c, total, startedAt, 0) });
    verifyRewrote += found.rewritten;
    if (found.rewritten === 0) break;
    if (pass === MAX_VERIFY_PASSES) throw new Error(`CustomResourceDefinition ${crdName}: ${found.rewritten} objects were still not in ${storageVersion} after ${pass} checking listings; status.storedVersions is left as it is`);
  }
  await pruneStoredVersions(client, crdName, storageVersion);
  return result(via, counts, verifyRewrote, [storageVersion]);
}
