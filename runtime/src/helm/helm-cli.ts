// Drives the real `helm` binary. Why the binary and not a library: Helm is Go, and its install/upgrade
// logic (three-way merge against live objects, hooks, the release Secrets sh.helm.release.v1.<name>.v<N>,
// schema validation of values, rollback of a failed upgrade) is only faithful in Helm itself; a
// TypeScript port would drift from it. Running the binary keeps releases exactly as `helm list` and
// `helm history` expect, so a user can move between the operator and the helm CLI.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfigLike } from '../kubeconfig/index.js';

/** A failed helm run: `stderr` is Helm's own message (the `Error: ` prefix removed). */
export class HelmError extends Error {
  constructor(readonly args: readonly string[], readonly exitCode: number | null, readonly stderr: string) {
    super(stderr.replace(/^Error: /, '').trim() || `helm ${args[0]} exited with ${exitCode}`);
    this.name = 'HelmError';
  }
}

/** The part of `helm … -o json`'s release the reconciler reads. */
export interface HelmRelease {
  name: string;
  namespace: string;
  version: number;
  manifest?: string;
  info?: { status?: string; description?: string };
  chart?: { metadata?: { name?: string; version?: string } };
}

export interface HelmCliOptions {
  kubeConfig: KubeConfigLike;
  /** The helm binary; default $HELM_BINARY, else `helm` on PATH. */
  binary?: string;
  /** Per-run limit; default 5 minutes. */
  timeoutMs?: number;
  /** Called before every run with its arguments (tests count runs; logs). */
  onRun?: (args: readonly string[]) => void;
}

export class HelmCli {
  readonly binary: string;

  constructor(private readonly opts: HelmCliOptions) {
    this.binary = opts.binary ?? process.env.HELM_BINARY ?? 'helm';
  }

  /** `helm upgrade --install`: installs when the release is absent, else upgrades it (new revision). */
  async upgradeInstall(name: string, namespace: string, chart: string, values: unknown, signal?: AbortSignal): Promise<HelmRelease> {
    return this.withScratch(async (dir) => {
      const valuesFile = join(dir, 'values.json');
      writeFileSync(valuesFile, JSON.stringify(values ?? {}), { mode: 0o600 });
      // --history-max bounds the release Secrets as operator-sdk does (10); --rollback-on-failure is
      // not used: a failed upgrade stays failed and visible, and the next spec change upgrades again.
      const out = await this.run(dir, ['upgrade', '--install', name, chart, '--namespace', namespace, '--values', valuesFile, '--history-max', '10', '--output', 'json'], signal);
      return JSON.parse(out) as HelmRelease;
    });
  }

  /** `helm uninstall`; a release that is already gone is no error. */
  async uninstall(name: string, namespace: string, signal?: AbortSignal): Promise<void> {
    await this.withScratch(async (dir) => {
      try {
        await this.run(dir, ['uninstall', name, '--namespace', namespace], signal);
      } catch (err) {
        if (err instanceof HelmError && /not found/.test(err.message)) return;
        throw err;
      }
    });
  }

  /** `helm status -o json` (which carries the manifest); undefined when there is no such release. */
  async status(name: string, namespace: string, signal?: AbortSignal): Promise<HelmRelease | undefined> {
    return this.withScratch(async (dir) => {
      try {
        return JSON.parse(await this.run(dir, ['status', name, '--namespace', namespace, '--output', 'json'], signal)) as HelmRelease;
      } catch (err) {
        if (err instanceof HelmError && /release: not found/.test(err.message)) return undefined;
        throw err;
      }
    });
  }

  /** `helm history -o json`, oldest first; empty when there is no such release. */
  async history(name: string, namespace: string, signal?: AbortSignal): Promise<Array<{ revision: number; status: string }>> {
    return this.withScratch(async (dir) => {
      try {
        return JSON.parse(await this.run(dir, ['history', name, '--namespace', namespace, '--output', 'json'], signal)) as Array<{ revision: number; status: string }>;
      } catch (err) {
        if (err instanceof HelmError && /release: not found/.test(err.message)) return [];
        throw err;
      }
    });
  }

  /**
   * A scratch folder (0700) per run: the kubeconfig made from the runtime's credentials (0600, so a
   * rotated service-account token is picked up on the next run) and Helm's cache/config/data homes,
   * which a non-root image with a read-only HOME could not give it. Removed after the run.
   */
  private async withScratch<T>(fn: (dir: string) => Promise<T>): Promise<T> {
    const dir = mkdtempSync(join(tmpdir(), 'opgen-helm-'));
    try {
      writeFileSync(join(dir, 'kubeconfig'), JSON.stringify(await kubeconfigFile(this.opts.kubeConfig)), { mode: 0o600 });
      return await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  private run(dir: string, args: string[], signal?: AbortSignal): Promise<string> {
    this.opts.onRun?.(args);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: dir,
      HELM_CACHE_HOME: join(dir, 'cache'),
      HELM_CONFIG_HOME: join(dir, 'config'),
      HELM_DATA_HOME: join(dir, 'data'),
      HELM_DRIVER: 'secret',
      KUBECONFIG: join(dir, 'kubeconfig'),
    };
    return new Promise((resolve, reject) => {
      execFile(this.binary, [...args, '--kubeconfig', join(dir, 'kubeconfig')], {
        env, signal, timeout: this.opts.timeoutMs ?? 300_000, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8',
      }, (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const code = typeof (err as NodeJS.ErrnoException).code === 'number' ? (err as unknown as { code: number }).code : null;
        const errno = (err as NodeJS.ErrnoException).code;
        if (errno === 'ENOENT' || errno === 'EACCES') {
          return reject(new HelmError(args, null, `the helm binary ${this.binary} ${errno === 'ENOENT' ? 'was not found' : 'is not executable'}: install helm in the image or set HELM_BINARY`));
        }
        reject(new HelmError(args, code, stderr || err.message));
      });
    });
  }
}

/** A kubeconfig with what the runtime's client would send: server, CA, client certificate or bearer token. */
export async function kubeconfigFile(kc: KubeConfigLike): Promise<object> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('helm: the kubeconfig has no current cluster');
  const https: RequestOptions = {};
  await kc.applyToHTTPSOptions(https);
  const b64 = (v: unknown): string | undefined => (v === undefined ? undefined : Buffer.from(Array.isArray(v) ? v.join('') : String(v)).toString('base64'));
  const headers = (https.headers ?? {}) as Record<string, string | string[] | undefined>;
  const auth = [headers.Authorization ?? headers.authorization].flat()[0];
  const user: Record<string, string> = {};
  if (https.cert && https.key) {
    user['client-certificate-data'] = b64(https.cert)!;
    user['client-key-data'] = b64(https.key)!;
  }
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) user.token = auth.slice('Bearer '.length);
  const clusterEntry: Record<string, unknown> = { server: cluster.server };
  if (cluster.skipTLSVerify) clusterEntry['insecure-skip-tls-verify'] = true;
  else if (https.ca) clusterEntry['certificate-authority-data'] = b64(https.ca);
  return {
    apiVersion: 'v1', kind: 'Config', 'current-context': 'operator',
    clusters: [{ name: 'operator', cluster: clusterEntry }],
    users: [{ name: 'operator', user }],
    contexts: [{ name: 'operator', context: { cluster: 'operator', user: 'operator' } }],
  };
}
