// What the Secret holds and when it must change, as pure functions of its contents and the clock.
// Layout as cert-controller's: ca.crt, ca.key, tls.crt, tls.key. ca.crt is the bundle the webhook
// configurations get: the current CA first, then the one it replaced while that one is still valid,
// so a certificate signed by either verifies while the replicas switch over.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createSecureContext } from '../../internal/tls/node-tls.js';
import { TinyCa } from '../../internal/tls/tiny-ca.js';

export const keys = { caCert: 'ca.crt', caKey: 'ca.key', cert: 'tls.crt', key: 'tls.key' } as const;

/** The Secret's data, decoded (PEM text). */
export type CertData = Partial<Record<(typeof keys)[keyof typeof keys], string>>;

export interface Durations {
  caValidityMs: number;
  certValidityMs: number;
  renewBeforeMs: number;
}

/** The certificates in a PEM bundle, each as its own PEM block (normalised). */
export function pemBlocks(bundle: string | undefined): string[] {
  return (bundle ?? '').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)?.map((b) => `${b.replace(/\r/g, '')}\n`) ?? [];
}

function parse(pem: string): X509Certificate | undefined {
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}

/** Expiry of a certificate in ms since the epoch (X509Certificate.validTo has second precision). */
export function notAfter(cert: X509Certificate): number {
  return Date.parse(cert.validTo);
}

/** The current CA (first in ca.crt, with ca.key), when it loads and is not due for renewal at `now`. */
function currentCa(data: CertData, d: Durations, now: number): TinyCa | undefined {
  const pem = pemBlocks(data[keys.caCert])[0];
  const key = data[keys.caKey];
  const cert = pem && parse(pem);
  if (!pem || !cert || !key || notAfter(cert) - d.renewBeforeMs <= now) return undefined;
  try {
    return TinyCa.load(pem, key);
  } catch {
    return undefined;
  }
}

/** The serving pair, when it loads, matches its key, is signed by `caPem`, names `hosts` and is not due at `now`. */
function servingValid(data: CertData, caPem: string, hosts: string[], d: Durations, now: number): boolean {
  const pem = data[keys.cert];
  const key = data[keys.key];
  const cert = pem && parse(pem);
  if (!cert || !key) return false;
  try {
    if (!cert.checkPrivateKey(createPrivateKey(key))) return false;
  } catch {
    return false;
  }
  const ca = new X509Certificate(caPem);
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return false;
  if (!hosts.every((h) => (/^[\d.]+$|:/.test(h) ? cert.checkIP(h) : cert.checkHost(h, { wildcards: false })))) return false;
  return notAfter(cert) - d.renewBeforeMs > now;
}

/** What must be made anew: 'ca' (and so the certificate), 'cert', or nothing. */
export function due(data: CertData, hosts: string[], d: Durations, now = Date.now()): 'ca' | 'cert' | undefined {
  const ca = currentCa(data, d, now);
  if (!ca) return 'ca';
  return servingValid(data, ca.certPem, hosts, d, now) ? undefined : 'cert';
}

/**
 * New contents for the Secret: a new CA when `what` is 'ca' (the previous one kept behind it in
 * ca.crt while valid), and a serving certificate for `hosts` signed by the current CA.
 */
export function renew(data: CertData, what: 'ca' | 'cert', hosts: string[], d: Durations, caName: string, now = Date.now()): Required<CertData> {
  let ca: TinyCa;
  let bundle: string[];
  if (what === 'ca') {
    ca = TinyCa.create(caName, { validityMs: d.caValidityMs, organization: 'opgen' });
    const previous = pemBlocks(data[keys.caCert])[0];
    const keep = previous && parse(previous) && notAfter(parse(previous)!) > now ? [previous] : [];
    bundle = [ca.certPem, ...keep];
  } else {
    const pem = pemBlocks(data[keys.caCert])[0]!;
    ca = TinyCa.load(pem, data[keys.caKey]!);
    bundle = pemBlocks(data[keys.caCert]).filter((b) => notAfter(parse(b)!) > now);
  }
  const pair = ca.issue({ commonName: hosts[0]!, hosts, usage: 'server', validityMs: d.certValidityMs });
  return { [keys.caCert]: bundle.join(''), [keys.caKey]: ca.keyPem, [keys.cert]: pair.certPem, [keys.key]: pair.keyPem };
}

/** When the Secret is next due: the earlier of the CA's and the certificate's renewal times. */
export function nextRenewal(data: CertData, d: Durations): number | undefined {
  const times = [pemBlocks(data[keys.caCert])[0], data[keys.cert]]
    .map((pem) => pem && parse(pem))
    .filter((c): c is X509Certificate => !!c)
    .map((c) => notAfter(c) - d.renewBeforeMs);
  return times.length === 2 ? Math.min(...times) : undefined;
}

/**
 * Whether an injected caBundle (PEM) will do: it holds every certificate of ca.crt and none that
 * expired. A bundle with more (our own, written just before the Secret during a CA renewal) is left
 * alone; one missing a CA (someone else's overwrite) is not.
 */
export function bundleAccepts(injected: string | undefined, caCrt: string, now = Date.now()): boolean {
  const have = pemBlocks(injected);
  const want = pemBlocks(caCrt);
  if (want.length === 0) return true;
  return want.every((b) => have.includes(b)) && have.every((b) => {
    const c = parse(b);
    return !!c && notAfter(c) > now;
  });
}

export interface ServingPair {
  cert: string;
  key: string;
  serialNumber: string;
  notAfter: number;
}

/** tls.crt/tls.key when they load as a TLS pair, else undefined. */
export function servingPair(data: CertData): ServingPair | undefined {
  const cert = data[keys.cert];
  const key = data[keys.key];
  const parsed = cert && parse(cert);
  if (!parsed || !key) return undefined;
  try {
    createSecureContext({ cert, key });
  } catch {
    return undefined;
  }
  return { cert, key, serialNumber: parsed.serialNumber, notAfter: notAfter(parsed) };
}
