// A throw-away certificate authority for one test environment: ECDSA P-256 keys from node:crypto,
// certificates encoded with der.ts and signed by node:crypto. Mirrors what envtest's tinyca issues:
// a self-signed CA, serving certificates with localhost/127.0.0.1 names, client certificates whose
// CN is the user name and O entries are its groups.
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import {
  bitStringBytes, boolean, explicit, implicitPrimitive, namedBits, objectIdentifier,
  octetString, sequence, set, time, unsignedInteger, utf8String,
} from './der.js';

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

const KEY_USAGE = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 } as const;
const VALIDITY_MS = 7 * 24 * 60 * 60 * 1000;
// Certificates start an hour early so a slightly skewed clock never sees them as not yet valid.
const BACKDATE_MS = 60 * 60 * 1000;

export interface KeyPairPem { certPem: string; keyPem: string }

export interface LeafRequest {
  commonName: string;
  organizations?: string[];
  /** DNS names and IP literals, sorted into the right SAN kinds. */
  hosts?: string[];
  usage: 'server' | 'client';
  /** Default 7 days. */
  validityMs?: number;
}

function newKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

function spki(publicKey: KeyObject): Buffer {
  return publicKey.export({ type: 'spki', format: 'der' });
}

/** RFC 5280 method 1: SHA-1 of the subjectPublicKey bits. */
function keyIdentifier(publicKey: KeyObject): Buffer {
  // The SPKI for a P-256 key ends with the 65-byte uncompressed point.
  const der = spki(publicKey);
  return createHash('sha1').update(der.subarray(der.length - 65)).digest();
}

function name(commonName: string, organizations: string[] = []): Buffer {
  const rdn = (oid: string, value: string) => set(sequence(objectIdentifier(oid), utf8String(value)));
  return sequence(...organizations.map((o) => rdn(OID.organization, o)), rdn(OID.commonName, commonName));
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return critical
    ? sequence(objectIdentifier(oid), boolean(true), octetString(value))
    : sequence(objectIdentifier(oid), octetString(value));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  // Expand "::" so every IPv6 address is 8 groups of 16 bits.
  const [head = '', tail] = ip.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = tail === undefined
    ? headGroups
    : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return Buffer.concat(groups.map((g) => { const b = Buffer.alloc(2); b.writeUInt16BE(parseInt(g, 16)); return b; }));
}

function toPem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01; // positive and never zero
  return unsignedInteger(bytes);
}

interface CertificateFields {
  subject: Buffer;
  issuer: Buffer;
  subjectKey: KeyObject;
  issuerKey: KeyObject;
  issuerPublicKey: KeyObject;
  extensions: Buffer[];
  validityMs?: number;
}

function buildCertificate(f: CertificateFields): Buffer {
  const algorithm = sequence(objectIdentifier(OID.ecdsaWithSha256));
  const now = Date.now();
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))), // v3
    serialNumber(),
    algorithm,
    f.issuer,
    sequence(time(new Date(now - BACKDATE_MS)), time(new Date(now + (f.validityMs ?? VALIDITY_MS)))),
    f.subject,
    spki(f.subjectKey),
    explicit(3, sequence(
      ...f.extensions,
      extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(f.subjectKey))),
      extension(OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, keyIdentifier(f.issuerPublicKey)))),
    )),
  );
  const signature = sign('sha256', tbs, { key: f.issuerKey, dsaEncoding: 'der' });
  return sequence(tbs, algorithm, bitStringBytes(signature));
}

export class TinyCa {
  private constructor(
    private readonly key: KeyObject,
    private readonly publicKey: KeyObject,
    private readonly subject: Buffer,
    /** The CA certificate, what clients and servers put in their trust bundles. */
    readonly certPem: string,
  ) {}

  static create(commonName = 'opgen-envtest', opts: { validityMs?: number; organization?: string } = {}): TinyCa {
    const { privateKey, publicKey } = newKeyPair();
    const subject = name(commonName, [opts.organization ?? 'opgen-envtest']);
    const der = buildCertificate({
      subject, issuer: subject, subjectKey: publicKey, issuerKey: privateKey, issuerPublicKey: publicKey, validityMs: opts.validityMs,
      extensions: [
        extension(OID.basicConstraints, true, sequence(boolean(true))),
        extension(OID.keyUsage, true, namedBits([KEY_USAGE.digitalSignature, KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign])),
      ],
    });
    return new TinyCa(privateKey, publicKey, subject, toPem('CERTIFICATE', der));
  }

  /** A CA made earlier (its certificate and PKCS#8 or SEC1 key in PEM), to issue more certificates. */
  static load(certPem: string, keyPem: string): TinyCa {
    const cert = new X509Certificate(certPem);
    const privateKey = createPrivateKey(keyPem);
    if (!cert.ca || !cert.checkPrivateKey(privateKey)) throw new Error('not a CA certificate with its key');
    return new TinyCa(privateKey, cert.publicKey, subjectOf(cert.raw), certPem);
  }

  /** The CA's key in PEM (PKCS#8), to store beside its certificate. */
  get keyPem(): string {
    return this.key.export({ type: 'pkcs8', format: 'pem' }).toString();
  }

  issue(req: LeafRequest): KeyPairPem {
    const { privateKey, publicKey } = newKeyPair();
    const extensions = [
      extension(OID.basicConstraints, true, sequence()),
      extension(OID.keyUsage, true, namedBits([KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment])),
      extension(OID.extKeyUsage, false, sequence(objectIdentifier(req.usage === 'server' ? OID.serverAuth : OID.clientAuth))),
    ];
    const hosts = req.hosts ?? [];
    if (hosts.length > 0) {
      // GeneralName: dNSName is [2] IA5String, iPAddress is [7] OCTET STRING.
      const names = hosts.map((h) => (isIP(h) ? implicitPrimitive(7, ipBytes(h)) : implicitPrimitive(2, Buffer.from(h, 'ascii'))));
      extensions.push(extension(OID.subjectAltName, false, sequence(...names)));
    }
    const der = buildCertificate({
      subject: name(req.commonName, req.organizations), issuer: this.subject,
      subjectKey: publicKey, issuerKey: this.key, issuerPublicKey: this.publicKey, extensions, validityMs: req.validityMs,
    });
    return { certPem: toPem('CERTIFICATE', der), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  }
}

/** One DER element at `at`: where its contents start and where it ends. */
function element(der: Buffer, at: number): { start: number; end: number } {
  let length = der[at + 1]!;
  let start = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[start + i]!;
    start += bytes;
  }
  return { start, end: start + length };
}

/** The subject Name of a certificate, byte for byte (what its children carry as issuer). */
function subjectOf(certDer: Buffer): Buffer {
  const tbs = element(certDer, element(certDer, 0).start);
  let at = tbs.start;
  // TBSCertificate: [0] version, serialNumber, signature, issuer, validity, subject.
  for (let i = 0; i < 5; i++) at = element(certDer, at).end;
  return certDer.subarray(at, element(certDer, at).end);
}

/** A bare key pair, e.g. for signing service-account tokens. */
export function newSigningKey(): { publicKeyPem: string; privateKeyPem: string } {
  const { privateKey, publicKey } = newKeyPair();
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
