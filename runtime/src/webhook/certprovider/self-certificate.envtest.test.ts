// The self certificate provider on a real API server (envtest): the manager makes its CA and serving
// certificate in a Secret, injects the CA bundle into a ValidatingWebhookConfiguration and a conversion
// CRD, and rotates a certificate that lives seconds while admission requests keep succeeding; two
// managers sharing the Secret write each renewal once and both serve it.
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { groupVersion } from '../../api/kind.js';
import type { KubeObject } from '../../api/types.js';
import type { Client } from '../../client/client.js';
import { isAlreadyExists } from '../../client/errors.js';
import type { TestEnv } from '../../envtest/index.js';
import { eventually } from '../../envtest/index.js';
import { useTestEnv } from '../../envtest/testdata/use-test-env.js';
import { silentLogger } from '../../log/index.js';
import { createManager, type Manager } from '../../manager/manager.js';
import { denied, webhookFor } from '../index.js';
import type { SelfCertificateOptions } from './options.js';
import type { SelfCertificateProvider } from './provider.js';

interface ConfigMap extends KubeObject { data?: Record<string, string> }
interface Secret extends KubeObject { type?: string; data?: Record<string, string> }
interface Namespace extends KubeObject {}
interface Thing extends KubeObject { spec?: { size?: number } }
interface WebhookConfiguration extends KubeObject { webhooks?: { name: string; clientConfig?: { url?: string; caBundle?: string } }[] }
interface Crd extends KubeObject { spec?: { conversion?: { webhook?: { clientConfig?: { caBundle?: string } } } } }

const core = groupVersion('', 'v1');
const ConfigMap = core.kind<ConfigMap>('ConfigMap');
const Secret = core.kind<Secret>('Secret');
const Namespace = core.kind<Namespace>('Namespace', { namespaced: false });
const ValidatingWebhookConfiguration = groupVersion('admissionregistration.k8s.io', 'v1').kind<WebhookConfiguration>('ValidatingWebhookConfiguration', { namespaced: false });
const CustomResourceDefinition = groupVersion('apiextensions.k8s.io', 'v1').kind<Crd>('CustomResourceDefinition', { namespaced: false });
const ThingV1 = groupVersion('certs.opgen.dev', 'v1').kind<Thing>('Thing');
const ThingV2 = groupVersion('certs.opgen.dev', 'v2').kind<Thing>('Thing');

const path = '/validate-configmaps';
// Short-lived on purpose: renewed 6 s before expiry, so every ~4 s, with 6 s of slack for a loaded machine.
const shortLived = { certValidityMs: 10_000, renewBeforeMs: 6_000, caValidityMs: 60 * 60 * 1000 };

function selfCertificate(namespace: string, vwc: string): SelfCertificateOptions {
  return {
    secretName: 'webhook-server-cert', serviceName: 'webhook-service', namespace,
    // The API server calls the URL (no Service routing in envtest), so the certificate names it too.
    extraHosts: ['localhost', '127.0.0.1'],
    validatingWebhookConfigurations: [vwc],
    ...shortLived,
  };
}

/** A manager validating ConfigMaps (denying data.deny=yes) with the self certificate provider. */
async function startManager(env: TestEnv, options: SelfCertificateOptions, conversion = false): Promise<{ mgr: Manager; port: number; provider: SelfCertificateProvider; stop: () => Promise<void> }> {
  const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), webhook: { host: '127.0.0.1', port: 0, selfCertificate: options } });
  mgr.webhookServer.register(path, async (req) => ((req.object as ConfigMap).data?.deny === 'yes' ? { allowed: false, status: { code: 403, message: 'deny=yes' } } : { allowed: true }));
  if (conversion) webhookFor(mgr, ThingV1).withConversion({ spokes: { v2: { toHub: (t: Thing) => t, fromHub: (t: Thing) => t } } }).complete();
  const ctl = new AbortController();
  const done = mgr.start(ctl.signal);
  const port = await mgr.webhookServer.listening();
  return { mgr, port, provider: mgr.webhookServer.options.certificateProvider!, stop: async () => { ctl.abort(); await done; } };
}

/** A webhook for ConfigMap creates in the namespace labelled `ns` (see namespace()), calling localhost:port. */
function webhookEntry(name: string, port: number, ns: string) {
  return {
    name, admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Fail', timeoutSeconds: 10,
    clientConfig: { url: `https://localhost:${port}${path}` },
    rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
    namespaceSelector: { matchLabels: { 'certs.opgen.dev/test': ns } },
  };
}

async function namespace(client: Client, name: string): Promise<void> {
  await client.create(Namespace, { metadata: { name, labels: { 'certs.opgen.dev/test': name } } }).catch((err) => { if (!isAlreadyExists(err)) throw err; });
}

/** The serial number of the certificate a TLS server presents. */
function servedSerial(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false }, () => {
      const serial = s.getPeerX509Certificate()?.serialNumber ?? '';
      s.destroy();
      resolve(serial);
    });
    s.on('error', reject);
  });
}

async function secretSerial(client: Client, ns: string): Promise<string> {
  const s = await client.get(Secret, { namespace: ns, name: 'webhook-server-cert' });
  return new X509Certificate(Buffer.from(s.data!['tls.crt']!, 'base64')).serialNumber;
}

/**
 * Creates ConfigMaps in `ns` through the API server (so through the webhooks) for `ms`, two at a time,
 * while `sample` runs every 250 ms; returns the counts and the first failures.
 */
async function admitFor(client: Client, ns: string, ms: number, sample: () => Promise<void>): Promise<{ ok: number; failed: number; errors: string[] }> {
  const result = { ok: 0, failed: 0, errors: [] as string[] };
  const end = Date.now() + ms;
  let n = 0;
  const worker = async () => {
    while (Date.now() < end) {
      const name = `cm-${n++}`;
      try {
        await client.create(ConfigMap, { metadata: { name, namespace: ns }, data: { n: name } });
        result.ok++;
      } catch (err) {
        result.failed++;
        if (result.errors.length < 5) result.errors.push(String(err));
      }
    }
  };
  const sampler = async () => {
    while (Date.now() < end) {
      await sample();
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  await Promise.all([worker(), worker(), sampler()]);
  return result;
}

describe('self certificate provider on a real API server', () => {
  let env: TestEnv;
  let client: Client;
  useTestEnv({}, (started) => ({ env, client } = started));

  it('makes the Secret, injects the CA into a webhook configuration and a conversion CRD, and rotates a short-lived certificate with no failed admission', async () => {
    const ns = 'single';
    await namespace(client, ns);
    const { provider, port, stop } = await startManager(env, selfCertificate(ns, 'single-validating'), true);
    try {
      // The Secret the provider made: kubernetes.io/tls with the CA beside the pair.
      const secret = await client.get(Secret, { namespace: ns, name: 'webhook-server-cert' });
      expect(secret.type).toBe('kubernetes.io/tls');
      expect(Object.keys(secret.data!).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
      const cert = new X509Certificate(Buffer.from(secret.data!['tls.crt']!, 'base64'));
      expect(cert.subjectAltName).toContain('DNS:webhook-service.single.svc');
      expect(cert.subjectAltName).toContain('DNS:webhook-service.single.svc.cluster.local');
      const caPem = Buffer.from(secret.data!['ca.crt']!, 'base64').toString();
      expect(cert.checkIssued(new X509Certificate(caPem))).toBe(true);

      // Installed after the manager started, without a caBundle: the provider's watch injects it.
      await client.create(ValidatingWebhookConfiguration, { metadata: { name: 'single-validating' }, webhooks: [webhookEntry('single.certs.opgen.dev', port, ns)] } as WebhookConfiguration);
      await eventually(async () => {
        const vwc = await client.get(ValidatingWebhookConfiguration, { name: 'single-validating' });
        expect(Buffer.from(vwc.webhooks![0]!.clientConfig!.caBundle ?? '', 'base64').toString()).toBe(caPem);
      }, { timeoutMs: 20_000 });
      await client.create(CustomResourceDefinition, thingsCrd(port) as Crd);
      await eventually(async () => {
        const crd = await client.get(CustomResourceDefinition, { name: 'things.certs.opgen.dev' });
        expect(crd.spec?.conversion?.webhook?.clientConfig?.caBundle).toBe(Buffer.from(caPem).toString('base64'));
      }, { timeoutMs: 20_000 });

      // The webhook is really asked (a denial comes back), and conversion goes through /convert.
      await eventually(async () => {
        await expect(client.create(ConfigMap, { metadata: { name: 'denied', namespace: ns }, data: { deny: 'yes' } })).rejects.toThrow(/deny=yes/);
      }, { timeoutMs: 20_000 });
      await eventually(async () => {
        await client.create(ThingV1, { metadata: { name: 'one', namespace: ns }, spec: { size: 3 } }).catch((err) => { if (!isAlreadyExists(err)) throw err; });
        expect((await client.get(ThingV2, { namespace: ns, name: 'one' })).spec).toEqual({ size: 3 });
      }, { timeoutMs: 20_000 });

      // Someone else overwrites the bundle: it is put back.
      const vwc = await client.get(ValidatingWebhookConfiguration, { name: 'single-validating' });
      vwc.webhooks![0]!.clientConfig!.caBundle = Buffer.from(env.caData).toString('base64');
      await client.update(ValidatingWebhookConfiguration, vwc);
      await eventually(async () => {
        const again = await client.get(ValidatingWebhookConfiguration, { name: 'single-validating' });
        expect(Buffer.from(again.webhooks![0]!.clientConfig!.caBundle ?? '', 'base64').toString()).toBe(caPem);
      }, { timeoutMs: 20_000 });

      // Requests for 14 s (three renewals or more), counting every admission and each served serial.
      const served = new Set<string>([await servedSerial(port)]);
      const r = await admitFor(client, ns, 14_000, async () => void served.add(await servedSerial(port)));
      console.log(`single manager: ${r.ok} admissions, ${r.failed} failed, ${served.size} serving certificates seen, provider stats ${JSON.stringify(provider.stats)}`);
      expect(r.errors).toEqual([]);
      expect(r.failed).toBe(0);
      expect(r.ok).toBeGreaterThan(20);
      expect(served.size).toBeGreaterThanOrEqual(2);
      expect(served.has(cert.serialNumber) && served.size > 1).toBe(true);
      // What is served is what the Secret holds (the CA did not change).
      await eventually(async () => expect(await servedSerial(port)).toBe(await secretSerial(client, ns)), { timeoutMs: 10_000 });
      expect(Buffer.from((await client.get(Secret, { namespace: ns, name: 'webhook-server-cert' })).data!['ca.crt']!, 'base64').toString()).toBe(caPem);
    } finally {
      await stop();
    }
  }, 120_000);

  it('two managers sharing the Secret: each renewal is written by one of them, both serve it, admissions through both never fail', async () => {
    const ns = 'pair';
    await namespace(client, ns);
    const options = selfCertificate(ns, 'pair-validating');
    // The Secret's tls.crt as the API server stores it, each change with the time it was seen, polled
    // every 100 ms from before the managers start (renewals are ~4 s apart).
    const changes: { serial: string; at: number }[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const serial = await secretSerial(client, ns).catch(() => '');
        if (serial && changes.at(-1)?.serial !== serial) changes.push({ serial, at: Date.now() });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const [a, b] = await Promise.all([startManager(env, options), startManager(env, options)]);
    try {
      const ports = [a.port, b.port];
      // Every ConfigMap create goes through both managers' servers.
      await client.create(ValidatingWebhookConfiguration, {
        metadata: { name: 'pair-validating' },
        webhooks: [webhookEntry('pair.a.certs.opgen.dev', ports[0]!, ns), webhookEntry('pair.b.certs.opgen.dev', ports[1]!, ns)],
      } as WebhookConfiguration);
      await eventually(async () => {
        await expect(client.create(ConfigMap, { metadata: { name: 'denied', namespace: ns }, data: { deny: 'yes' } })).rejects.toThrow(/deny=yes/);
      }, { timeoutMs: 20_000 });
      const seen = [new Set<string>(), new Set<string>()];
      const r = await admitFor(client, ns, 16_000, async () => {
        for (const [i, port] of ports.entries()) seen[i]!.add(await servedSerial(port));
      });
      console.log(`two managers: ${r.ok} admissions, ${r.failed} failed; Secret certificates ${changes.length}; served by a ${seen[0]!.size}, by b ${seen[1]!.size}; stats a ${JSON.stringify(a.provider.stats)} b ${JSON.stringify(b.provider.stats)}`);
      expect(r.errors).toEqual([]);
      expect(r.failed).toBe(0);
      expect(r.ok).toBeGreaterThan(20);
      // Both served a rotated certificate, and in the end both serve the Secret's.
      expect(seen[0]!.size).toBeGreaterThanOrEqual(2);
      expect(seen[1]!.size).toBeGreaterThanOrEqual(2);
      await eventually(async () => {
        const stored = await secretSerial(client, ns);
        expect([await servedSerial(ports[0]!), await servedSerial(ports[1]!)]).toEqual([stored, stored]);
        expect([a.provider.serialNumber, b.provider.serialNumber]).toEqual([stored, stored]);
      }, { timeoutMs: 10_000 });
      // One writer per renewal: a certificate written by one replica is never replaced by the other
      // moments later (two winners would show as two changes in quick succession), and the writes the
      // API server accepted are no more than the renewals the schedule calls for.
      polling = false;
      await poller;
      expect(changes.length).toBeGreaterThanOrEqual(4);
      const gaps = changes.slice(1).map((c, i) => c.at - changes[i]!.at);
      expect(Math.min(...gaps)).toBeGreaterThan((shortLived.certValidityMs - shortLived.renewBeforeMs) / 2);
      // Every accepted write is one certificate the Secret held (the losers were refused with 409).
      expect(a.provider.stats.secretWrites + b.provider.stats.secretWrites).toBe(changes.length);
    } finally {
      polling = false;
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 120_000);

  it('a short-lived CA is renewed too: the new CA enters the bundle beside the old one and admissions never fail', async () => {
    const ns = 'carotation';
    await namespace(client, ns);
    // The CA lives 14 s and is renewed 5 s before it expires (so every ~9 s), the certificate every ~3 s.
    const { provider, port, stop } = await startManager(env, { ...selfCertificate(ns, 'carotation-validating'), caValidityMs: 14_000, certValidityMs: 8_000, renewBeforeMs: 5_000 });
    try {
      await client.create(ValidatingWebhookConfiguration, { metadata: { name: 'carotation-validating' }, webhooks: [webhookEntry('carotation.certs.opgen.dev', port, ns)] } as WebhookConfiguration);
      await eventually(async () => {
        await expect(client.create(ConfigMap, { metadata: { name: 'denied', namespace: ns }, data: { deny: 'yes' } })).rejects.toThrow(/deny=yes/);
      }, { timeoutMs: 20_000 });
      const cas = new Set<string>();
      let bundleOfTwo = false;
      const r = await admitFor(client, ns, 22_000, async () => {
        const secret = await client.get(Secret, { namespace: ns, name: 'webhook-server-cert' });
        const bundle = Buffer.from(secret.data!['ca.crt']!, 'base64').toString();
        cas.add(new X509Certificate(bundle).serialNumber);
        bundleOfTwo ||= (bundle.match(/BEGIN CERTIFICATE/g) ?? []).length === 2;
      });
      console.log(`CA rotation: ${r.ok} admissions, ${r.failed} failed, ${cas.size} CAs, stats ${JSON.stringify(provider.stats)}`);
      expect(r.errors).toEqual([]);
      expect(r.failed).toBe(0);
      expect(cas.size).toBeGreaterThanOrEqual(2);
      expect(bundleOfTwo).toBe(true);
    } finally {
      await stop();
    }
  }, 120_000);

  it('is not ready and does not listen while it has no valid certificate; ready once it has one', async () => {
    const ns = 'notready';
    await namespace(client, ns);
    // A Secret nobody can update (immutable, no CA): the provider's writes are refused until it is gone.
    await client.create(Secret, { metadata: { name: 'webhook-server-cert', namespace: ns }, type: 'kubernetes.io/tls', immutable: true, data: { 'tls.crt': '', 'tls.key': '' } } as Secret);
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), healthProbeBindAddress: '127.0.0.1:0', webhook: { host: '127.0.0.1', port: 0, selfCertificate: selfCertificate(ns, 'notready-validating') } });
    mgr.webhookServer.register(path, () => ({ allowed: true }));
    const ctl = new AbortController();
    const done = mgr.start(ctl.signal);
    let listening = false;
    void mgr.webhookServer.listening().then(() => (listening = true), () => {});
    try {
      const readyz = async () => {
        const res = await fetch(`http://127.0.0.1:${mgr.ports.healthProbe}/readyz?verbose`);
        return { status: res.status, body: await res.text() };
      };
      await eventually(() => expect(mgr.ports.healthProbe).toBeGreaterThan(0), { timeoutMs: 20_000 });
      await eventually(async () => expect((await readyz()).body).toContain('[-]webhook-certificate failed'), { timeoutMs: 20_000 });
      // Still refused a few checks later (the provider retries with backoff), and still not listening.
      await new Promise((r) => setTimeout(r, 1500));
      expect((await readyz()).status).toBe(500);
      expect((await readyz()).body).toContain('[-]webhook-certificate failed');
      expect(listening).toBe(false);
      expect(mgr.webhookServer.options.certificateProvider!.stats.secretWrites).toBe(0);

      await client.delete(Secret, { namespace: ns, name: 'webhook-server-cert' });
      await eventually(async () => {
        const r = await readyz();
        expect(r.body).toContain('[+]webhook-certificate ok');
        expect(r.status).toBe(200);
      }, { timeoutMs: 30_000 });
      expect(listening).toBe(true);
    } finally {
      ctl.abort();
      await done;
    }
  }, 120_000);

  it('a stop asked for while it still waits for its certificate ends the manager cleanly', async () => {
    const ns = 'stopwaiting';
    await namespace(client, ns);
    await client.create(Secret, { metadata: { name: 'webhook-server-cert', namespace: ns }, type: 'kubernetes.io/tls', immutable: true, data: { 'tls.crt': '', 'tls.key': '' } } as Secret);
    const mgr = await createManager({ kubeConfig: env.kubeConfig, logger: silentLogger(), healthProbeBindAddress: '127.0.0.1:0', webhook: { host: '127.0.0.1', port: 0, selfCertificate: selfCertificate(ns, 'stopwaiting-validating') } });
    mgr.webhookServer.register(path, () => ({ allowed: true }));
    const ctl = new AbortController();
    const done = mgr.start(ctl.signal);
    await eventually(async () => {
      const res = await fetch(`http://127.0.0.1:${mgr.ports.healthProbe}/readyz?verbose`);
      expect(await res.text()).toContain('[-]webhook-certificate failed');
    }, { timeoutMs: 20_000 });
    const stoppedAt = performance.now();
    ctl.abort();
    await expect(done).resolves.toBeUndefined();
    // Not held until a certificate shows up (none can here) nor until the 30 s graceful period.
    expect(performance.now() - stoppedAt).toBeLessThan(15_000);
  }, 120_000);
});

function thingsCrd(port: number) {
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
  return {
    metadata: { name: 'things.certs.opgen.dev' },
    spec: {
      group: 'certs.opgen.dev',
      names: { kind: 'Thing', plural: 'things', singular: 'thing', listKind: 'ThingList' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true, schema },
        { name: 'v2', served: true, storage: false, schema },
      ],
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: `https://localhost:${port}/convert` } } },
    },
  };
}
