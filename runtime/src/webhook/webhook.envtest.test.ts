// Webhooks served by a manager and called by a real kube-apiserver (envtest): defaulting, validation
// with warnings, dry-run, conversion through the hub, certificate rotation while serving, local
// development without certificates, and secure metrics (TokenReview + SubjectAccessReview).
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupVersion } from '../api/kind.js';
import { startTestEnv, eventually, type TestEnv } from '../envtest/index.js';
import { TinyCa } from '../internal/tls/tiny-ca.js';
import { silentLogger } from '../log/index.js';
import { createManager, type Manager } from '../manager/manager.js';
import { api, warningsOf } from './testdata/raw-api.js';
import { denied, webhookFor, type AdmissionRequest, type ManagerWebhookOptions, type SpokeConversion } from './index.js';

const testdata = fileURLToPath(new URL('./testdata/', import.meta.url));

interface Meta { name?: string; namespace?: string; annotations?: Record<string, string>; labels?: Record<string, string>; resourceVersion?: string; uid?: string }
interface Guitar { apiVersion?: string; kind?: string; metadata?: Meta; spec?: { strings?: number; tuning?: string; pickups?: string } }
interface GuitarV1beta1 { apiVersion?: string; kind?: string; metadata?: Meta; spec?: { stringCount?: number; tuning?: string; finish?: string } }
const Guitar = groupVersion('webhook.opgen.dev', 'v1').kind<Guitar>('Guitar');

// kubebuilder's multiversion tutorial: a field only one version has rides along in an annotation.
const finishAnnotation = 'webhook.opgen.dev/finish';
const pickupsAnnotation = 'webhook.opgen.dev/pickups';
const v1beta1Conversion: SpokeConversion<GuitarV1beta1, Guitar> = {
  toHub(spoke) {
    const { [pickupsAnnotation]: pickups, ...annotations } = spoke.metadata?.annotations ?? {};
    if (spoke.spec?.finish !== undefined) annotations[finishAnnotation] = spoke.spec.finish;
    return {
      metadata: { ...spoke.metadata, annotations },
      spec: { strings: spoke.spec?.stringCount, tuning: spoke.spec?.tuning, pickups },
    };
  },
  fromHub(hub) {
    const { [finishAnnotation]: finish, ...annotations } = hub.metadata?.annotations ?? {};
    if (hub.spec?.pickups !== undefined) annotations[pickupsAnnotation] = hub.spec.pickups;
    return {
      metadata: { ...hub.metadata, annotations },
      spec: { stringCount: hub.spec?.strings, tuning: hub.spec?.tuning, finish },
    };
  },
};

const v1 = (ns: string) => `/apis/webhook.opgen.dev/v1/namespaces/${ns}/guitars`;
const v1beta1 = (ns: string) => `/apis/webhook.opgen.dev/v1beta1/namespaces/${ns}/guitars`;

/** A manager serving Guitar's webhooks; records the admission requests its handlers saw. */
async function guitarManager(env: TestEnv, webhook: ManagerWebhookOptions, seen: AdmissionRequest<Guitar>[]): Promise<{ mgr: Manager; stop: () => Promise<void> }> {
  const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), webhook });
  webhookFor(mgr, Guitar)
    .withDefaulter({
      default(obj, req) {
        seen.push(req);
        obj.spec ??= {};
        obj.spec.tuning ??= 'standard';
      },
    })
    .withValidator({
      validateCreate(obj) {
        return (obj.spec?.strings ?? 6) > 6 ? [`${obj.spec?.strings} strings: an extended-range guitar`] : [];
      },
      validateUpdate(oldObj, obj) {
        if (obj.spec?.tuning === 'drop-z') throw denied('spec.tuning drop-z does not exist', { warnings: [`was ${oldObj.spec?.tuning}`] });
        return ['tuning changes need a setup'];
      },
      validateDelete() {},
    })
    .withConversion({ spokes: { v1beta1: v1beta1Conversion } })
    .complete();
  const ctl = new AbortController();
  const done = mgr.start(ctl.signal);
  await mgr.webhookServer.listening();
  return { mgr, stop: async () => { ctl.abort(); await done; } };
}

/** The certificate the server at host:port presents, as a fingerprint. */
function servedFingerprint(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host, port, rejectUnauthorized: false }, () => {
      const fp = s.getPeerX509Certificate()?.fingerprint256 ?? '';
      s.destroy();
      resolve(fp);
    });
    s.on('error', reject);
  });
}

describe('webhooks on a real API server', () => {
  let env: TestEnv;
  let certDir: string;
  let stopManager: () => Promise<void> = async () => {};
  const seen: AdmissionRequest<Guitar>[] = [];
  const ns = 'default';

  beforeAll(async () => {
    env = await startTestEnv({ crdPaths: [join(testdata, 'crds')], webhookPaths: [join(testdata, 'webhooks')] });
    // A folder of our own, so the rotation test can replace what is in it.
    certDir = mkdtempSync(join(tmpdir(), 'opgen-webhook-certs-'));
    copyFileSync(join(env.webhook.certDir, 'tls.crt'), join(certDir, 'tls.crt'));
    copyFileSync(join(env.webhook.certDir, 'tls.key'), join(certDir, 'tls.key'));
    ({ stop: stopManager } = await guitarManager(env, { host: env.webhook.host, port: env.webhook.port, certDir, certPollIntervalMs: 500 }, seen));
  });
  afterAll(async () => {
    await stopManager();
    await env?.stop();
    if (certDir) rmSync(certDir, { recursive: true, force: true });
  });

  it('defaults a field on create and returns the validator warnings to the client', async () => {
    const res = await api(env, 'POST', v1(ns), { apiVersion: 'webhook.opgen.dev/v1', kind: 'Guitar', metadata: { name: 'seven' }, spec: { strings: 7 } });
    expect(res.status).toBe(201);
    expect(res.body.spec).toEqual({ strings: 7, tuning: 'standard' });
    expect(warningsOf(res)).toEqual(['7 strings: an extended-range guitar']);
    expect(seen.at(-1)).toMatchObject({ operation: 'CREATE', dryRun: false, name: 'seven', namespace: ns, kind: { group: 'webhook.opgen.dev', version: 'v1', kind: 'Guitar' } });
    expect(seen.at(-1)?.userInfo.groups).toContain('system:masters');
  });

  it('denies an update with its message; warnings of allowed and denied updates reach the client', async () => {
    const current = (await api(env, 'GET', `${v1(ns)}/seven`)).body as Guitar;
    const allowed = await api(env, 'PUT', `${v1(ns)}/seven`, { ...current, spec: { ...current.spec, tuning: 'drop-d' } });
    expect(allowed.status).toBe(200);
    expect(warningsOf(allowed)).toEqual(['tuning changes need a setup']);
    const refused = await api(env, 'PUT', `${v1(ns)}/seven`, { ...allowed.body, spec: { ...allowed.body.spec, tuning: 'drop-z' } });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('spec.tuning drop-z does not exist');
    expect(refused.body.message).toContain('vguitar-v1.kb.io');
    expect(warningsOf(refused)).toEqual(['was drop-d']);
    expect((await api(env, 'GET', `${v1(ns)}/seven`)).body.spec.tuning).toBe('drop-d');
  });

  it('flags dry-run requests to handlers (and nothing is stored)', async () => {
    const res = await api(env, 'POST', `${v1(ns)}?dryRun=All`, { apiVersion: 'webhook.opgen.dev/v1', kind: 'Guitar', metadata: { name: 'dry' }, spec: {} });
    expect(res.status).toBe(201);
    expect(res.body.spec.tuning).toBe('standard');
    expect(seen.at(-1)).toMatchObject({ name: 'dry', dryRun: true });
    expect((await api(env, 'GET', `${v1(ns)}/dry`)).status).toBe(404);
  });

  it('converts through the hub: create as v1beta1, read as v1 and back, list both, no field lost', async () => {
    const created = await api(env, 'POST', v1beta1(ns), {
      apiVersion: 'webhook.opgen.dev/v1beta1', kind: 'Guitar',
      metadata: { name: 'tele', labels: { brand: 'fender' }, annotations: { note: 'keep me' } },
      spec: { stringCount: 6, tuning: 'open-g', finish: 'butterscotch' },
    });
    expect(created.status).toBe(201);
    expect(created.body.apiVersion).toBe('webhook.opgen.dev/v1beta1');
    expect(created.body.spec).toEqual({ stringCount: 6, tuning: 'open-g', finish: 'butterscotch' });

    const asV1 = (await api(env, 'GET', `${v1(ns)}/tele`)).body as Guitar;
    expect(asV1.apiVersion).toBe('webhook.opgen.dev/v1');
    expect(asV1.spec).toEqual({ strings: 6, tuning: 'open-g' });
    expect(asV1.metadata?.annotations).toEqual({ note: 'keep me', [finishAnnotation]: 'butterscotch' });
    expect(asV1.metadata?.labels).toEqual({ brand: 'fender' });
    expect(asV1.metadata?.uid).toBe(created.body.metadata.uid);

    // A field only v1 has survives a round trip through v1beta1.
    const updated = await api(env, 'PUT', `${v1(ns)}/tele`, { ...asV1, spec: { ...asV1.spec, pickups: 'single-coil' } });
    expect(updated.status).toBe(200);
    const back = (await api(env, 'GET', `${v1beta1(ns)}/tele`)).body as GuitarV1beta1;
    expect(back.spec).toEqual({ stringCount: 6, tuning: 'open-g', finish: 'butterscotch' });
    expect(back.metadata?.annotations).toEqual({ note: 'keep me', [pickupsAnnotation]: 'single-coil' });
    const putBack = await api(env, 'PUT', `${v1beta1(ns)}/tele`, back);
    expect(putBack.status).toBe(200);
    expect((await api(env, 'GET', `${v1(ns)}/tele`)).body.spec).toEqual({ strings: 6, tuning: 'open-g', pickups: 'single-coil' });

    const listV1 = (await api(env, 'GET', v1(ns))).body;
    const listV1beta1 = (await api(env, 'GET', v1beta1(ns))).body;
    expect(listV1.items.map((g: Guitar) => [g.apiVersion, g.metadata?.name, g.spec?.strings]).sort()).toEqual([
      ['webhook.opgen.dev/v1', 'seven', 7], ['webhook.opgen.dev/v1', 'tele', 6],
    ]);
    expect(listV1beta1.items.map((g: GuitarV1beta1) => [g.apiVersion, g.metadata?.name, g.spec?.stringCount]).sort()).toEqual([
      ['webhook.opgen.dev/v1beta1', 'seven', 7], ['webhook.opgen.dev/v1beta1', 'tele', 6],
    ]);
  });

  it('answers malformed reviews with HTTP 200 and a refusing review, and keeps serving', async () => {
    const post = (path: string, body: string, type = 'application/json') => new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: env.webhook.host, port: env.webhook.port, path, method: 'POST', ca: env.webhook.caData, servername: 'localhost', agent: false, headers: { 'content-type': type } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
    const notJson = await post('/validate-webhook-opgen-dev-v1-guitar', '{');
    expect(notJson.status).toBe(200);
    expect(JSON.parse(notJson.body).response).toMatchObject({ allowed: false, status: { code: 400, status: 'Failure' } });
    const conversion = await post('/convert', '{"kind":"ConversionReview"}');
    expect(conversion.status).toBe(200);
    expect(JSON.parse(conversion.body).response.result).toMatchObject({ status: 'Failure' });
    const yaml = await post('/validate-webhook-opgen-dev-v1-guitar', '{}', 'application/yaml');
    expect(JSON.parse(yaml.body).response).toMatchObject({ allowed: false, status: { code: 400, message: 'contentType=application/yaml, expected application/json' } });
    expect((await post('/elsewhere', '{}')).status).toBe(404);
    expect((await api(env, 'GET', `${v1beta1(ns)}/tele`)).status).toBe(200);
  });

  it('keeps API server calls succeeding while the serving certificate rotates to a new key and a new CA', async () => {
    const newCa = TinyCa.create('rotated-webhook-ca');
    const pair = newCa.issue({ commonName: 'localhost', hosts: ['localhost', env.webhook.host], usage: 'server' });
    const before = await servedFingerprint(env.webhook.host, env.webhook.port);

    // Traffic through all three webhooks for the whole rotation.
    let stop = false;
    const failures: string[] = [];
    let calls = 0;
    const traffic = (async () => {
      for (let i = 0; !stop; i++) {
        const c = await api(env, 'POST', v1beta1(ns), { apiVersion: 'webhook.opgen.dev/v1beta1', kind: 'Guitar', metadata: { name: `rot-${i}` }, spec: { stringCount: 6 } });
        const r = await api(env, 'GET', `${v1beta1(ns)}/rot-${i}`);
        calls += 2;
        if (c.status !== 201) failures.push(`create rot-${i}: ${c.status} ${c.body?.message}`);
        if (r.status !== 200) failures.push(`get rot-${i}: ${r.status} ${r.body?.message}`);
      }
    })();

    const setCaBundle = async (pem: string) => {
      const caBundle = Buffer.from(pem).toString('base64');
      for (const path of ['/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/mutating-webhook-configuration',
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validating-webhook-configuration']) {
        const cfg = (await api(env, 'GET', path)).body;
        for (const w of cfg.webhooks) w.clientConfig.caBundle = caBundle;
        expect((await api(env, 'PUT', path, cfg)).status).toBe(200);
      }
      const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/guitars.webhook.opgen.dev';
      const crd = (await api(env, 'GET', crdPath)).body;
      crd.spec.conversion.webhook.clientConfig.caBundle = caBundle;
      expect((await api(env, 'PUT', crdPath, crd)).status).toBe(200);
    };
    // Upstream's advice: trust both CAs while the server switches, then only the new one.
    await setCaBundle(env.webhook.caData + newCa.certPem);
    await new Promise((r) => setTimeout(r, 1_000));
    // Written aside and renamed in, as a Secret volume update is atomic.
    mkdirSync(join(certDir, 'next'), { recursive: true });
    writeFileSync(join(certDir, 'next', 'tls.key'), pair.keyPem);
    writeFileSync(join(certDir, 'next', 'tls.crt'), pair.certPem);
    renameSync(join(certDir, 'next', 'tls.key'), join(certDir, 'tls.key'));
    renameSync(join(certDir, 'next', 'tls.crt'), join(certDir, 'tls.crt'));
    const expected = new X509Certificate(pair.certPem).fingerprint256;
    await eventually(async () => expect(await servedFingerprint(env.webhook.host, env.webhook.port)).toBe(expected), { timeoutMs: 15_000 });
    expect(expected).not.toBe(before);
    await setCaBundle(newCa.certPem);
    await new Promise((r) => setTimeout(r, 1_500));
    stop = true;
    await traffic;
    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(4);
  });

  it('local development: a manager without a certificate makes one and points the webhooks and conversion at itself', async () => {
    await stopManager();
    stopManager = async () => {};
    const localSeen: AdmissionRequest<Guitar>[] = [];
    const emptyTmp = mkdtempSync(join(tmpdir(), 'opgen-local-'));
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = emptyTmp; // no $TMPDIR/k8s-webhook-server/serving-certs here
    try {
      const { mgr, stop } = await guitarManager(env, { host: '127.0.0.1', port: 0 }, localSeen);
      stopManager = stop;
      const port = await mgr.webhookServer.listening();
      expect(port).not.toBe(env.webhook.port);
      const url = `https://127.0.0.1:${port}`;
      await eventually(async () => {
        const cfg = (await api(env, 'GET', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/mutating-webhook-configuration')).body;
        expect(cfg.webhooks[0].clientConfig.url).toBe(`${url}/mutate-webhook-opgen-dev-v1-guitar`);
        const crd = (await api(env, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/guitars.webhook.opgen.dev')).body;
        expect(crd.spec.conversion.webhook.clientConfig.url).toBe(`${url}/convert`);
        expect(Buffer.from(crd.spec.conversion.webhook.clientConfig.caBundle, 'base64').toString()).toBe(mgr.webhookServer.caBundle);
      });
      const res = await eventually(async () => {
        const r = await api(env, 'POST', v1beta1(ns), { apiVersion: 'webhook.opgen.dev/v1beta1', kind: 'Guitar', metadata: { name: 'local' }, spec: { stringCount: 12 } });
        expect(r.status).toBe(201);
        return r;
      });
      expect(res.body.spec).toEqual({ stringCount: 12, tuning: 'standard' });
      expect(localSeen.map((r) => r.name)).toContain('local');
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
      rmSync(emptyTmp, { recursive: true, force: true });
    }
  });
});
