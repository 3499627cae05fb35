import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaults, resolveOptions, selfCertificateFromEnv } from './options.js';

const dirs: string[] = [];
const emptyDir = () => (dirs.push(mkdtempSync(join(tmpdir(), 'opgen-certdir-'))), dirs.at(-1)!);
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('selfCertificateFromEnv', () => {
  const env = { WEBHOOK_CERT_SECRET: 'webhook-server-cert', WEBHOOK_SERVICE_NAME: 'demo-webhook-service', VALIDATING_WEBHOOK_CONFIGURATION: 'demo-validating-webhook-configuration', MUTATING_WEBHOOK_CONFIGURATION: '' };

  it('reads the names config/default sets; an empty configuration name means none of that kind', () => {
    expect(selfCertificateFromEnv(env, emptyDir())).toEqual({
      secretName: 'webhook-server-cert', serviceName: 'demo-webhook-service',
      validatingWebhookConfigurations: ['demo-validating-webhook-configuration'], mutatingWebhookConfigurations: [],
    });
  });

  it('is off without WEBHOOK_CERT_SECRET, and when a certificate is mounted (OLM mounts its own)', () => {
    expect(selfCertificateFromEnv({}, emptyDir())).toBeUndefined();
    const mounted = emptyDir();
    writeFileSync(join(mounted, 'tls.crt'), 'x');
    expect(selfCertificateFromEnv(env, mounted)).toBeUndefined();
  });

  it('names a missing variable in one line', () => {
    expect(() => selfCertificateFromEnv({ WEBHOOK_CERT_SECRET: 's' }, emptyDir())).toThrow(/^WEBHOOK_SERVICE_NAME is not set; config\/default\/manager_webhook_patch.yaml sets it/);
  });
});

describe('resolveOptions', () => {
  it("takes cert-controller's defaults: CA 10 years, certificate 1 year, renewed 90 days before, checked every 12 hours", () => {
    const r = resolveOptions({ secretName: 's', serviceName: 'svc' }, () => 'ns');
    const day = 86_400_000;
    expect([r.caValidityMs, r.certValidityMs, r.renewBeforeMs, r.checkIntervalMs]).toEqual([3650 * day, 365 * day, 90 * day, 12 * 3_600_000]);
    expect(r).toMatchObject(defaults);
    expect(r.namespace).toBe('ns');
  });

  it('refuses a renewal window as long as a lifetime', () => {
    expect(() => resolveOptions({ secretName: 's', serviceName: 'svc', certValidityMs: 1000, renewBeforeMs: 1000 }, () => 'ns')).toThrow(/renewBeforeMs \(1000\) must be shorter than certValidityMs/);
  });
});
