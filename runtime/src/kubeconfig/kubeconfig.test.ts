// loadKubeConfig() against a real kube-apiserver (envtest): every way of authenticating it reads is
// used for a real request, and the API server's SelfSubjectReview says who the request came as.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { groupVersion } from '../api/kind.js';
import { ConfigMap, Namespace, ServiceAccount } from '../api/builtins.js';
import { ApiClient, createClient } from '../client/client.js';
import { type ApiError, isForbidden } from '../client/errors.js';
import { Transport } from '../transport/index.js';
import { eventually, startTestEnv, type TestEnv } from '../envtest/index.js';
import { LeaseClient } from '../leaderelection/internal/lease-client.js';
import { createManager } from '../manager/manager.js';
import { silentLogger } from '../log/index.js';
import { loadKubeConfig, type KubeConfigLike } from './index.js';

interface SelfSubjectReview {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  status?: { userInfo?: { username?: string; groups?: string[] } };
}
const SelfSubjectReview = groupVersion('authentication.k8s.io', 'v1').kind<SelfSubjectReview>('SelfSubjectReview', { namespaced: false });
const Role = groupVersion('rbac.authorization.k8s.io', 'v1').kind('Role', { namespaced: true });
const RoleBinding = groupVersion('rbac.authorization.k8s.io', 'v1').kind('RoleBinding', { namespaced: true });

const plugin = fileURLToPath(new URL('./testdata/exec-plugin.mjs', import.meta.url));
const ns = 'kubeconfig-test';
let env: TestEnv;
let work: string;
let tokens: { reader: string; other: string };
const savedEnv = { ...process.env };

/** Who the API server says `kc`'s requests come from. */
async function whoAmI(kc: KubeConfigLike): Promise<{ username?: string; groups?: string[] }> {
  const review = await createClient(kc).create(SelfSubjectReview, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  return review.status?.userInfo ?? {};
}

async function serviceAccountToken(name: string): Promise<string> {
  const admin = new Transport(env.kubeConfig);
  const res = await admin.request<{ status: { token: string } }>('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  admin.destroy();
  return res.status.token;
}

/** Writes a kubeconfig into `dir` (a fresh folder under work) and returns its path. */
function kubeconfigFile(dir: string, doc: object): string {
  mkdirSync(join(work, dir), { recursive: true });
  const file = join(work, dir, 'config');
  writeFileSync(file, stringify(doc));
  return file;
}

interface CertUser {
  cert: string;
  key: string;
}

/** A client-certificate user of the API server (PEM; envtest's client CA signs it). */
function certUser(name: string, groups: string[] = []): CertUser {
  const user = env.addUser({ name, groups }).getCurrentUser()!;
  return { cert: Buffer.from(user.certData!, 'base64').toString('utf8'), key: Buffer.from(user.keyData!, 'base64').toString('utf8') };
}

/**
 * A kubeconfig user whose exec plugin hands out the client certificate last given to `hand()`, with an
 * expirationTimestamp `expiresInMs` after each run, as a plugin that issues short-lived certificates does.
 */
function certPlugin(dir: string, expiresInMs: number): { user: object; hand(u: CertUser): void } {
  const folder = join(work, dir, 'plugin');
  mkdirSync(folder, { recursive: true });
  const certFile = join(folder, 'cert.pem');
  const keyFile = join(folder, 'key.pem');
  return {
    user: {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: process.execPath,
        args: [plugin],
        env: [
          { name: 'PLUGIN_CERT_FILE', value: certFile },
          { name: 'PLUGIN_KEY_FILE', value: keyFile },
          { name: 'PLUGIN_EXPIRES_IN_MS', value: String(expiresInMs) },
        ],
        interactiveMode: 'Never',
      },
    },
    hand(u) {
      writeFileSync(certFile, u.cert);
      writeFileSync(keyFile, u.key);
    },
  };
}

/**
 * Points $KUBECONFIG at a kubeconfig (in a fresh folder `dir` under work) whose exec plugin hands out the
 * token in `tokenFile` (the reader's at first), valid for `expiresInMs` after each run (negative: already
 * expired); runs() lists the KUBERNETES_EXEC_INFO of each run so far.
 */
function tokenPlugin(dir: string, expiresInMs: number, exec: object = {}): { tokenFile: string; runs(): string[] } {
  const folder = join(work, dir);
  mkdirSync(folder, { recursive: true });
  const tokenFile = join(folder, 'plugin-token');
  const runLog = join(folder, 'runs.log');
  writeFileSync(tokenFile, tokens.reader);
  writeFileSync(runLog, '');
  process.env.KUBECONFIG = kubeconfigFile(dir, config({
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: process.execPath,
      args: [plugin],
      env: [
        { name: 'PLUGIN_TOKEN_FILE', value: tokenFile },
        { name: 'PLUGIN_RUN_LOG', value: runLog },
        { name: 'PLUGIN_EXPIRES_IN_MS', value: String(expiresInMs) },
      ],
      interactiveMode: 'Never',
      ...exec,
    },
  }));
  return { tokenFile, runs: () => readFileSync(runLog, 'utf8').split('\n').filter(Boolean) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cluster = () => ({ name: 'envtest', cluster: { server: env.server, 'certificate-authority-data': Buffer.from(env.caData).toString('base64') } });
const config = (user: object, extra: object = {}) => ({
  apiVersion: 'v1',
  kind: 'Config',
  clusters: [cluster()],
  users: [{ name: 'u', user }],
  contexts: [{ name: 'ctx', context: { cluster: 'envtest', user: 'u' } }],
  'current-context': 'ctx',
  ...extra,
});

beforeAll(async () => {
  env = await startTestEnv();
  work = mkdtempSync(join(tmpdir(), 'opgen-kubeconfig-'));
  const admin = createClient(env.kubeConfig);
  await admin.create(Namespace, { metadata: { name: ns } });
  await admin.create(ServiceAccount, { metadata: { name: 'reader', namespace: ns } });
  await admin.create(ServiceAccount, { metadata: { name: 'other', namespace: ns } });
  await admin.create(Role, { metadata: { name: 'configmap-reader', namespace: ns }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] } as object);
  await admin.create(RoleBinding, {
    metadata: { name: 'reader', namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns }],
  } as object);
  await admin.create(ConfigMap, { metadata: { name: 'visible', namespace: ns } });
  tokens = { reader: await serviceAccountToken('reader'), other: await serviceAccountToken('other') };
});

afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
});

afterAll(async () => {
  await env?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** No kubeconfig anywhere but where the test puts one. */
function isolate(): void {
  delete process.env.KUBECONFIG;
  delete process.env.KUBERNETES_SERVICE_HOST;
  delete process.env.KUBERNETES_SERVICE_PORT;
  process.env.HOME = mkdtempSync(join(work, 'home-'));
}

describe('loadKubeConfig against a real API server', () => {
  it('(a) KUBECONFIG naming envtest\'s admin kubeconfig (client certificate): a manager built without a kubeConfig is admin', async () => {
    isolate();
    process.env.KUBECONFIG = env.kubeconfigPath;
    const kc = await loadKubeConfig();
    expect(kc.getCurrentCluster()?.server).toBe(env.server);
    expect(await whoAmI(kc)).toMatchObject({ username: 'admin', groups: expect.arrayContaining(['system:masters']) });

    const mgr = await createManager({ logger: silentLogger() });
    expect(mgr.kubeConfig.getCurrentCluster()?.server).toBe(env.server);
    const def = await mgr.apiReader.get(Namespace, { name: 'default' });
    expect(def.metadata?.name).toBe('default');
  });

  it('(b) a token user (a ServiceAccount token from the TokenRequest API) gets what its Role grants and 403 elsewhere', async () => {
    isolate();
    process.env.KUBECONFIG = kubeconfigFile('token', config({ token: tokens.reader }));
    const kc = await loadKubeConfig();
    expect((await whoAmI(kc)).username).toBe(`system:serviceaccount:${ns}:reader`);
    const client = createClient(kc);
    expect((await client.list(ConfigMap, { namespace: ns })).items.map((c) => c.metadata?.name)).toContain('visible');
    const denied = await client.list(ConfigMap, { namespace: 'default' }).catch((e: unknown) => e);
    expect(isForbidden(denied)).toBe(true);
  });

  it('(c) a tokenFile user: the path resolves against the kubeconfig\'s folder, and the file is re-read (rotation)', async () => {
    isolate();
    const file = kubeconfigFile('token-file', config({ tokenFile: 'sa-token' }));
    writeFileSync(join(work, 'token-file', 'sa-token'), `${tokens.reader}\n`);
    process.env.KUBECONFIG = file; // the cwd is not the kubeconfig's folder
    const kc = await loadKubeConfig();
    expect((await whoAmI(kc)).username).toBe(`system:serviceaccount:${ns}:reader`);
    writeFileSync(join(work, 'token-file', 'sa-token'), tokens.other);
    expect((await whoAmI(kc)).username).toBe(`system:serviceaccount:${ns}:other`);
  });

  it('(d) in-cluster: a service-account folder (token + ca.crt) and KUBERNETES_SERVICE_HOST/PORT; the token is re-read', async () => {
    isolate();
    const sa = join(work, 'serviceaccount');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), tokens.reader);
    writeFileSync(join(sa, 'ca.crt'), env.caData);
    const { hostname, port } = new URL(env.server);
    process.env.KUBERNETES_SERVICE_HOST = hostname;
    process.env.KUBERNETES_SERVICE_PORT = port;
    const kc = await loadKubeConfig({ serviceAccountDir: sa });
    expect(kc.getCurrentCluster()?.server).toBe(`https://${hostname}:${port}`);
    expect((await whoAmI(kc)).username).toBe(`system:serviceaccount:${ns}:reader`);
    // The kubelet rotates projected tokens in place; the next credential read picks the new one up.
    writeFileSync(join(sa, 'token'), tokens.other);
    expect((await whoAmI(kc)).username).toBe(`system:serviceaccount:${ns}:other`);
    // A manager in a pod: no kubeConfig option.
    writeFileSync(join(sa, 'token'), tokens.reader);
    const mgr = await createManager({ logger: silentLogger(), kubeConfig: await loadKubeConfig({ serviceAccountDir: sa }) });
    expect((await mgr.apiReader.list(ConfigMap, { namespace: ns })).items.length).toBeGreaterThan(0);
  });

  it('(e) an exec plugin: its token is used, cached until expirationTimestamp, and the plugin runs again after', async () => {
    isolate();
    const { tokenFile, runs } = tokenPlugin('exec', 3000, { provideClusterInfo: true });
    const kc = await loadKubeConfig();
    expect(runs()).toHaveLength(0); // nothing runs until a credential is needed
    expect((await whoAmI(kc)).username).toBe(`system:serviceaccount:${ns}:reader`);
    expect(runs()).toHaveLength(1);
    const info = JSON.parse(runs()[0]!) as { apiVersion: string; kind: string; spec: { interactive: boolean; cluster?: { server: string } } };
    expect(info).toMatchObject({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { interactive: false, cluster: { server: env.server } } });

    // Cached: further requests (each new client asks for credentials) do not run the plugin.
    writeFileSync(tokenFile, tokens.other);
    expect((await whoAmI(kc)).username).toBe(`system:serviceaccount:${ns}:reader`);
    await Promise.all([whoAmI(kc), whoAmI(kc)]);
    expect(runs()).toHaveLength(1);

    // Expired: the next request runs it again and gets the new credential.
    await new Promise((r) => setTimeout(r, 3200));
    expect((await whoAmI(kc)).username).toBe(`system:serviceaccount:${ns}:other`);
    expect(runs()).toHaveLength(2);
  });

  it('(e2) a plugin that hands out an already-expired credential (a skewed clock) runs at most once a second, not on every request', async () => {
    isolate();
    const { runs } = tokenPlugin('exec-expired', -60_000);
    const client = createClient(await loadKubeConfig());
    const started = Date.now();
    for (let i = 0; i < 30; i++) {
      const review = await client.create(SelfSubjectReview, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
      expect(review.status?.userInfo?.username).toBe(`system:serviceaccount:${ns}:reader`);
    }
    const seconds = (Date.now() - started) / 1000;
    expect(runs().length).toBeGreaterThanOrEqual(1);
    expect(runs().length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
  });

  it('(e3) a cached exec credential the API server rejects (401) is dropped: the request is retried once with a fresh one', async () => {
    isolate();
    // Valid for an hour by its expirationTimestamp, but revoked: the server answers 401.
    const { tokenFile, runs } = tokenPlugin('exec-revoked', 3_600_000);
    writeFileSync(tokenFile, 'revoked-token');
    const kc = await loadKubeConfig();
    await kc.applyToHTTPSOptions({}); // the plugin runs and its credential is cached
    expect(runs()).toHaveLength(1);
    writeFileSync(tokenFile, tokens.reader);

    const client = createClient(kc);
    const review = await client.create(SelfSubjectReview, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(review.status?.userInfo?.username).toBe(`system:serviceaccount:${ns}:reader`);
    expect(runs()).toHaveLength(2);

    // Only once: a plugin that keeps handing out a rejected token gives a 401 error, not a loop.
    writeFileSync(tokenFile, 'revoked-again');
    const before = runs().length;
    const stale = createClient(await loadKubeConfig());
    await expect(stale.create(SelfSubjectReview, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' })).rejects.toMatchObject({ code: 401 });
    expect(runs().length - before).toBe(2); // the first credential and the one retry
  });

  it('(h) an exec plugin\'s client certificate rotates: after its expirationTimestamp the same client is the new certificate\'s user, and a watch opened before keeps running', async () => {
    isolate();
    const alice = certUser('cert-alice', ['system:masters']);
    const bob = certUser('cert-bob', ['system:masters']);
    const exec = certPlugin('exec-cert', 3000);
    exec.hand(alice);
    process.env.KUBECONFIG = kubeconfigFile('exec-cert', config(exec.user));
    // One client for the whole test, as an operator has: a fresh one would read the credentials anew.
    const transport = new Transport(await loadKubeConfig());
    const client = new ApiClient(transport);
    const whoAmINow = async () => (await client.create(SelfSubjectReview, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' })).status?.userInfo?.username;
    try {
      expect(await whoAmINow()).toBe('cert-alice');
      // A watch opened with alice's certificate, before the rotation.
      const abort = new AbortController();
      const seen: string[] = [];
      let ended: unknown;
      const watching = (async () => {
        for await (const ev of transport.watch(`/api/v1/namespaces/${ns}/configmaps`, {}, abort.signal)) seen.push(String((ev.object.metadata as { name?: string }).name));
      })().then(
        () => (ended = 'the watch ended'),
        (err: unknown) => (ended = err),
      );
      await eventually(() => expect(seen).toContain('visible'), { timeoutMs: 10_000 });
      expect(await whoAmINow()).toBe('cert-alice'); // the plugin's answer is kept until it expires

      // The plugin hands out bob's certificate once alice's has expired (it ran less than 3 s ago).
      exec.hand(bob);
      await sleep(3100);
      expect(await whoAmINow()).toBe('cert-bob');
      expect(await whoAmINow()).toBe('cert-bob');

      // The watch from before the rotation was not cut: it still delivers events.
      await client.create(ConfigMap, { metadata: { name: 'after-cert-rotation', namespace: ns } });
      await eventually(() => expect(seen).toContain('after-cert-rotation'), { timeoutMs: 10_000 });
      expect(ended).toBeUndefined();
      abort.abort();
      await watching;
    } finally {
      transport.destroy();
    }
  });

  it('(f) a KUBECONFIG list of two files is merged: the first file wins for current-context and for a name both define', async () => {
    isolate();
    const first = kubeconfigFile('merge-1', {
      'current-context': 'ctx',
      users: [{ name: 'u', user: { token: tokens.reader } }],
      contexts: [{ name: 'ctx', context: { cluster: 'envtest', user: 'u' } }],
    });
    const second = kubeconfigFile('merge-2', {
      'current-context': 'elsewhere',
      clusters: [cluster(), { name: 'nowhere', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [{ name: 'u', user: { token: tokens.other } }],
      contexts: [{ name: 'ctx', context: { cluster: 'nowhere', user: 'u' } }, { name: 'elsewhere', context: { cluster: 'nowhere' } }],
    });
    process.env.KUBECONFIG = `${first}:${second}`;
    const kc = await loadKubeConfig();
    expect(kc.getCurrentCluster()?.server).toBe(env.server);
    expect((await whoAmI(kc)).username).toBe(`system:serviceaccount:${ns}:reader`);
  });
});

interface Proxy {
  url: string;
  /** CONNECT targets it tunnelled, and the Proxy-Authorization headers it was sent. */
  tunnels: string[];
  authorizations: string[];
  close(): Promise<void>;
}

/**
 * A real HTTP CONNECT proxy (node:net): tunnels bytes to the target, or refuses every CONNECT with 403.
 * `names` maps host names to the addresses it connects to (a real proxy resolves names itself).
 */
async function startConnectProxy(refuse = false, names: Record<string, string> = {}): Promise<Proxy> {
  const tunnels: string[] = [];
  const authorizations: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const [requestLine = '', ...headers] = head.subarray(0, end).toString('latin1').split('\r\n');
      const [method, target = ''] = requestLine.split(' ');
      const auth = headers.find((h) => /^proxy-authorization:/i.test(h));
      if (auth) authorizations.push(auth.replace(/^[^:]*:\s*/, ''));
      if (method !== 'CONNECT' || refuse) {
        client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
        return;
      }
      tunnels.push(target);
      const colon = target.lastIndexOf(':');
      const host = target.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
      const upstream = net.connect(Number(target.slice(colon + 1)), names[host] ?? host, () => {
        client.write('HTTP/1.1 200 Connection established\r\n\r\n');
        const rest = head.subarray(end + 4);
        if (rest.length > 0) upstream.write(rest);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://opgen:s3cret@127.0.0.1:${port}`,
    tunnels,
    authorizations,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('proxy-url', () => {
  it('(g) requests and leader election\'s lease calls go through an HTTP CONNECT tunnel on the cluster\'s proxy-url', async () => {
    isolate();
    const proxy = await startConnectProxy();
    try {
      const admin = env.kubeConfig.getCurrentUser()!;
      process.env.KUBECONFIG = kubeconfigFile('proxy', {
        ...config({ 'client-certificate-data': admin.certData, 'client-key-data': admin.keyData }),
        clusters: [{ name: 'envtest', cluster: { ...cluster().cluster, 'proxy-url': proxy.url } }],
      });
      const kc = await loadKubeConfig();
      expect(kc.getCurrentCluster()?.proxyUrl).toBe(proxy.url);
      expect((await whoAmI(kc)).username).toBe('admin');
      const target = new URL(env.server).host;
      expect(proxy.tunnels).toContain(target);
      expect(proxy.authorizations[0]).toBe(`Basic ${Buffer.from('opgen:s3cret').toString('base64')}`);

      const tunnelsBefore = proxy.tunnels.length;
      const lease = await new LeaseClient(kc, ns, 'through-proxy').create({ holderIdentity: 'me' }, AbortSignal.timeout(10_000));
      expect(lease.spec?.holderIdentity).toBe('me');
      expect(proxy.tunnels.length).toBeGreaterThan(tunnelsBefore);
    } finally {
      await proxy.close();
    }
  });

  it('(i) through the proxy, the client and leader election\'s lease calls use an exec plugin\'s rotated client certificate', async () => {
    isolate();
    const proxy = await startConnectProxy();
    const alice = certUser('cert-alice-proxied', ['system:masters']);
    const bob = certUser('cert-bob-proxied'); // no RBAC rights: its lease calls are refused, naming it
    const exec = certPlugin('proxy-exec-cert', 3000);
    exec.hand(alice);
    let transport: Transport | undefined;
    try {
      process.env.KUBECONFIG = kubeconfigFile('proxy-exec-cert', {
        ...config(exec.user),
        clusters: [{ name: 'envtest', cluster: { ...cluster().cluster, 'proxy-url': proxy.url } }],
      });
      const kc = await loadKubeConfig();
      transport = new Transport(kc);
      const client = new ApiClient(transport);
      const whoAmINow = async () => (await client.create(SelfSubjectReview, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' })).status?.userInfo?.username;
      const leases = new LeaseClient(kc, ns, 'rotated-through-proxy');
      const leaseError = () => leases.get(AbortSignal.timeout(10_000)).then(() => undefined, (e: unknown) => e as ApiError);

      expect(await whoAmINow()).toBe('cert-alice-proxied');
      expect((await leaseError())?.code).toBe(404); // alice may read leases; there is none
      exec.hand(bob);
      await sleep(3100);
      expect(await whoAmINow()).toBe('cert-bob-proxied');
      const refused = await leaseError();
      expect(refused?.code).toBe(403);
      expect(refused?.message).toContain('User "cert-bob-proxied" cannot get resource "leases"');
      expect(proxy.tunnels.length).toBeGreaterThanOrEqual(4); // two agents each for the client and the lease calls
    } finally {
      transport?.destroy();
      await proxy.close();
    }
  });

  it('a proxy that refuses the CONNECT: the error names the proxy, the target and its answer', async () => {
    isolate();
    const proxy = await startConnectProxy(true);
    try {
      process.env.KUBECONFIG = kubeconfigFile('proxy-refused', {
        ...config({ token: tokens.reader }),
        clusters: [{ name: 'envtest', cluster: { ...cluster().cluster, 'proxy-url': proxy.url } }],
      });
      const err = await whoAmI(await loadKubeConfig()).catch((e: unknown) => e);
      const { host } = new URL(proxy.url);
      expect((err as Error).message).toBe(`proxy http://${host}: CONNECT ${new URL(env.server).host} was refused: 403 Forbidden`);
    } finally {
      await proxy.close();
    }
  });
});

// client-go uses HTTPS_PROXY (minus NO_PROXY) when the cluster sets no proxy-url, and never for
// loopback servers. envtest listens on 127.0.0.1, so these tests name it apiserver.opgen.test (which
// does not resolve: only the proxy knows where it is) and check the serving certificate against
// tls-server-name "localhost", one of its SANs (DNS:localhost, IP 127.0.0.1, IP ::1).
describe('HTTPS_PROXY / NO_PROXY from the environment', () => {
  const apiserverName = 'apiserver.opgen.test';

  /** Sets exactly these proxy variables (clearing the others, lower-case ones too); afterEach restores process.env. */
  function proxyEnv(vars: Record<string, string>): void {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy', 'REQUEST_METHOD']) delete process.env[name];
    Object.assign(process.env, vars);
  }

  /** $KUBECONFIG: envtest's admin at https://apiserver.opgen.test:<envtest's port>, optionally with a proxy-url. */
  async function namedServerConfig(dir: string, proxyUrl?: string): Promise<{ kc: KubeConfigLike; target: string }> {
    const admin = env.kubeConfig.getCurrentUser()!;
    const { port } = new URL(env.server);
    const server = `https://${apiserverName}:${port}`;
    process.env.KUBECONFIG = kubeconfigFile(dir, {
      ...config({ 'client-certificate-data': admin.certData, 'client-key-data': admin.keyData }),
      clusters: [{ name: 'envtest', cluster: { ...cluster().cluster, server, 'tls-server-name': 'localhost', ...(proxyUrl ? { 'proxy-url': proxyUrl } : {}) } }],
    });
    return { kc: await loadKubeConfig(), target: `${apiserverName}:${port}` };
  }

  const resolveToEnvtest = () => ({ [apiserverName]: new URL(env.server).hostname });

  it('(j) with HTTPS_PROXY set, requests and leader election\'s lease calls go through it', async () => {
    isolate();
    const proxy = await startConnectProxy(false, resolveToEnvtest());
    try {
      proxyEnv({ HTTPS_PROXY: proxy.url, NO_PROXY: 'other.example.com,10.0.0.0/8' });
      const { kc, target } = await namedServerConfig('env-proxy');
      expect((await whoAmI(kc)).username).toBe('admin');
      expect(proxy.tunnels).toContain(target);
      expect(proxy.authorizations[0]).toBe(`Basic ${Buffer.from('opgen:s3cret').toString('base64')}`);

      const tunnelsBefore = proxy.tunnels.length;
      const lease = await new LeaseClient(kc, ns, 'through-env-proxy').create({ holderIdentity: 'me' }, AbortSignal.timeout(10_000));
      expect(lease.spec?.holderIdentity).toBe('me');
      expect(proxy.tunnels.length).toBeGreaterThan(tunnelsBefore);
      expect(new Set(proxy.tunnels)).toEqual(new Set([target]));
    } finally {
      await proxy.close();
    }
  });

  it('(k) NO_PROXY=.opgen.test: no tunnel, so the name is looked up locally and does not resolve (a DNS error)', async () => {
    isolate();
    const proxy = await startConnectProxy(false, resolveToEnvtest());
    let transport: Transport | undefined;
    try {
      proxyEnv({ HTTPS_PROXY: proxy.url, NO_PROXY: 'localhost, .opgen.test' });
      const { kc } = await namedServerConfig('env-no-proxy');
      transport = new Transport(kc);
      const dnsError = expect.objectContaining({ code: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/), hostname: apiserverName, syscall: 'getaddrinfo' });
      expect(await transport.request('GET', '/version').catch((e: unknown) => e)).toEqual(dnsError);
      expect(await new LeaseClient(kc, ns, 'no-proxy').get(AbortSignal.timeout(10_000)).catch((e: unknown) => e)).toEqual(dnsError);
      expect(proxy.tunnels).toEqual([]);
    } finally {
      transport?.destroy();
      await proxy.close();
    }
  });

  it('(l) a cluster\'s proxy-url wins over HTTPS_PROXY', async () => {
    isolate();
    const clusterProxy = await startConnectProxy(false, resolveToEnvtest());
    const envProxy = await startConnectProxy(false, resolveToEnvtest());
    try {
      proxyEnv({ HTTPS_PROXY: envProxy.url });
      const { kc, target } = await namedServerConfig('env-proxy-and-proxy-url', clusterProxy.url);
      expect((await whoAmI(kc)).username).toBe('admin');
      expect(await new LeaseClient(kc, ns, 'proxy-url-wins').get(AbortSignal.timeout(10_000)).catch((e: ApiError) => e.code)).toBe(404);
      expect(clusterProxy.tunnels.length).toBeGreaterThanOrEqual(2);
      expect(new Set(clusterProxy.tunnels)).toEqual(new Set([target]));
      expect(envProxy.tunnels).toEqual([]);
    } finally {
      await clusterProxy.close();
      await envProxy.close();
    }
  });

  it('(m) the API server at 127.0.0.1 is not proxied even with HTTPS_PROXY set (loopback never is)', async () => {
    isolate();
    const proxy = await startConnectProxy(true); // would refuse every CONNECT, so a tunnel attempt would fail the request
    try {
      proxyEnv({ HTTPS_PROXY: proxy.url, https_proxy: proxy.url });
      process.env.KUBECONFIG = kubeconfigFile('env-proxy-loopback', config({ token: tokens.reader }));
      const kc = await loadKubeConfig();
      expect(new URL(kc.getCurrentCluster()!.server).hostname).toBe('127.0.0.1');
      expect((await whoAmI(kc)).username).toBe(`system:serviceaccount:${ns}:reader`);
      expect(await new LeaseClient(kc, ns, 'loopback').get(AbortSignal.timeout(10_000)).catch((e: ApiError) => e.code)).toBe(403);
      expect(proxy.tunnels).toEqual([]);
      expect(proxy.authorizations).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('(n) an HTTPS_PROXY the runtime cannot use (socks5) fails the client and the lease calls with one line naming it', async () => {
    isolate();
    proxyEnv({ HTTPS_PROXY: 'socks5://127.0.0.1:1080' });
    const { kc } = await namedServerConfig('env-proxy-socks');
    const message = `cluster "envtest" gets HTTPS_PROXY=socks5://127.0.0.1:1080 from the environment, a socks5 proxy, where only http:// proxies (HTTP CONNECT) are supported; add ${apiserverName} to NO_PROXY or unset HTTPS_PROXY`;
    expect(((await whoAmI(kc).catch((e: unknown) => e)) as Error).message).toBe(message);
    expect(((await new LeaseClient(kc, ns, 'socks').get(AbortSignal.timeout(10_000)).catch((e: unknown) => e)) as Error).message).toBe(message);
  });
});
