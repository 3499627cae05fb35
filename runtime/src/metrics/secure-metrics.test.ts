// --metrics-secure against a real API server: the manager (a user holding only the scaffold's
// metrics-auth rights) asks a TokenReview and a SubjectAccessReview per scraper, and only a token
// whose user may `get` the /metrics non-resource URL gets the metrics.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, eventually, type TestEnv } from '../envtest/index.js';
import { TinyCa } from '../internal/tls/tiny-ca.js';
import { silentLogger } from '../log/index.js';
import { createManager } from '../manager/manager.js';
import { api } from '../webhook/testdata/raw-api.js';

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
});
