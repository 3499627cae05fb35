// The API server calls webhooks served by the test process, through the configurations envtest
// rewrote to point at env.webhook (like controller-runtime's envtest WebhookInstallOptions).
import { ApiException, CustomObjectsApi } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from './index.js';

const testdata = fileURLToPath(new URL('./testdata/', import.meta.url));

interface Review { request: { uid: string; name?: string; object?: { metadata?: { name?: string } } } }
interface ConversionReview { request: { uid: string; desiredAPIVersion: string; objects: { apiVersion: string; spec?: Record<string, unknown> }[] } }

/** What a user's webhook server does: routes by path, answers AdmissionReview / ConversionReview. */
function serveWebhooks(env: TestEnv, calls: string[]): Promise<Server> {
  const server = createServer({
    cert: readFileSync(join(env.webhook.certDir, 'tls.crt')),
    key: readFileSync(join(env.webhook.certDir, 'tls.key')),
  }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => {
      // The API server adds ?timeout=10s to the configured path.
      const path = new URL(req.url ?? '/', 'https://webhook').pathname;
      calls.push(path);
      const reply = (payload: object) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify(payload)); };
      if (path === '/convert') {
        const review = JSON.parse(body) as ConversionReview;
        const convertedObjects = review.request.objects.map((o) => {
          const { size, count, ...rest } = (o.spec ?? {}) as { size?: number; count?: number };
          const spec = review.request.desiredAPIVersion.endsWith('/v2') ? { ...rest, count: size ?? count } : { ...rest, size: count ?? size };
          return { ...o, apiVersion: review.request.desiredAPIVersion, spec };
        });
        return reply({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: review.request.uid, convertedObjects, result: { status: 'Success' } } });
      }
      const review = JSON.parse(body) as Review;
      const response: Record<string, unknown> = { uid: review.request.uid, allowed: true };
      if (path === '/mutate-test-opgen-dev-v1-widget') {
        response.patchType = 'JSONPatch';
        response.patch = Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/labels', value: { mutated: 'true' } }])).toString('base64');
      } else if (path === '/validate-test-opgen-dev-v1-widget' && review.request.name === 'forbidden') {
        response.allowed = false;
        response.status = { code: 403, message: 'widgets named forbidden are not allowed' };
      }
      reply({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response });
    });
  });
  return new Promise((resolve) => server.listen(env.webhook.port, env.webhook.host, () => resolve(server)));
}

describe('webhooks under test', () => {
  let env: TestEnv;
  let server: Server;
  let objects: CustomObjectsApi;
  const calls: string[] = [];

  beforeAll(async () => {
    env = await startTestEnv({
      // widgets.yaml a second time: a CRD given twice is replaced, not refused.
      crdPaths: [testdata, join(testdata, 'conversion'), join(testdata, 'widgets.yaml'), join(testdata, 'bases')],
      // patches/: the CRD conversion patch of parts (its CRD in bases/ has none), as config/crd/patches.
      webhookPaths: [join(testdata, 'webhooks'), join(testdata, 'patches')],
    });
    server = await serveWebhooks(env, calls);
    objects = env.kubeConfig.makeApiClient(CustomObjectsApi);
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server ? server.close(r) : r(undefined));
    await env?.stop();
  });

  const widget = (name: string) => ({
    group: 'test.opgen.dev', version: 'v1', namespace: 'default', plural: 'widgets',
    body: { apiVersion: 'test.opgen.dev/v1', kind: 'Widget', metadata: { name }, spec: { size: 1 } },
  });

  it('installs each CRD once, even when given twice', () => {
    expect([...env.crds].sort()).toEqual(['gadgets.test.opgen.dev', 'parts.test.opgen.dev', 'things.test.opgen.dev', 'widgets.test.opgen.dev']);
  });

  it('rewrites service references to the local endpoint with its CA', async () => {
    expect(env.webhook.host).toBe('127.0.0.1');
    const res = await env.kubeConfig.makeApiClient(CustomObjectsApi).getClusterCustomObject({
      group: 'admissionregistration.k8s.io', version: 'v1', plural: 'validatingwebhookconfigurations', name: 'validating-webhook-configuration',
    });
    const clientConfig = res.webhooks[0].clientConfig;
    expect(clientConfig.service).toBeUndefined();
    expect(clientConfig.url).toBe(`https://127.0.0.1:${env.webhook.port}/validate-test-opgen-dev-v1-widget`);
    expect(Buffer.from(clientConfig.caBundle, 'base64').toString()).toBe(env.webhook.caData);
  });

  it('lets the validating webhook deny a request with its own message', async () => {
    // The API server notices new webhook configurations through an informer, so the very first
    // request can slip past them: retry a dry run until the webhook answers.
    let denial = '';
    for (let i = 0; i < 50 && !denial; i++) {
      try {
        await objects.createNamespacedCustomObject({ ...widget('forbidden'), dryRun: 'All' });
        await new Promise((r) => setTimeout(r, 100));
      } catch (err) {
        if (!(err instanceof ApiException)) throw err;
        denial = (typeof err.body === 'string' ? JSON.parse(err.body) : err.body).message;
      }
    }
    expect(denial).toBe('admission webhook "vwidget.test.opgen.dev" denied the request: widgets named forbidden are not allowed');
  });

  it('applies the mutating webhook patch', async () => {
    const created = await objects.createNamespacedCustomObject(widget('mutated'));
    expect(created.metadata.labels).toEqual({ mutated: 'true' });
    expect(calls).toContain('/mutate-test-opgen-dev-v1-widget');
  });

  it('converts between CRD versions through the conversion webhook', async () => {
    const things = { group: 'test.opgen.dev', namespace: 'default', plural: 'things' };
    await objects.createNamespacedCustomObject({ ...things, version: 'v1', body: { apiVersion: 'test.opgen.dev/v1', kind: 'Thing', metadata: { name: 'one' }, spec: { size: 7 } } });
    const asV2 = await objects.getNamespacedCustomObject({ ...things, version: 'v2', name: 'one' });
    expect(asV2.apiVersion).toBe('test.opgen.dev/v2');
    expect(asV2.spec).toEqual({ count: 7 });
    expect(calls).toContain('/convert');
  });

  it('applies a CRD conversion patch from webhookPaths: the CRD converts through the local webhook', async () => {
    const crd = await env.kubeConfig.makeApiClient(CustomObjectsApi).getClusterCustomObject({
      group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions', name: 'parts.test.opgen.dev',
    });
    expect(crd.spec.conversion.strategy).toBe('Webhook');
    expect(crd.spec.conversion.webhook.clientConfig.url).toBe(`https://127.0.0.1:${env.webhook.port}/convert`);
    const parts = { group: 'test.opgen.dev', namespace: 'default', plural: 'parts' };
    await objects.createNamespacedCustomObject({ ...parts, version: 'v2', body: { apiVersion: 'test.opgen.dev/v2', kind: 'Part', metadata: { name: 'p' }, spec: { count: 4 } } });
    const asV1 = await objects.getNamespacedCustomObject({ ...parts, version: 'v1', name: 'p' });
    expect(asV1.spec).toEqual({ size: 4 });
  });
});
