// Starts etcd and kube-apiserver on loopback with the flags envtest uses, plus the ones a machine
// without a default route or a fixed etcd peer port needs (see docs/envtest.md).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AdminClient, poll } from './admin-client.js';
import type { Binaries } from './binaries.js';
import { freePort, LOOPBACK } from './ports.js';
import { logTail, spawnGroup, type Reaper, type Spawned } from './process.js';
import { newSigningKey, TinyCa, type KeyPairPem } from '../../internal/tls/tiny-ca.js';

export interface ControlPlane {
  server: string;
  servingCaPem: string;
  clientCa: TinyCa;
  admin: KeyPairPem;
  /** The key kube-apiserver verifies service-account tokens with (kube-controller-manager signs with it). */
  serviceAccountKeyPath: string;
  client: AdminClient;
  etcd: Spawned;
  /** etcd's client URL (http://127.0.0.1:<port>). */
  etcdUrl: string;
  apiServer: Spawned;
  /** Stops kube-apiserver and starts it again with the same flags, port and certificates (etcd keeps the data). */
  restartApiServer(stopTimeoutMs: number): Promise<void>;
}

export interface ControlPlaneOptions {
  binaries: Binaries;
  dir: string;
  attachLogs: boolean;
  /** Extra or replaced kube-apiserver flags, names without dashes (TestEnvOptions.apiServerFlags). */
  apiServerFlags: Record<string, string>;
  startTimeoutMs: number;
  reaper: Reaper;
  /** Ports reserved for this environment are added here, to be released when it stops. */
  ports: number[];
  /** Every spawned process is reported here at once, so the caller can stop it even if start fails. */
  onSpawn: (p: Spawned) => void;
}

export class EarlyExitError extends Error {
  constructor(readonly processName: string, code: string, readonly logText: string) {
    super(`envtest: ${processName} exited (${code}) while starting; its last output:\n${logText}`);
  }
}

const helpTexts = new Map<string, string>();
/**
 * Whether `binary --help` lists `flag`. Binaries come from the user's KUBEBUILDER_ASSETS in any
 * version, so flags that help but are not essential are passed only where they exist.
 */
function supportsFlag(binary: string, flag: string): boolean {
  let help = helpTexts.get(binary);
  if (help === undefined) {
    const out = spawnSync(binary, ['--help'], { encoding: 'utf8', timeout: 10_000 });
    help = `${out.stdout ?? ''}\n${out.stderr ?? ''}`;
    helpTexts.set(binary, help);
  }
  return new RegExp(`^\\s*${flag}\\b`, 'm').test(help);
}

/** Flags that wire the server to this environment's ports, etcd and certificates. */
const ENVIRONMENT_FLAGS = new Set([
  'advertise-address', 'bind-address', 'secure-port', 'etcd-servers', 'client-ca-file', 'tls-cert-file', 'tls-private-key-file',
]);

/** `args` with each of `flags` replacing the flag of the same name, or added after them. */
export function withFlags(args: string[], flags: Record<string, string>): string[] {
  const out = [...args];
  for (const [raw, value] of Object.entries(flags)) {
    const name = raw.replace(/^-+/, '');
    if (ENVIRONMENT_FLAGS.has(name)) {
      throw new Error(`envtest: apiServerFlags may not set --${name}: the environment sets it to reach its own etcd, port and certificates`);
    }
    const at = out.findIndex((a) => a.startsWith(`--${name}=`));
    if (at >= 0) out.splice(at, 1);
    out.push(`--${name}=${value}`);
  }
  return out;
}

async function waitStarted<T>(proc: Spawned, what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const early = proc.exited.then((code) => { throw new EarlyExitError(proc.name, code, logTail(proc.logPath)); });
  early.catch(() => {}); // handled by the race below, or irrelevant once started
  // Once the process has exited, polling it until the deadline would only keep this process busy.
  const polling = new AbortController();
  try {
    return await Promise.race([poll(what, timeoutMs, 100, check, polling.signal), early]);
  } catch (err) {
    if (err instanceof EarlyExitError) throw err;
    throw new Error(`${(err as Error).message}; ${proc.name}'s last output:\n${logTail(proc.logPath)}`);
  } finally {
    polling.abort();
  }
}

export async function startControlPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const { dir } = opts;
  const pki = join(dir, 'pki');
  mkdirSync(pki, { recursive: true });
  const file = (name: string, content: string) => { const p = join(pki, name); writeFileSync(p, content, { mode: 0o600 }); return p; };

  const [etcdClientPort, etcdPeerPort, apiPort] = [await freePort(opts.ports), await freePort(opts.ports), await freePort(opts.ports)];
  const server = `https://${LOOPBACK}:${apiPort}`;

  const servingCa = TinyCa.create('opgen-envtest-serving-ca');
  const serving = servingCa.issue({ commonName: 'localhost', hosts: ['localhost', LOOPBACK], usage: 'server' });
  const clientCa = TinyCa.create('opgen-envtest-client-ca');
  const admin = clientCa.issue({ commonName: 'admin', organizations: ['system:masters'], usage: 'client' });
  const serviceAccount = newSigningKey();

  const etcdUrl = `http://${LOOPBACK}:${etcdClientPort}`;
  const etcdArgs = [
    `--advertise-client-urls=${etcdUrl}`,
    `--data-dir=${join(dir, 'etcd')}`,
    `--listen-client-urls=${etcdUrl}`,
    `--listen-peer-urls=http://${LOOPBACK}:${etcdPeerPort}`,
    `--initial-advertise-peer-urls=http://${LOOPBACK}:${etcdPeerPort}`,
    `--initial-cluster=default=http://${LOOPBACK}:${etcdPeerPort}`,
    // etcd >= 3.5: much faster on throw-away data.
    ...(supportsFlag(opts.binaries.etcd, '--unsafe-no-fsync') ? ['--unsafe-no-fsync=true'] : []),
  ];
  const etcd = spawnGroup('etcd', opts.binaries.etcd, etcdArgs, { logPath: join(dir, 'etcd.log'), attachLogs: opts.attachLogs, reaper: opts.reaper });
  opts.onSpawn(etcd);
  await waitStarted(etcd, 'etcd /health', opts.startTimeoutMs, async () => {
    const res = await fetch(`${etcdUrl}/health`, { signal: AbortSignal.timeout(2000) });
    return res.ok ? true : undefined;
  });

  const apiArgs = withFlags([
    // Without it kube-apiserver looks for a default route and exits on machines that have none.
    `--advertise-address=${LOOPBACK}`,
    '--allow-privileged=true',
    '--authorization-mode=RBAC',
    `--bind-address=${LOOPBACK}`,
    `--client-ca-file=${file('client-ca.crt', clientCa.certPem)}`,
    // No controller-manager creates the default service account, so admission would reject pods.
    '--disable-admission-plugins=ServiceAccount',
    `--etcd-servers=${etcdUrl}`,
    `--secure-port=${apiPort}`,
    `--service-account-issuer=${server}/`,
    `--service-account-key-file=${file('sa.pub', serviceAccount.publicKeyPem)}`,
    `--service-account-signing-key-file=${file('sa.key', serviceAccount.privateKeyPem)}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    // Without it, an open watch (any running informer) holds SIGTERM shutdown until the stop
    // deadline's SIGKILL (controller-runtime#1571); with it the server closes watches cleanly.
    ...(supportsFlag(opts.binaries.kubeApiserver, '--shutdown-watch-termination-grace-period') ? ['--shutdown-watch-termination-grace-period=2s'] : []),
    `--tls-cert-file=${file('apiserver.crt', serving.certPem)}`,
    `--tls-private-key-file=${file('apiserver.key', serving.keyPem)}`,
  ], opts.apiServerFlags);
  const client = new AdminClient({ server, caPem: servingCa.certPem, certPem: admin.certPem, keyPem: admin.keyPem });
  const launchApiServer = async (): Promise<Spawned> => {
    const proc = spawnGroup('kube-apiserver', opts.binaries.kubeApiserver, apiArgs, { logPath: join(dir, 'kube-apiserver.log'), attachLogs: opts.attachLogs, reaper: opts.reaper });
    opts.onSpawn(proc);
    await waitStarted(proc, 'kube-apiserver /readyz', opts.startTimeoutMs, async () => {
      const res = await client.call('GET', '/readyz', undefined, 2000);
      return res.status === 200 ? true : undefined;
    });
    // /readyz can turn ok a moment before the system namespaces exist; tests create objects in "default".
    await waitStarted(proc, 'namespace default', opts.startTimeoutMs, async () => {
      const res = await client.call('GET', '/api/v1/namespaces/default', undefined, 2000);
      return res.status === 200 ? true : undefined;
    });
    return proc;
  };
  const plane: ControlPlane = {
    server, servingCaPem: servingCa.certPem, clientCa, admin, serviceAccountKeyPath: join(pki, 'sa.key'), client, etcd, etcdUrl,
    apiServer: await launchApiServer(),
    async restartApiServer(stopTimeoutMs: number) {
      await plane.apiServer.stop(stopTimeoutMs);
      plane.apiServer = await launchApiServer();
    },
  };
  return plane;
}
