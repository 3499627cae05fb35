import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TinyCa } from './tiny-ca.js';

describe('TinyCa', () => {
  const ca = TinyCa.create();
  const dir = mkdtempSync(join(tmpdir(), 'opgen-tinyca-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('issues a self-signed CA certificate', () => {
    const cert = new X509Certificate(ca.certPem);
    expect(cert.ca).toBe(true);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.subject).toContain('CN=opgen-envtest');
  });

  it('issues a serving certificate valid for localhost and loopback IPs, signed by the CA', () => {
    const leaf = ca.issue({ commonName: 'localhost', hosts: ['localhost', '127.0.0.1', '::1'], usage: 'server' });
    const cert = new X509Certificate(leaf.certPem);
    const caCert = new X509Certificate(ca.certPem);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now() + 6 * 24 * 3600 * 1000);
  });

  it('issues client certificates that openssl verifies for client auth, with user and groups', () => {
    const leaf = ca.issue({ commonName: 'admin', organizations: ['system:masters'], usage: 'client' });
    writeFileSync(join(dir, 'ca.pem'), ca.certPem);
    writeFileSync(join(dir, 'client.pem'), leaf.certPem);
    const out = execFileSync('openssl', ['verify', '-purpose', 'sslclient', '-CAfile', join(dir, 'ca.pem'), join(dir, 'client.pem')], { encoding: 'utf8' });
    expect(out.trim()).toBe(`${join(dir, 'client.pem')}: OK`);
    expect(new X509Certificate(leaf.certPem).subject.split('\n')).toEqual(['O=system:masters', 'CN=admin']);
  });
});
