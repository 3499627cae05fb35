// `opgen crd migrate-storage` (bin/opgen.js in a child process) killed with SIGKILL halfway through and
// run again: it resumes from its checkpoint, finishes, misses no object and writes none twice (etcd's
// per-key version counts the writes).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../runtime/src/client/client.js';
import { startTestEnv, type TestEnv } from '../../runtime/src/envtest/index.js';
import { CustomResourceDefinition } from '../../runtime/src/storage-migration/crd.js';
import { CRD_NAME, createBackups, installBackupCrd, storedObjects, switchStorageToV1 } from '../../runtime/src/storage-migration/testdata/backups.js';

const root = resolve(import.meta.dirname, '../..');
let env: TestEnv;
let client: Client;
let dir: string;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/cli/main.js')) || !existsSync(join(root, 'runtime/dist/index.js'))) throw new Error('dist/ is missing; run `npm run build` first');
  dir = mkdtempSync(join(tmpdir(), 'opgen-migrate-resume-'));
  env = await startTestEnv();
  client = createClient(env.kubeConfig);
});
afterAll(async () => {
  await env?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Run {
  kill: () => void;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function migrate(checkpoint: string): Run {
  const child = spawn(process.execPath, [join(root, 'bin/opgen.js'), 'crd', 'migrate-storage', CRD_NAME, '--kubeconfig', env.kubeconfigPath, '--checkpoint', checkpoint, '--page-size', '20', '--concurrency', '2'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => void (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
  return { kill: () => child.kill('SIGKILL'), done: new Promise((res) => child.on('exit', (code, signal) => res({ code, signal, stdout, stderr }))) };
}

describe('opgen crd migrate-storage, interrupted', () => {
  it('SIGKILL at about half, run again: finishes, every object stored as v1, each written exactly once', async () => {
    await installBackupCrd(client);
    await createBackups(client, 1000);
    await switchStorageToV1(client, env.etcdUrl);
    const checkpoint = join(dir, 'checkpoint.json');

    // Killed once the checkpoint (written after each page) says half the objects are rewritten.
    const first = migrate(checkpoint);
    const watching = setInterval(() => {
      try {
        if ((JSON.parse(readFileSync(checkpoint, 'utf8')) as { counts: { rewritten: number } }).counts.rewritten >= 500) first.kill();
      } catch {
        // not written yet
      }
    }, 10);
    const killed = await first.done.finally(() => clearInterval(watching));
    expect(killed.signal).toBe('SIGKILL');
    const half = await storedObjects(env.etcdUrl, '/registry/ops.example.com/backups/default/');
    const v1 = half.filter((o) => o.apiVersion === 'ops.example.com/v1').length;
    expect(v1).toBeGreaterThanOrEqual(500);
    expect(v1).toBeLessThan(1000);
    expect((await client.get(CustomResourceDefinition, { name: CRD_NAME })).status?.storedVersions).toEqual(['v1alpha1', 'v1']);

    const rerun = await migrate(checkpoint).done;
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain(`resuming from ${checkpoint}`);
    // Objects of the page in flight at the kill were written then and count as already v1 now.
    const [, rewritten, already] = /every object is stored as v1 \((\d+) rewritten, (\d+) already v1, 0 deleted meanwhile/.exec(rerun.stdout) ?? [];
    expect(Number(rewritten) + Number(already), rerun.stdout).toBe(1000);
    expect(Number(already)).toBeLessThanOrEqual(20);
    expect(existsSync(checkpoint)).toBe(false);
    const stored = await storedObjects(env.etcdUrl, '/registry/ops.example.com/backups/default/');
    expect(stored).toHaveLength(1000);
    expect(stored.filter((o) => o.apiVersion !== 'ops.example.com/v1')).toEqual([]);
    expect(stored.filter((o) => o.version !== 2).map((o) => `${o.key} written ${o.version - 1} times`)).toEqual([]);
    expect((await client.get(CustomResourceDefinition, { name: CRD_NAME })).status?.storedVersions).toEqual(['v1']);
  }, 180_000);
});
