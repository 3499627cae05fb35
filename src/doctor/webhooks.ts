// Webhooks: each generated webhook's configuration is in the cluster, its endpoint answers, and the
// certificate it serves is valid, not about to expire, and signed by the configuration's CA bundle.
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import type { Finding } from './findings.js';
import type { Kubectl } from './kubectl.js';
import type { KubeObject } from './project.js';

interface ClientConfig {
  url?: string;
  service?: { name: string; namespace: string; port?: number; path?: string };
  caBundle?: string;
}

interface WebhookConfiguration extends KubeObject {
  webhooks?: Array<{ name: string; clientConfig?: ClientConfig }>;
}

/** Certificates expiring sooner than this are a warning (cert-manager renews 30 days ahead by default). */
const EXPIRY_WARNING_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;
/** kubebuilder's and opgen's scaffold: cert-manager writes the serving certificate into this Secret. */
export const SERVING_SECRET = 'webhook-server-cert';
const APPLY = 'kubectl apply -k config/default (or run the operator with opgen dev, which points them at itself)';

interface ConvertingCrd extends KubeObject {
  spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: ClientConfig } } };
}

export async function checkWebhooks(kubectl: Kubectl, generated: readonly KubeObject[], crdNames: readonly string[], now = new Date()): Promise<Finding[]> {
  const findings: Finding[] = [];
  // Conversion webhooks: kustomize patches them into the installed CRDs (config/crd/patches), so the
  // cluster's CRDs say which ones exist.
  if (crdNames.length > 0) {
    const crds = await kubectl.json<{ items: ConvertingCrd[] }>(['get', 'customresourcedefinitions']);
    for (const crd of crds.items) {
      const name = crd.metadata?.name ?? '';
      const conversion = crd.spec?.conversion;
      if (!crdNames.includes(name) || conversion?.strategy !== 'Webhook') continue;
      findings.push(await checkEndpoint(kubectl, `conversion ${name}`, name, conversion.webhook?.clientConfig ?? {}, now));
    }
  }
  const wanted = (generated as WebhookConfiguration[]).flatMap((c) => (c.webhooks ?? []).map((w) => ({ kind: c.kind!, name: w.name })));
  if (wanted.length === 0) return findings;
  const list = await kubectl.json<{ items: WebhookConfiguration[] }>(['get', 'mutatingwebhookconfigurations,validatingwebhookconfigurations']);
  for (const w of wanted) {
    const config = list.items.find((c) => c.kind === w.kind && (c.webhooks ?? []).some((x) => x.name === w.name));
    const installed = config?.webhooks?.find((x) => x.name === w.name);
    if (!config || !installed) {
      findings.push({ check: 'webhook', subject: w.name, status: 'error', message: `no ${w.kind} in the cluster has it: admission requests skip it`, fix: APPLY });
      continue;
    }
    findings.push(await checkEndpoint(kubectl, w.name, config.metadata?.name ?? '', installed.clientConfig ?? {}, now));
  }
  return findings;
}

async function checkEndpoint(kubectl: Kubectl, subject: string, configName: string, cc: ClientConfig, now: Date): Promise<Finding> {
  const base = { check: 'webhook' as const, subject };
  let served: X509Certificate;
  let where: string;
  if (cc.url) {
    where = cc.url;
    const url = new URL(cc.url);
    try {
      served = await servedCertificate(url.hostname, Number(url.port || 443));
    } catch (err) {
      return { ...base, status: 'error', message: `${cc.url} does not answer (${(err as Error).message})`, fix: 'start the webhook server (opgen dev serves it locally), or fix the tunnel the URL names' };
    }
  } else if (cc.service) {
    const { namespace, name } = cc.service;
    where = `service ${namespace}/${name}`;
    if (!(await kubectl.getOptional(['service', name, '-n', namespace]))) {
      return { ...base, status: 'error', message: `${where} does not exist`, fix: APPLY };
    }
    const slices = await kubectl.json<{ items: Array<{ endpoints?: Array<{ conditions?: { ready?: boolean } }> }> }>(['get', 'endpointslices', '-n', namespace, '-l', `kubernetes.io/service-name=${name}`]);
    if (!slices.items.some((s) => (s.endpoints ?? []).some((e) => e.conditions?.ready !== false))) {
      return { ...base, status: 'error', message: `${where} has no ready endpoint: the API server cannot call the webhook`, fix: `check the operator's pods: kubectl -n ${namespace} get pods; kubectl -n ${namespace} logs deploy/<manager>` };
    }
    const secret = await kubectl.getOptional<{ data?: Record<string, string> }>(['secret', SERVING_SECRET, '-n', namespace]).catch(() => undefined);
    const crt = secret?.data?.['tls.crt'];
    if (!crt) {
      return { ...base, status: 'warning', message: `${where} has ready endpoints, but Secret ${namespace}/${SERVING_SECRET} with the serving certificate was not found, so it was not checked`, fix: 'install cert-manager and config/certmanager, or check the certificate the manager serves by hand' };
    }
    served = new X509Certificate(Buffer.from(crt, 'base64'));
  } else {
    return { ...base, status: 'error', message: `${configName} gives it neither url nor service`, fix: APPLY };
  }
  return certificateFinding(base, where, served, cc.caBundle, now);
}

export function certificateFinding(base: { check: 'webhook'; subject: string }, where: string, served: X509Certificate, caBundle: string | undefined, now: Date): Finding {
  const notAfter = new Date(served.validTo);
  if (notAfter.getTime() <= now.getTime()) {
    return { ...base, status: 'error', message: `${where} serves a certificate that expired at ${notAfter.toISOString()}: the API server refuses the call`, fix: 'renew it: cert-manager renews its Certificate (cmctl renew), opgen dev issues a new one on restart' };
  }
  if (new Date(served.validFrom).getTime() > now.getTime()) {
    return { ...base, status: 'error', message: `${where} serves a certificate valid only from ${new Date(served.validFrom).toISOString()}`, fix: 'check the clock of the machine that issued it, and reissue the certificate' };
  }
  const cas = caBundle ? pemCertificates(Buffer.from(caBundle, 'base64').toString('utf8')) : [];
  if (cas.length === 0) {
    return { ...base, status: 'error', message: 'its clientConfig has no caBundle: the API server cannot trust the served certificate', fix: 'let cert-manager\'s CA injector fill it (annotation cert-manager.io/inject-ca-from, from config/default), or run opgen dev' };
  }
  if (!cas.some((ca) => served.checkIssued(ca) && served.verify(ca.publicKey))) {
    return { ...base, status: 'error', message: `its caBundle does not sign the certificate ${where} serves (issuer ${served.issuer.replace(/\n/g, ', ')})`, fix: 'inject the CA that issued the serving certificate: check cert-manager\'s CA injector and the inject-ca-from annotation, or restart opgen dev' };
  }
  const days = Math.floor((notAfter.getTime() - now.getTime()) / DAY_MS);
  if (days < EXPIRY_WARNING_DAYS) {
    return { ...base, status: 'warning', message: `${where} serves a certificate that expires in ${days} days (${notAfter.toISOString()})`, fix: 'renew it before then (cert-manager renews 30 days ahead unless renewBefore says otherwise)' };
  }
  return { ...base, status: 'ok', message: `${where} answers with a certificate signed by the caBundle, valid until ${notAfter.toISOString()}` };
}

function pemCertificates(pem: string): X509Certificate[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((p) => new X509Certificate(p));
}

/** The leaf certificate a TLS server presents (not verified here: the checks above say what is wrong with it). */
function servedCertificate(host: string, port: number): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, servername: /^[\d.]+$|:/.test(host) ? undefined : host, rejectUnauthorized: false, timeout: 5000 }, () => {
      const cert = socket.getPeerX509Certificate();
      socket.destroy();
      if (cert) resolve(cert);
      else reject(new Error('no certificate'));
    });
    socket.on('timeout', () => {
      socket.destroy();
      reject(new Error('timed out after 5 s'));
    });
    socket.on('error', (err: NodeJS.ErrnoException) => reject(new Error(err.code ?? err.message)));
  });
}
