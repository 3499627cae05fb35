// The manager's opt-in: `manager.add(storageMigration(client, ['backups.ops.example.com'], { logger }))`,
// with a direct client (createClient), not the manager's cached one,
// migrates the CRDs' stored objects on the elected leader once it starts leading, logging a progress line.
// A failed migration is logged and left for the next start (or `opgen crd migrate-storage`): the operator
// reconciles on, since every stored version is still readable.
import type { Client } from '../client/client.js';
import type { Logger } from '../log/index.js';
import type { Runnable } from '../manager/runnable.js';
import { migrateStorage, type StorageMigrationOptions } from './migrate.js';

export interface StorageMigrationRunnableOptions extends Pick<StorageMigrationOptions, 'via' | 'pageSize' | 'concurrency'> {
  logger: Logger;
  /** Least time between two progress lines (default 10 s). */
  progressEveryMs?: number;
}

export function storageMigration(client: Client, crds: readonly string[], o: StorageMigrationRunnableOptions): Runnable {
  const log = o.logger.child({ logger: 'storage-migration' });
  return {
    needLeaderElection: true,
    async start(signal) {
      for (const crd of crds) {
        let last = 0;
        try {
          const r = await migrateStorage(client, crd, {
            ...(o.via ? { via: o.via } : {}), ...(o.pageSize ? { pageSize: o.pageSize } : {}), ...(o.concurrency ? { concurrency: o.concurrency } : {}), signal,
            onProgress: (p) => {
              if (Date.now() - last < (o.progressEveryMs ?? 10_000)) return;
              last = Date.now();
              log.info('storage migration progress', { crd, phase: p.phase, done: p.done, total: p.total, perSecond: Math.round(p.perSecond), etaSeconds: p.etaSeconds === undefined ? undefined : Math.ceil(p.etaSeconds) });
            },
          });
          if (r.via !== 'none') log.info('storage migrated', { crd, storageVersion: r.storageVersion, via: r.via, ...r.counts, seconds: r.seconds, storedVersions: r.storedAfter });
        } catch (err) {
          if (signal.aborted) return;
          log.error('storage migration failed; it runs again at the next start, or run opgen crd migrate-storage', err, { crd });
        }
      }
    },
  };
}
