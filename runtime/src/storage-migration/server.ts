// The server-side migration: a StorageVersionMigration (storagemigration.k8s.io/v1beta1, Kubernetes 1.35+
// with the StorageVersionMigrator feature gate and runtime config on) that kube-controller-manager's
// storage-version-migrator-controller carries out; this side creates it and follows its conditions.
import { groupVersion } from '../api/kind.js';
import type { KubeObject } from '../api/types.js';
import type { Client } from '../client/client.js';
import { isNotFound } from '../client/errors.js';
import { sleep } from '../internal/timers/index.js';
import type { Crd } from './crd.js';

export const STORAGE_MIGRATION_GROUP_VERSION = 'storagemigration.k8s.io/v1beta1';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface StorageVersionMigration extends KubeObject {
  spec: { resource: { group: string; resource: string } };
  status?: { conditions?: Condition[]; resourceVersion?: string };
}

export const StorageVersionMigration = groupVersion('storagemigration.k8s.io', 'v1beta1').kind<StorageVersionMigration>('StorageVersionMigration', { plural: 'storageversionmigrations', namespaced: false });

/** Does the server serve StorageVersionMigration? (Discovery of its group-version.) */
export async function servesStorageVersionMigration(client: Client): Promise<boolean> {
  try {
    await client.list(StorageVersionMigration, { limit: 1 });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

export interface ServerMigrationOptions {
  /** How long to wait for the controller to report Running before concluding none runs (default 30 s). */
  startTimeoutMs?: number;
  pollMs?: number;
  signal?: AbortSignal;
  onCondition?: (c: Condition) => void;
}

export class NoMigratorError extends Error {}

/**
 * Creates a StorageVersionMigration of the CRD's resource and waits for Succeeded; throws on Failed, and
 * NoMigratorError (after deleting it) when no controller picks it up within startTimeoutMs.
 */
export async function migrateOnServer(client: Client, crd: Crd, o: ServerMigrationOptions = {}): Promise<void> {
  const svm = await client.create(StorageVersionMigration, {
    metadata: { generateName: `${crd.metadata?.name}-` },
    spec: { resource: { group: crd.spec.group, resource: crd.spec.names.plural } },
  }, { signal: o.signal });
  const name = svm.metadata!.name!;
  const started = Date.now();
  let seen = '';
  for (;;) {
    const now = await client.get(StorageVersionMigration, { name }, { signal: o.signal });
    const conditions = (now.status?.conditions ?? []).filter((c) => c.status === 'True');
    for (const c of conditions) if (!seen.includes(`|${c.type}|`)) {
      seen += `|${c.type}|`;
      o.onCondition?.(c);
    }
    const failed = conditions.find((c) => c.type === 'Failed');
    if (failed) throw new Error(`StorageVersionMigration ${name} failed: ${failed.reason ?? ''} ${failed.message ?? ''}`.trim());
    if (conditions.some((c) => c.type === 'Succeeded')) return;
    if (conditions.length === 0 && Date.now() - started > (o.startTimeoutMs ?? 30_000)) {
      await client.delete(StorageVersionMigration, { name }).catch(() => {});
      throw new NoMigratorError(`StorageVersionMigration ${name} was not picked up within ${Math.round((o.startTimeoutMs ?? 30_000) / 1000)} s: kube-controller-manager runs no storage-version-migrator-controller (feature gate StorageVersionMigrator)`);
    }
    await sleep(o.pollMs ?? 500);
  }
}
