// `opgen crd migrate-storage <crd>`: every stored object of the CRD rewritten in its storage version
// (@opgen/runtime's migrateStorage), then status.storedVersions pruned to it, so older versions can stop
// being served and be removed. Progress on stderr; an interrupted run resumes from its checkpoint file.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { CommandContext } from '../../common/command-context.js';
import { OpgenError } from '../../diag/diagnostic.js';

export interface MigrateStorageOptions {
  crd: string;
  kubeconfig?: string;
  via: 'auto' | 'server' | 'client';
  pageSize: number;
  concurrency: number;
  /** Where the checkpoint is kept (default: the temp folder, one file per CRD and server). */
  checkpoint?: string;
  /** Progress as a line redrawn in place (a terminal) or as log lines. */
  tty: boolean;
}

const CRD_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;

export async function migrateStorageCommand(ctx: CommandContext, o: MigrateStorageOptions): Promise<number> {
  if (!CRD_NAME.test(o.crd)) throw new OpgenError(`'${o.crd}' is not a CRD name`, { flag: 'crd migrate-storage <crd>' }, 'name the CRD as <plural>.<group>, e.g. backups.ops.example.com (kubectl get crd)');
  for (const [flag, n] of [['--page-size', o.pageSize], ['--concurrency', o.concurrency]] as const) {
    if (!Number.isInteger(n) || n < 1) throw new OpgenError(`${flag} must be a whole number of at least 1`, { flag }, `pass e.g. ${flag} ${flag === '--page-size' ? 500 : 8}`);
  }
  const kubeconfig = o.kubeconfig === undefined ? undefined : resolve(ctx.cwd, o.kubeconfig);
  if (kubeconfig !== undefined && !existsSync(kubeconfig)) throw new OpgenError(`${o.kubeconfig}: no such file`, { flag: '--kubeconfig' }, 'pass the kubeconfig of the cluster to migrate');
  const { createClient, loadKubeConfig, migrateStorage, isNotFound } = await import('@opgen/runtime');
  const kubeConfig = await withKubeconfigEnv(kubeconfig, () => loadKubeConfig());
  const client = createClient(kubeConfig, { fieldManager: 'opgen-migrate-storage' });
  const server = kubeConfig.getCurrentCluster()?.server ?? '';
  const checkpointFile = o.checkpoint !== undefined ? resolve(ctx.cwd, o.checkpoint) : join(tmpdir(), 'opgen-migrate-storage', `${o.crd}-${createHash('sha256').update(server).digest('hex').slice(0, 12)}.json`);
  const resume = existsSync(checkpointFile) ? JSON.parse(readFileSync(checkpointFile, 'utf8')) : undefined;
  if (resume) ctx.err(`resuming from ${checkpointFile} (${resume.counts.rewritten} rewritten before)`);

  const progress = progressPrinter(ctx, o.tty);
  try {
    const r = await migrateStorage(client, o.crd, {
      via: o.via, pageSize: o.pageSize, concurrency: o.concurrency, resume,
      onProgress: progress.update,
      onCheckpoint: (c) => {
        mkdirSync(dirname(checkpointFile), { recursive: true });
        writeFileSync(`${checkpointFile}.tmp`, JSON.stringify(c));
        renameSync(`${checkpointFile}.tmp`, checkpointFile); // a kill mid-write leaves the previous checkpoint
      },
    });
    progress.done();
    rmSync(checkpointFile, { force: true });
    if (r.via === 'none') {
      ctx.out(`${o.crd}: status.storedVersions is [${r.storageVersion}]: every object is stored as ${r.storageVersion}, nothing to migrate`);
      return 0;
    }
    const { rewritten, current, gone } = r.counts;
    const how = r.via === 'server' ? 'by a StorageVersionMigration (kube-controller-manager)' : `${rewritten} rewritten, ${current} already ${r.storageVersion}, ${gone} deleted meanwhile, ${Math.round((rewritten + current + gone) / Math.max(r.seconds, 0.001))}/s`;
    ctx.out(`${o.crd}: every object is stored as ${r.storageVersion} (${how}; checked by a second listing) in ${r.seconds.toFixed(1)} s`);
    const removable = r.storedBefore.filter((v) => v !== r.storageVersion);
    ctx.out(`status.storedVersions [${r.storedBefore.join(' ')}] -> [${r.storedAfter.join(' ')}]${removable.length ? `: ${removable.join(', ')} may now stop being served and be removed from the CRD` : ''}`);
    return 0;
  } catch (err) {
    progress.done();
    if (isNotFound(err)) throw new OpgenError(`CustomResourceDefinition ${o.crd} is not on the cluster`, { flag: 'crd migrate-storage <crd>' }, 'kubectl get crd lists the names; check --kubeconfig');
    throw err;
  }
}

/** The runtime's loader reads kubectl's sources in kubectl's order; --kubeconfig is $KUBECONFIG for the load alone. */
async function withKubeconfigEnv<T>(file: string | undefined, load: () => Promise<T>): Promise<T> {
  if (file === undefined) return load();
  const saved = process.env.KUBECONFIG;
  process.env.KUBECONFIG = file;
  try {
    return await load();
  } finally {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
  }
}

interface Progress {
  phase: string;
  done: number;
  total?: number;
  perSecond: number;
  etaSeconds?: number;
}

/** On a terminal one line redrawn in place; in logs a line at most every 2 s. */
function progressPrinter(ctx: CommandContext, tty: boolean): { update: (p: Progress) => void; done: () => void } {
  let last = 0;
  let drawn = false;
  return {
    update(p) {
      const now = Date.now();
      if (!tty && now - last < 2000) return;
      last = now;
      const of = p.total === undefined ? '' : `/${p.total} (${Math.floor((100 * p.done) / Math.max(p.total, 1))}%)`;
      const eta = p.etaSeconds === undefined ? '' : `, ETA ${formatSeconds(p.etaSeconds)}`;
      const line = `${p.phase}: ${p.done}${of} objects, ${Math.round(p.perSecond)}/s${eta}`;
      if (tty) {
        process.stderr.write(`\r\x1b[K${line}`);
        drawn = true;
      } else ctx.err(line);
    },
    done() {
      if (drawn) process.stderr.write('\r\x1b[K');
      drawn = false;
    },
  };
}

function formatSeconds(s: number): string {
  return s < 90 ? `${Math.ceil(s)} s` : `${Math.floor(s / 60)} min ${Math.ceil(s % 60)} s`;
}
