// --metrics-secure against a real API server: the manager (a user holding only the scaffold's
// metrics-auth rights) asks a TokenReview and a SubjectAccessReview per scraper, and only a token
// whose user may `get` the /metrics non-resource URL gets the metrics.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { request } from 'node:https';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, eventually, type TestEnv } from '../envtest/index.js';
import { TinyCa } from '../internal/tls/tiny-ca.js';
import { silentLogger } from '../log/index.js';
import { createManager } from '../manager/manager.js';
import { api } from '../webhook/testdata/raw-api.js';
import { RuntimeMetrics, startMetricsServer } from './index.js';

function scrape(port: number, ca: string, token?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
    const req = request({ host: '127.0.0.1', port, path: '/metrics', ca, servername: 'localhost', agent: false, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** How many `resource` requests the API server has answered so far (its own apiserver_request_total). */
async function requestsServed(env: TestEnv, resource: string): Promise<number> {
  const opts: { headers: Record<string, string> } & Record<string, unknown> = { headers: {} };
  await env.kubeConfig.applyToHTTPSOptions(opts);
  const text = await new Promise<string>((resolve, reject) => {
    const req = request(new URL('/metrics', env.server), { ...opts, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`GET /metrics: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
  let total = 0;
  for (const m of text.matchAll(/^apiserver_request_total\{([^}]*)\} (\S+)$/gm)) {
    if (m[1]!.includes(`resource="${resource}"`)) total += Number(m[2]);
  }
  return total;
}

/** SHA-256 fingerprint of the certificate a fresh TLS connection to `port` is served. */
function servedCertificate(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

async function created(env: TestEnv, path: string, body: object): Promise<any> {
  const res = await api(env, 'POST', path, body);
  if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${res.body?.message}`);
  return res.body;
}

describe('secure metrics', () => {
  let env: TestEnv;
  const stop = new AbortController();
  let done: Promise<void> | undefined;
  let port = 0;
  const ca = TinyCa.create('metrics-ca');
  const certDir = mkdtempSync(join(tmpdir(), 'opgen-metrics-certs-'));
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    env = await startTestEnv();
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    // The scaffold's config/rbac/metrics_auth_role.yaml and metrics_reader_role.yaml.
    await created(env, `${rbac}/clusterroles`, { metadata: { name: 'metrics-auth-role' }, rules: [
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ] });
    await created(env, `${rbac}/clusterroles`, { metadata: { name: 'metrics-reader' }, rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }] });
    await created(env, `${rbac}/clusterrolebindings`, { metadata: { name: 'metrics-auth' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-auth-role' },
      subjects: [{ kind: 'User', name: 'metrics-manager', apiGroup: 'rbac.authorization.k8s.io' }] });
    await created(env, `${rbac}/clusterrolebindings`, { metadata: { name: 'prometheus-metrics-reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'prometheus', namespace: 'default' }] });
    for (const name of ['prometheus', 'stranger']) {
      await created(env, '/api/v1/namespaces/default/serviceaccounts', { metadata: { name } });
      const tr = await created(env, `/api/v1/namespaces/default/serviceaccounts/${name}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
      tokens[name] = tr.status.token as string;
    }
    const pair = ca.issue({ commonName: 'localhost', hosts: ['localhost', '127.0.0.1'], usage: 'server' });
    writeFileSync(join(certDir, 'tls.crt'), pair.certPem);
    writeFileSync(join(certDir, 'tls.key'), pair.keyPem);
    const mgr = await createManager({
      kubeConfig: env.addUser({ name: 'metrics-manager' }), logger: silentLogger(),
      metricsBindAddress: '127.0.0.1:0', metricsSecure: true, metricsCertPath: certDir,
    });
    done = mgr.start(stop.signal);
    port = await eventually(() => mgr.ports.metrics ?? Promise.reject(new Error('metrics not listening yet')), { timeoutMs: 10_000 });
  });
  afterAll(async () => {
    stop.abort();
    await done;
    await env?.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  it('answers 401 without a token or with a bad one', async () => {
    expect((await scrape(port, ca.certPem)).status).toBe(401);
    expect((await scrape(port, ca.certPem, 'not-a-token')).status).toBe(401);
  });

  it('answers 403 to an authenticated user without the metrics-reader role', async () => {
    const res = await scrape(port, ca.certPem, tokens.stranger);
    expect(res.status).toBe(403);
    expect(res.text).toContain('system:serviceaccount:default:stranger');
  });

  it('serves the metrics over TLS from --metrics-cert-path to a user with the metrics-reader role', async () => {
    const res = await scrape(port, ca.certPem, tokens.prometheus);
    expect(res.status).toBe(200);
    expect(res.text).toContain('process_cpu_user_seconds_total');
    // Cached: the same answer again.
    expect((await scrape(port, ca.certPem, tokens.prometheus)).status).toBe(200);
  });

  it('reuses an authentication and authorization answer within its TTL and asks the API server again after it', async () => {
    const ttlMs = 3000;
    const serverStop = new AbortController();
    try {
      const { port: cachedPort } = await startMetricsServer('127.0.0.1:0', new RuntimeMetrics(), serverStop.signal, {
        secure: { kubeConfig: env.addUser({ name: 'metrics-manager' }), certDir, authCacheTtlMs: ttlMs },
      });
      const counts = async () => ({ tokenReviews: await requestsServed(env, 'tokenreviews'), accessReviews: await requestsServed(env, 'subjectaccessreviews') });
      const before = await counts();
      expect((await scrape(cachedPort, ca.certPem, tokens.prometheus)).status).toBe(200);
      const first = Date.now();
      await eventually(async () => expect(await counts()).toEqual({ tokenReviews: before.tokenReviews + 1, accessReviews: before.accessReviews + 1 }));
      // Within the TTL: the same answer, no further reviews.
      expect((await scrape(cachedPort, ca.certPem, tokens.prometheus)).status).toBe(200);
      expect(Date.now() - first).toBeLessThan(ttlMs);
      await new Promise((r) => setTimeout(r, 300));
      expect(await counts()).toEqual({ tokenReviews: before.tokenReviews + 1, accessReviews: before.accessReviews + 1 });
      // After it: asked again.
      await new Promise((r) => setTimeout(r, Math.max(0, first + ttlMs + 100 - Date.now())));
      expect((await scrape(cachedPort, ca.certPem, tokens.prometheus)).status).toBe(200);
      await eventually(async () => expect(await counts()).toEqual({ tokenReviews: before.tokenReviews + 2, accessReviews: before.accessReviews + 2 }));
    } finally {
      serverStop.abort();
    }
  });

  it('one review for concurrent scrapes with one token; distinct junk tokens cost at most the unknown-token budget; a working scraper is not evicted', async () => {
    const serverStop = new AbortController();
    try {
      const { port: p } = await startMetricsServer('127.0.0.1:0', new RuntimeMetrics(), serverStop.signal, {
        secure: { kubeConfig: env.addUser({ name: 'metrics-manager' }), certDir },
      });
      const counts = async () => ({ tokenReviews: await requestsServed(env, 'tokenreviews'), accessReviews: await requestsServed(env, 'subjectaccessreviews') });
      const before = await counts();
      const scrapes = await Promise.all(Array.from({ length: 30 }, () => scrape(p, ca.certPem, tokens.prometheus)));
      expect(scrapes.map((r) => r.status)).toEqual(Array(30).fill(200));
      await eventually(async () => expect(await counts()).toEqual({ tokenReviews: before.tokenReviews + 1, accessReviews: before.accessReviews + 1 }));

      // 200 distinct junk tokens at once: each unknown, so each would be a TokenReview without a bound.
      const started = performance.now();
      const junk = await Promise.all(Array.from({ length: 200 }, (_, i) => scrape(p, ca.certPem, `junk-${i}-${Math.random()}`)));
      const seconds = (performance.now() - started) / 1000;
      const statuses = new Set(junk.map((r) => r.status));
      expect([...statuses].every((s) => s === 401 || s === 429)).toBe(true);
      expect(junk.filter((r) => r.status === 429).length).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 300));
      const after = await counts();
      // The budget: 20 at once, then 5 a second.
      expect(after.tokenReviews - before.tokenReviews - 1).toBeLessThanOrEqual(20 + Math.ceil(seconds * 5));
      expect(after.accessReviews).toBe(before.accessReviews + 1);
      // The scraper that works still does, from the cache.
      expect((await scrape(p, ca.certPem, tokens.prometheus)).status).toBe(200);
      expect(await counts()).toEqual(after);
    } finally {
      serverStop.abort();
    }
  });

  it('a review the API server does not answer fails after 10 s (controller-runtime\'s TokenAccessReviewTimeout), not the 60 s request default', async () => {
    // Accepts connections and never answers (not even the TLS handshake).
    const silent = net.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const silentPort = (silent.address() as net.AddressInfo).port;
    const serverStop = new AbortController();
    try {
      const kubeConfig = {
        getCurrentCluster: () => ({ name: 'silent', server: `https://127.0.0.1:${silentPort}`, skipTLSVerify: true }),
        applyToHTTPSOptions: async () => {},
      };
      const { port: p } = await startMetricsServer('127.0.0.1:0', new RuntimeMetrics(), serverStop.signal, { secure: { kubeConfig, certDir } });
      const started = performance.now();
      const res = await scrape(p, ca.certPem, tokens.prometheus);
      const ms = performance.now() - started;
      expect(res.status).toBe(500);
      expect(res.text).toContain('no answer within 10000 ms');
      expect(ms).toBeGreaterThanOrEqual(9_900);
      expect(ms).toBeLessThan(15_000);
    } finally {
      serverStop.abort();
      silent.close();
    }
  }, 30_000);

  it('serves a new certificate put into --metrics-cert-path without a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opgen-metrics-rotate-'));
    const serverStop = new AbortController();
    try {
      const oldCa = TinyCa.create('metrics-old-ca');
      const oldPair = oldCa.issue({ commonName: 'localhost', hosts: ['localhost', '127.0.0.1'], usage: 'server' });
      writeFileSync(join(dir, 'tls.crt'), oldPair.certPem);
      writeFileSync(join(dir, 'tls.key'), oldPair.keyPem);
      const { port: rotatingPort } = await startMetricsServer('127.0.0.1:0', new RuntimeMetrics(), serverStop.signal, {
        secure: { kubeConfig: env.addUser({ name: 'metrics-manager' }), certDir: dir, certPollIntervalMs: 200 },
      });
      const oldFingerprint = await servedCertificate(rotatingPort, oldCa.certPem);
      expect((await scrape(rotatingPort, oldCa.certPem, tokens.prometheus)).status).toBe(200);

      // A new key from a new CA, as when cert-manager reissues the Secret.
      const newCa = TinyCa.create('metrics-new-ca');
      const newPair = newCa.issue({ commonName: 'localhost', hosts: ['localhost', '127.0.0.1'], usage: 'server' });
      writeFileSync(join(dir, 'tls.key'), newPair.keyPem);
      writeFileSync(join(dir, 'tls.crt'), newPair.certPem);
      const newFingerprint = await eventually(() => servedCertificate(rotatingPort, newCa.certPem), { timeoutMs: 10_000 });
      expect(newFingerprint).not.toBe(oldFingerprint);
      expect((await scrape(rotatingPort, newCa.certPem, tokens.prometheus)).status).toBe(200);
      await expect(scrape(rotatingPort, oldCa.certPem, tokens.prometheus)).rejects.toThrow();
    } finally {
      serverStop.abort();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
