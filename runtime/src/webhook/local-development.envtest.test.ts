// Local development against a real kube-apiserver (envtest): the manager points the cluster's webhook
// configurations and conversion CRD at itself only when asked or when the API server is on loopback,
// records what it changed, and puts it back on every way out: SIGTERM, SIGINT, a failed runnable, a
// lost lease; a start after a SIGKILL repairs what the killed process left behind.
import { KubeConfig } from '@kubernetes/client-node';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, eventually, type TestEnv } from '../envtest/index.js';
import type { Logger } from '../log/index.js';
import { LeaderElectionLostError } from '../index.js';
import { createManager, type Manager, type ManagerOptions } from '../manager/manager.js';
import { redirectAnnotation } from './internal/redirect.js';
import { localDevelopmentEnv } from './internal/redirect-decision.js';
import { api } from './testdata/raw-api.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const testdata = fileURLToPath(new URL('./testdata/', import.meta.url));
const operatorScript = join(testdata, 'local-webhook-operator.mjs');
const mutating = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const validating = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const crd = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/guitars.webhook.opgen.dev';
const paths = ['/mutate-webhook-opgen-dev-v1-guitar', '/validate-webhook-opgen-dev-v1-guitar'];

let env: TestEnv;
let buildDir: string;
/** $TMPDIR for managers: no certificate in $TMPDIR/k8s-webhook-server/serving-certs, so they make one. */
let emptyTmp: string;
let savedTmp: string | undefined;

/** What local development may change: every clientConfig and annotation of the three objects, and the CRD's conversion. */
async function clusterState(): Promise<unknown> {
  const configs = await Promise.all([`${mutating}/mutating-webhook-configuration`, `${validating}/validating-webhook-configuration`, `${validating}/service-form`]
    .map(async (path) => (await api(env, 'GET', path)).body));
  const guitars = (await api(env, 'GET', crd)).body;
  return {
    configs: configs.map((c) => ({ name: c.metadata.name, annotations: c.metadata.annotations, webhooks: c.webhooks.map((w: { name: string; clientConfig: unknown }) => [w.name, w.clientConfig]) })),
    crd: { annotations: guitars.metadata.annotations, conversion: guitars.spec.conversion },
  };
}

async function resourceVersions(): Promise<string[]> {
  const configs = [`${mutating}/mutating-webhook-configuration`, `${validating}/validating-webhook-configuration`, `${validating}/service-form`, crd];
  return Promise.all(configs.map(async (path) => (await api(env, 'GET', path)).body.metadata.resourceVersion as string));
}

/** The URL the mutating webhook calls now. */
async function mutatingUrl(): Promise<string | undefined> {
  return (await api(env, 'GET', `${mutating}/mutating-webhook-configuration`)).body.webhooks[0].clientConfig.url;
}

/** Waits until the webhooks and the conversion (redirected last) call https://127.0.0.1:port. */
async function redirectedToPort(port: number, timeoutMs = 20_000): Promise<void> {
  await eventually(async () => {
    expect(await mutatingUrl()).toBe(`https://127.0.0.1:${port}${paths[0]}`);
    expect((await api(env, 'GET', crd)).body.spec.conversion.webhook.clientConfig.url).toBe(`https://127.0.0.1:${port}/convert`);
  }, { timeoutMs });
}

function recordingLogger(lines: string[]): Logger {
  const log: Logger = {
    info: (msg) => void lines.push(msg),
    debug: () => {},
    error: (msg, err) => void lines.push(`ERROR ${msg}${err ? `: ${(err as Error).message}` : ''}`),
    child: () => log,
  };
  return log;
}

async function guitarManager(opts: ManagerOptions): Promise<Manager> {
  const mgr = await createManager({ kubeConfig: env.kubeConfig, ...opts, webhook: { host: '127.0.0.1', port: 0, ...opts.webhook } });
  for (const p of paths) mgr.webhookServer.register(p, () => ({ allowed: true }));
  mgr.webhookServer.registerConversion('webhook.opgen.dev', 'Guitar', { hub: 'v1', spokes: { v1beta1: { toHub: (o) => o, fromHub: (o) => o } } });
  return mgr;
}

function run(mgr: Manager): { stop: () => void; done: Promise<unknown> } {
  const ctl = new AbortController();
  const done = mgr.start(ctl.signal).then(() => 'resolved', (err: Error) => err);
  return { stop: () => ctl.abort(), done };
}

/** An address of this machine that is not loopback, or undefined when it has none. */
function nonLoopbackAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (!a.internal && a.family === 'IPv4') return a.address;
  }
  return undefined;
}

/** A TCP relay on `host` to the API server on loopback: the same API server, reached through another address. */
async function relay(host: string, target: URL): Promise<{ server: Server; port: number }> {
  const server = createServer((inbound) => {
    const outbound = createConnection({ host: target.hostname, port: Number(target.port) });
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  return { server, port: (server.address() as { port: number }).port };
}

beforeAll(async () => {
  buildDir = mkdtempSync(join(tmpdir(), 'opgen-runtime-build-'));
  symlinkSync(join(repo, 'node_modules'), join(buildDir, 'node_modules'));
  execFileSync(join(repo, 'node_modules/.bin/tsc'), ['-p', join(repo, 'runtime/tsconfig.build.json'), '--outDir', join(buildDir, 'dist')], { stdio: 'pipe' });
  env = await startTestEnv({ crdPaths: [join(testdata, 'crds')], webhookPaths: [join(testdata, 'webhooks')] });
  // A configuration as a kustomize deploy leaves it: a service reference (envtest rewrote the others to URLs).
  await api(env, 'POST', validating, {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'service-form' },
    webhooks: [{
      name: 'vguitar-delete.kb.io', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Ignore',
      clientConfig: { service: { name: 'webhook-service', namespace: 'default', path: paths[1], port: 443 } },
      rules: [{ apiGroups: ['webhook.opgen.dev'], apiVersions: ['v1'], operations: ['DELETE'], resources: ['guitars'] }],
    }],
  });
  emptyTmp = mkdtempSync(join(tmpdir(), 'opgen-local-dev-'));
  savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = emptyTmp;
}, 180_000);

afterAll(async () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await env?.stop();
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  if (emptyTmp) rmSync(emptyTmp, { recursive: true, force: true });
});

describe('local development on a shared cluster', () => {
  it('through a non-loopback address of this machine: nothing in the cluster changes, one line says how to opt in, webhooks keep serving', async () => {
    // The API server listens on 127.0.0.1 only; a relay on an interface address of this machine (a
    // container's eth0) reaches it another way. A machine with loopback alone uses its host name
    // (resolved through /etc/hosts): a name is never taken for this machine either.
    const address = nonLoopbackAddress();
    const { server, port } = address ? await relay(address, new URL(env.server)) : { server: undefined, port: Number(new URL(env.server).port) };
    const host = address ?? hostname();
    try {
      const remote = new KubeConfig();
      remote.loadFromOptions({
        clusters: [{ name: 'remote', server: `https://${host}:${port}`, caData: Buffer.from(env.caData).toString('base64'), tlsServerName: 'localhost', skipTLSVerify: false }],
        users: env.kubeConfig.users,
        contexts: [{ name: 'remote', cluster: 'remote', user: env.kubeConfig.getCurrentUser()!.name }],
        currentContext: 'remote',
      });
      const before = await clusterState();
      const versions = await resourceVersions();
      const lines: string[] = [];
      const mgr = await guitarManager({ kubeConfig: remote, logger: recordingLogger(lines) });
      const running = run(mgr);
      const webhookPort = await mgr.webhookServer.listening();
      await eventually(async () => expect(lines.some((l) => l.startsWith('local development: the webhook configurations were left alone'))).toBe(true));
      const refusal = lines.filter((l) => l.includes(localDevelopmentEnv));
      expect(refusal).toEqual([
        `local development: the webhook configurations were left alone, because the API server https://${host}:${port} is not on this machine (not a loopback address) and rewriting a shared cluster's webhooks would break its writes; to point them at this process (restored when it stops), set ${localDevelopmentEnv}=true or webhook.localDevelopment: true`,
      ]);
      expect(webhookPort).toBeGreaterThan(0);
      expect(mgr.webhookServer.caBundle).toBeDefined(); // still serving, with a certificate of its own
      running.stop();
      expect(await running.done).toBe('resolved');
      expect(await resourceVersions()).toEqual(versions);
      expect(await clusterState()).toEqual(before);

      // Asked for explicitly, the same manager does redirect the remote cluster, and restores it on stop.
      const asked = await guitarManager({ kubeConfig: remote, logger: recordingLogger([]), webhook: { localDevelopment: true } });
      const askedRun = run(asked);
      const askedPort = await asked.webhookServer.listening();
      await redirectedToPort(askedPort);
      askedRun.stop();
      expect(await askedRun.done).toBe('resolved');
      expect(await clusterState()).toEqual(before);
    } finally {
      server?.close();
    }
  });

  it('a refused OPGEN_WEBHOOK_LOCAL_DEVELOPMENT value stops createManager with one line', async () => {
    process.env[localDevelopmentEnv] = 'yes';
    try {
      await expect(createManager({ kubeConfig: env.kubeConfig })).rejects.toThrow(`${localDevelopmentEnv}=yes: expected true, false or the https:// URL the API server reaches this process at`);
    } finally {
      delete process.env[localDevelopmentEnv];
    }
  });
});

describe('redirected webhooks go back on every way out', () => {
  it('a failed runnable (the reconcile loop crashing) restores them', async () => {
    const before = await clusterState();
    const mgr = await guitarManager({ logger: recordingLogger([]) });
    let fail!: (err: Error) => void;
    mgr.add({ needLeaderElection: false, start: () => new Promise<void>((_, reject) => (fail = reject)) });
    const running = run(mgr);
    const port = await mgr.webhookServer.listening();
    await redirectedToPort(port);
    const redirected = (await api(env, 'GET', crd)).body;
    expect(JSON.parse(redirected.metadata.annotations[redirectAnnotation]).conversion).toEqual((before as { crd: { conversion: unknown } }).crd.conversion);
    fail(new Error('the reconcile loop crashed'));
    expect(((await running.done) as Error).message).toBe('the reconcile loop crashed');
    expect(await clusterState()).toEqual(before);
  });

  it('a lost lease restores them, though the manager\'s own client is fenced by then', async () => {
    const before = await clusterState();
    const mgr = await guitarManager({
      logger: recordingLogger([]), leaderElection: true, leaderElectionID: 'local-dev', leaderElectionNamespace: 'default',
      leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300,
    });
    const running = run(mgr);
    const port = await mgr.webhookServer.listening();
    await redirectedToPort(port);
    await eventually(async () => expect((await api(env, 'GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/local-dev')).status).toBe(200));
    const now = new Date().toISOString().replace('Z', '000Z');
    const taken = await api(env, 'PATCH', '/apis/coordination.k8s.io/v1/namespaces/default/leases/local-dev',
      { spec: { holderIdentity: 'someone-else', leaseDurationSeconds: 30, renewTime: now, acquireTime: now } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(taken.status).toBe(200);
    const lost = await running.done;
    expect(lost).toBeInstanceOf(LeaderElectionLostError);
    expect((lost as Error).message).toBe('leader election lost');
    expect(await clusterState()).toEqual(before);
  });

  describe('a manager in its own process', () => {
    interface Operator { port: Promise<number>; exited: Promise<number | null>; kill(sig: NodeJS.Signals): void; stderr(): string }

    function startOperator(extraEnv: Record<string, string> = {}): Operator {
      const child = spawn(process.execPath, [operatorScript, join(buildDir, 'dist/index.js'), env.kubeconfigPath], {
        cwd: buildDir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: emptyTmp, ...extraEnv },
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const port = new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const line = out.split('\n').find((l) => l.includes('"listening"'));
          if (line) resolve((JSON.parse(line) as { port: number }).port);
        });
        void exited.then((code) => reject(new Error(`the operator exited (${code}) before listening:\n${stderr}`)));
      });
      return { port, exited, kill: (sig) => child.kill(sig), stderr: () => stderr };
    }

    async function redirectedTo(op: Operator): Promise<number> {
      const port = await op.port;
      await redirectedToPort(port);
      return port;
    }

    it('SIGTERM and SIGINT restore them before the process exits', async () => {
      const before = await clusterState();
      for (const sig of ['SIGTERM', 'SIGINT'] as const) {
        const op = startOperator();
        await redirectedTo(op);
        expect(await clusterState()).not.toEqual(before);
        op.kill(sig);
        expect(await op.exited).toBe(0);
        expect(await clusterState()).toEqual(before);
      }
    });

    it('after a SIGKILL, the next start repairs them: one that redirects again keeps the original, one that does not puts it back', async () => {
      const before = await clusterState();
      const killed = startOperator();
      const killedPort = await redirectedTo(killed);
      killed.kill('SIGKILL');
      await killed.exited;
      expect(await mutatingUrl()).toBe(`https://127.0.0.1:${killedPort}${paths[0]}`); // left behind

      // The next `npm start` redirects to itself; the original it records is the one the killed run recorded.
      const next = startOperator();
      await redirectedTo(next);
      expect(next.stderr()).toContain('restored webhook configurations an earlier run on this machine had left pointing at itself');
      next.kill('SIGTERM');
      expect(await next.exited).toBe(0);
      expect(await clusterState()).toEqual(before);

      // Killed again; this time the next start does not redirect (a certificate of its own, local development off).
      const again = startOperator();
      await redirectedTo(again);
      again.kill('SIGKILL');
      await again.exited;
      const certTmp = mkdtempSync(join(tmpdir(), 'opgen-local-dev-certs-'));
      try {
        mkdirSync(join(certTmp, 'k8s-webhook-server', 'serving-certs'), { recursive: true });
        for (const f of ['tls.crt', 'tls.key']) copyFileSync(join(env.webhook.certDir, f), join(certTmp, 'k8s-webhook-server', 'serving-certs', f));
        const off = startOperator({ TMPDIR: certTmp, [localDevelopmentEnv]: 'false' });
        await off.port;
        await eventually(async () => expect(await clusterState()).toEqual(before), { timeoutMs: 20_000 });
        off.kill('SIGTERM');
        expect(await off.exited).toBe(0);
        expect(await clusterState()).toEqual(before);
      } finally {
        rmSync(certTmp, { recursive: true, force: true });
      }
    });
  });
});
