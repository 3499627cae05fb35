// The webhook server over real HTTPS on loopback: what reaches handlers, what comes back, and that bad
// requests and failing handlers never take it down. (The API server's side is in webhook.envtest.test.ts.)
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, symlinkSync, renameSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TinyCa } from '../internal/tls/tiny-ca.js';
import { silentLogger, type Logger } from '../log/index.js';
import { denied, WebhookServer, webhookFor, defaultingPath, validationPath, groupVersion, type AdmissionRequest } from '../index.js';

interface Widget { apiVersion?: string; kind?: string; metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string>; uid?: string }; spec?: { size?: number; tags?: string[]; 'a/b'?: string } }
const Widget = groupVersion('test.opgen.dev', 'v1').kind<Widget>('Widget');

function post(port: number, ca: string, path: string, body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', ca, agent: false, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, servername: 'localhost' }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function admissionReview(request: Partial<AdmissionRequest<Widget>>, apiVersion = 'admission.k8s.io/v1'): string {
  return JSON.stringify({ apiVersion, kind: 'AdmissionReview', request: { uid: 'u-1', operation: 'CREATE', userInfo: { username: 'alice' }, ...request } });
}

/** A logger that records error lines (to assert "logged once"). */
function recordingLogger(errors: string[]): Logger {
  return { info: () => {}, debug: () => {}, error: (msg: string) => void errors.push(msg), child: () => recordingLogger(errors) };
}

describe('webhook server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'opgen-webhook-'));
  const ca = TinyCa.create('test-ca');
  const stop = new AbortController();
  const errors: string[] = [];
  const seen: AdmissionRequest<Widget>[] = [];
  let server: WebhookServer;
  let port: number;

  beforeAll(async () => {
    const pair = ca.issue({ commonName: 'localhost', hosts: ['localhost', '127.0.0.1'], usage: 'server' });
    writeFileSync(join(dir, 'tls.crt'), pair.certPem);
    writeFileSync(join(dir, 'tls.key'), pair.keyPem);
    server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir: dir, logger: recordingLogger(errors) });
    webhookFor({ webhookServer: server }, Widget)
      .withDefaulter({
        default(obj, req) {
          seen.push(req);
          obj.spec ??= {};
          obj.spec.size ??= 3;
          obj.spec.tags = [...(obj.spec.tags ?? []), 'defaulted'];
          obj.spec['a/b'] = 'escaped';
          delete obj.metadata?.annotations;
        },
      })
      .withValidator({
        validateCreate(obj) {
          if (obj.metadata?.name === 'boom') throw new Error('the validator broke');
          if ((obj.spec?.size ?? 0) > 5) throw denied('spec.size must be at most 5', { reason: 'Invalid', code: 422, warnings: ['size is large'] });
          return ['created with a warning'];
        },
        validateUpdate(oldObj, obj, req) {
          seen.push(req);
          return [`size ${oldObj.spec?.size} → ${obj.spec?.size}`];
        },
        validateDelete(obj) {
          return [`deleting ${obj.metadata?.name}`];
        },
      })
      .withConversion({
        spokes: {
          v1beta1: {
            // Tries to rename the object and change its uid: the server keeps the metadata as sent, except labels/annotations.
            toHub: (s: Widget) => ({ ...s, metadata: { ...s.metadata, name: 'renamed', uid: 'other', labels: { hub: 'yes' } }, spec: { size: 1 } }),
            fromHub: (h: Widget) => {
              if (h.metadata?.name === 'unconvertible') throw new Error('cannot convert unconvertible');
              return { ...h, spec: { tags: ['from-hub'] } };
            },
          },
        },
      })
      .complete();
    void server.start(stop.signal);
    port = await server.listening();
  });
  afterAll(() => {
    stop.abort();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers at kubebuilder paths', () => {
    expect(defaultingPath(Widget)).toBe('/mutate-test-opgen-dev-v1-widget');
    expect(validationPath(groupVersion('', 'v1').kind('Pod'))).toBe('/validate--v1-pod');
    expect(server.paths().sort()).toEqual(['/convert', '/mutate-test-opgen-dev-v1-widget', '/validate-test-opgen-dev-v1-widget']);
  });

  it('answers a defaulting review with a base64 JSONPatch and echoes the uid; handlers see dryRun and userInfo', async () => {
    const object: Widget = { apiVersion: 'test.opgen.dev/v1', kind: 'Widget', metadata: { name: 'w', annotations: { x: 'y' } }, spec: { tags: ['a'] } };
    const res = await post(port, ca.certPem, '/mutate-test-opgen-dev-v1-widget?timeout=10s', admissionReview({ uid: 'abc', object, dryRun: true }));
    expect(res.status).toBe(200);
    const review = JSON.parse(res.text);
    expect(review.apiVersion).toBe('admission.k8s.io/v1');
    expect(review.response.uid).toBe('abc');
    expect(review.response.allowed).toBe(true);
    expect(review.response.patchType).toBe('JSONPatch');
    expect(JSON.parse(Buffer.from(review.response.patch, 'base64').toString())).toEqual([
      { op: 'remove', path: '/metadata/annotations' },
      { op: 'replace', path: '/spec/tags', value: ['a', 'defaulted'] },
      { op: 'add', path: '/spec/size', value: 3 },
      { op: 'add', path: '/spec/a~1b', value: 'escaped' },
    ]);
    expect(seen.at(-1)?.dryRun).toBe(true);
    expect(seen.at(-1)?.userInfo.username).toBe('alice');
  });

  it('reads v1beta1 as v1 and answers in v1beta1', async () => {
    const res = await post(port, ca.certPem, '/validate-test-opgen-dev-v1-widget', admissionReview({ uid: 'b1', object: { metadata: { name: 'ok' } } }, 'admission.k8s.io/v1beta1'));
    const review = JSON.parse(res.text);
    expect(review.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(review.response).toEqual({ uid: 'b1', allowed: true, warnings: ['created with a warning'] });
  });

  it('denies with code, reason, message and warnings; passes old and new objects on update and the old one on delete', async () => {
    const deny = JSON.parse((await post(port, ca.certPem, '/validate-test-opgen-dev-v1-widget', admissionReview({ object: { spec: { size: 9 } } }))).text);
    expect(deny.response).toMatchObject({ allowed: false, status: { code: 422, reason: 'Invalid', message: 'spec.size must be at most 5' }, warnings: ['size is large'] });
    const update = JSON.parse((await post(port, ca.certPem, '/validate-test-opgen-dev-v1-widget', admissionReview({ operation: 'UPDATE', oldObject: { spec: { size: 1 } }, object: { spec: { size: 2 } } }))).text);
    expect(update.response.warnings).toEqual(['size 1 → 2']);
    const del = JSON.parse((await post(port, ca.certPem, '/validate-test-opgen-dev-v1-widget', admissionReview({ operation: 'DELETE', name: 'gone', oldObject: { metadata: { name: 'gone' } } }))).text);
    expect(del.response.warnings).toEqual(['deleting gone']);
  });

  it('turns a throwing handler into an error result with code 500, logged once, and keeps serving', async () => {
    const before = errors.length;
    const res = await post(port, ca.certPem, '/validate-test-opgen-dev-v1-widget', admissionReview({ object: { metadata: { name: 'boom' } } }));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).response).toMatchObject({ allowed: false, status: { code: 500, message: 'the validator broke' } });
    expect(errors.length - before).toBe(1);
  });

  it('answers a request that is no review it can handle with HTTP 200 and a refusing review, as controller-runtime, and stays up', async () => {
    const path = '/validate-test-opgen-dev-v1-widget';
    const refused = async (p: string, body: string | Buffer, headers?: Record<string, string>) => {
      const res = await post(port, ca.certPem, p, body, headers);
      expect(res.status).toBe(200);
      return JSON.parse(res.text) as { apiVersion: string; kind: string; response: { uid: string; allowed?: boolean; status?: object; result?: object } };
    };
    const admission = (uid: string, code: number, reason: string, message: string, apiVersion = 'admission.k8s.io/v1') =>
      ({ apiVersion, kind: 'AdmissionReview', response: { uid, allowed: false, status: { code, reason, message, status: 'Failure', metadata: {} } } });
    expect(await refused(path, 'not json')).toEqual(admission('', 400, 'BadRequest', expect.stringMatching(/^the body is not JSON: /) as unknown as string));
    expect(await refused(path, '')).toEqual(admission('', 400, 'BadRequest', 'request body is empty'));
    expect(await refused(path, admissionReview({ uid: 'ct' }), { 'content-type': 'text/plain' })).toEqual(admission('', 400, 'BadRequest', 'contentType=text/plain, expected application/json'));
    expect(await refused(path, JSON.stringify({ kind: 'AdmissionReview' }))).toEqual(admission('', 400, 'BadRequest', 'expected an AdmissionReview with request.uid and request.operation'));
    expect(await refused(path, JSON.stringify({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: { uid: 'old' } })))
      .toEqual(admission('old', 400, 'BadRequest', 'expected an AdmissionReview with request.uid and request.operation', 'admission.k8s.io/v1beta1'));
    expect(await refused(path, JSON.stringify({ apiVersion: 'admission.k8s.io/v2', kind: 'AdmissionReview', request: { uid: 'x', operation: 'CREATE' } })))
      .toEqual(admission('x', 400, 'BadRequest', "unsupported AdmissionReview apiVersion 'admission.k8s.io/v2'; expected admission.k8s.io/v1"));
    expect(await refused(path, JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'c' } })))
      .toEqual(admission('c', 400, 'BadRequest', 'expected an AdmissionReview with request.uid and request.operation'));
    expect(await refused(path, Buffer.alloc(8 * 1024 * 1024, 0x20))).toEqual(admission('', 413, 'RequestEntityTooLarge', 'request entity is too large; limit is 7340032 bytes'));

    const conversion = (uid: string, message: string) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid, convertedObjects: [], result: { status: 'Failure', message } } });
    expect(await refused('/convert', JSON.stringify({ kind: 'ConversionReview', request: { uid: 'r' } })))
      .toEqual(conversion('r', 'expected a ConversionReview with request.uid, request.desiredAPIVersion and request.objects'));
    expect(await refused('/convert', '{')).toEqual(conversion('', expect.stringMatching(/^the body is not JSON: /) as unknown as string));
    expect(await refused('/convert', JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v2', kind: 'ConversionReview', request: { uid: 'v', desiredAPIVersion: 'test.opgen.dev/v1', objects: [] } })))
      .toEqual(conversion('v', "unsupported ConversionReview apiVersion 'apiextensions.k8s.io/v2'; expected apiextensions.k8s.io/v1"));
    expect(await refused('/convert', Buffer.alloc(8 * 1024 * 1024, 0x20))).toEqual(conversion('', 'request entity is too large; limit is 7340032 bytes'));

    // Not a webhook: plain HTTP errors (there is no review to answer).
    expect((await post(port, ca.certPem, '/nowhere', admissionReview({}))).status).toBe(404);
    const ok = await post(port, ca.certPem, path, admissionReview({ object: { metadata: { name: 'ok' } } }));
    expect(JSON.parse(ok.text).response.allowed).toBe(true);
  });

  it('converts every object through the hub in order, keeping metadata other than labels and annotations', async () => {
    const objects = [
      { apiVersion: 'test.opgen.dev/v1beta1', kind: 'Widget', metadata: { name: 'a', uid: 'ua', annotations: { n: '1' } }, spec: { tags: ['x'] } },
      { apiVersion: 'test.opgen.dev/v1', kind: 'Widget', metadata: { name: 'b', uid: 'ub' }, spec: { size: 2 } },
    ];
    const toV1 = JSON.parse((await post(port, ca.certPem, '/convert', JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'c1', desiredAPIVersion: 'test.opgen.dev/v1', objects } }))).text);
    expect(toV1.response).toEqual({
      uid: 'c1', result: { status: 'Success' }, convertedObjects: [
        { apiVersion: 'test.opgen.dev/v1', kind: 'Widget', metadata: { name: 'a', uid: 'ua', labels: { hub: 'yes' }, annotations: { n: '1' } }, spec: { size: 1 } },
        objects[1],
      ],
    });
    const toV1beta1 = JSON.parse((await post(port, ca.certPem, '/convert', JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'c2', desiredAPIVersion: 'test.opgen.dev/v1beta1', objects: [objects[1]] } }))).text);
    expect(toV1beta1.response.convertedObjects).toEqual([{ apiVersion: 'test.opgen.dev/v1beta1', kind: 'Widget', metadata: { name: 'b', uid: 'ub' }, spec: { tags: ['from-hub'] } }]);
  });

  it('answers a failed conversion with HTTP 200 and result.status Failure', async () => {
    const send = (desiredAPIVersion: string, obj: object) => post(port, ca.certPem, '/convert', JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'f', desiredAPIVersion, objects: [obj] } }));
    const thrown = await send('test.opgen.dev/v1beta1', { apiVersion: 'test.opgen.dev/v1', kind: 'Widget', metadata: { name: 'unconvertible' } });
    expect(thrown.status).toBe(200);
    expect(JSON.parse(thrown.text).response).toEqual({ uid: 'f', convertedObjects: [], result: { status: 'Failure', message: 'cannot convert unconvertible' } });
    const unknown = JSON.parse((await send('test.opgen.dev/v2', { apiVersion: 'test.opgen.dev/v1', kind: 'Widget', metadata: { name: 'x' } })).text);
    expect(unknown.response.result).toEqual({ status: 'Failure', message: 'Widget.test.opgen.dev: version v2 is neither the hub (v1) nor a registered spoke' });
    const otherKind = JSON.parse((await send('test.opgen.dev/v1beta1', { apiVersion: 'test.opgen.dev/v1', kind: 'Gadget', metadata: { name: 'x' } })).text);
    expect(otherKind.response.result).toEqual({ status: 'Failure', message: 'no conversion registered for Gadget.test.opgen.dev' });
  });

  it('refuses TLS below 1.2', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const s = connect({ host: '127.0.0.1', port, ca: ca.certPem, servername: 'localhost', maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }, () => resolve('connected'));
      s.on('error', (e) => resolve(e.message));
    });
    expect(outcome).not.toBe('connected');
  });
});

describe('webhook server start failures', () => {
  it('rejects start() with one line naming the certificate files when they are missing (and nothing is left unhandled)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opgen-nocert-'));
    try {
      const server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir: dir, logger: silentLogger() });
      server.register('/validate', () => ({ allowed: true }));
      await expect(server.start(new AbortController().signal)).rejects.toThrow(`cannot load the serving certificate ${join(dir, 'tls.crt')} / ${join(dir, 'tls.key')}`);
      await expect(server.listening()).rejects.toThrow('cannot load the serving certificate');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('serving certificate reload', () => {
  it('serves a new certificate on the next handshake after a Secret-volume style symlink swap, open connections unharmed', async () => {
    // A Secret volume: tls.crt -> ..data/tls.crt, ..data -> ..<timestamp>/; an update swaps ..data atomically.
    const dir = mkdtempSync(join(tmpdir(), 'opgen-certs-'));
    const stop = new AbortController();
    try {
      const writeVersion = (name: string, ca: TinyCa) => {
        const pair = ca.issue({ commonName: 'localhost', hosts: ['localhost', '127.0.0.1'], usage: 'server' });
        mkdirSync(join(dir, name));
        writeFileSync(join(dir, name, 'tls.crt'), pair.certPem);
        writeFileSync(join(dir, name, 'tls.key'), pair.keyPem);
      };
      const oldCa = TinyCa.create('old-ca');
      const newCa = TinyCa.create('new-ca');
      writeVersion('..v1', oldCa);
      symlinkSync('..v1', join(dir, '..data'));
      symlinkSync('..data/tls.crt', join(dir, 'tls.crt'));
      symlinkSync('..data/tls.key', join(dir, 'tls.key'));
      const server = new WebhookServer({ host: '127.0.0.1', port: 0, certDir: dir, logger: silentLogger(), certPollIntervalMs: 200 });
      server.register('/validate', () => ({ allowed: true }));
      void server.start(stop.signal);
      const port = await server.listening();
      const body = admissionReview({ object: {} });
      expect((await post(port, oldCa.certPem, '/validate', body)).status).toBe(200);
      // Keep a connection open across the swap.
      const open = connect({ host: '127.0.0.1', port, ca: oldCa.certPem, servername: 'localhost' });
      await new Promise<void>((resolve, reject) => { open.once('secureConnect', () => resolve()); open.once('error', reject); });

      writeVersion('..v2', newCa);
      symlinkSync('..v2', join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));

      const deadline = Date.now() + 5_000;
      let status = 0;
      while (Date.now() < deadline) {
        status = await post(port, newCa.certPem, '/validate', body).then((r) => r.status, () => 0);
        if (status === 200) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe(200);
      await expect(post(port, oldCa.certPem, '/validate', body)).rejects.toThrow();
      expect(open.destroyed).toBe(false);
      open.destroy();
    } finally {
      stop.abort();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
