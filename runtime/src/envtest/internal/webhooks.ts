// Webhooks under test run in the test process, not behind a Service. Like controller-runtime's
// envtest, each webhook configuration (and CRD conversion webhook) is rewritten to call a local
// HTTPS endpoint whose serving certificate the environment issues, with caBundle set to its CA.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { poll, type AdminClient } from './admin-client.js';
import { createOrReplace } from './crds.js';
import type { KubeObject, SourcedObject } from './manifests.js';
import { freePort, LOOPBACK } from './ports.js';
import { TinyCa } from '../../internal/tls/tiny-ca.js';

export interface WebhookServing {
  /** Where the webhook server must listen: 127.0.0.1 */
  host: string;
  port: number;
  /** Holds tls.crt and tls.key (controller-runtime's file names) for the webhook server. */
  certDir: string;
  /** PEM of the CA the API server trusts for calls to the webhook server. */
  caData: string;
}

interface ClientConfig { url?: string; service?: { name?: string; namespace?: string; path?: string; port?: number }; caBundle?: string }
interface Webhook { name?: string; clientConfig?: ClientConfig }
interface WebhookConfiguration extends KubeObject { webhooks?: Webhook[] }

const KINDS: Record<string, string> = {
  MutatingWebhookConfiguration: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
  ValidatingWebhookConfiguration: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
};

export async function prepareWebhookServing(dir: string, ports: number[]): Promise<WebhookServing> {
  const ca = TinyCa.create('opgen-envtest-webhook-ca');
  const serving = ca.issue({ commonName: 'localhost', hosts: ['localhost', LOOPBACK], usage: 'server' });
  const certDir = join(dir, 'webhook-certs');
  mkdirSync(certDir, { recursive: true });
  writeFileSync(join(certDir, 'tls.crt'), serving.certPem);
  writeFileSync(join(certDir, 'tls.key'), serving.keyPem, { mode: 0o600 });
  return { host: LOOPBACK, port: await freePort(ports), certDir, caData: ca.certPem };
}

/** Points a service reference (or a URL) at the local webhook server, keeping the request path. */
export function localClientConfig(config: ClientConfig | undefined, serving: WebhookServing, defaultPath: string): ClientConfig {
  let path = config?.service?.path ?? (config?.url ? new URL(config.url).pathname : defaultPath);
  if (!path.startsWith('/')) path = `/${path}`;
  return { url: `https://${serving.host}:${serving.port}${path}`, caBundle: Buffer.from(serving.caData).toString('base64') };
}

export function pickWebhookConfigurations(objects: SourcedObject[]): { config: WebhookConfiguration; file: string; entry: string }[] {
  return objects
    .filter(({ object }) => object.kind !== undefined && object.kind in KINDS)
    .map(({ object, file, entry }) => {
      if (object.apiVersion !== 'admissionregistration.k8s.io/v1') {
        throw new Error(`envtest: ${file}: ${object.kind} ${object.metadata?.name ?? ''} has apiVersion ${object.apiVersion}; use admissionregistration.k8s.io/v1`);
      }
      return { config: object as WebhookConfiguration, file, entry };
    });
}

/** CRDs whose conversion strategy is Webhook call the local server at their path (default /convert). */
export function rewriteConversionWebhooks(crds: KubeObject[], serving: WebhookServing): void {
  for (const crd of crds) {
    const conversion = (crd.spec as { conversion?: { strategy?: string; webhook?: { clientConfig?: ClientConfig; conversionReviewVersions?: string[] } } } | undefined)?.conversion;
    if (conversion?.strategy !== 'Webhook') continue;
    conversion.webhook = {
      conversionReviewVersions: conversion.webhook?.conversionReviewVersions ?? ['v1'],
      clientConfig: localClientConfig(conversion.webhook?.clientConfig, serving, '/convert'),
    };
  }
}

/**
 * CRD conversion patches among webhookPaths: a CustomResourceDefinition holding only its name and
 * spec.conversion, as config/crd/patches/webhook_in_<plural>.yaml (what kustomize adds to config/crd/bases).
 */
export function pickConversionPatches(objects: SourcedObject[]): { name: string; conversion: Record<string, unknown>; file: string; entry: string }[] {
  return objects
    .filter(({ object }) => object.kind === 'CustomResourceDefinition')
    .map(({ object, file, entry }) => {
      const spec = object.spec as { conversion?: Record<string, unknown>; versions?: unknown } | undefined;
      if (!spec?.conversion || spec.versions !== undefined) {
        throw new Error(`envtest: ${file}: CustomResourceDefinition ${object.metadata?.name ?? ''} in webhookPaths must be a conversion patch (metadata.name and spec.conversion only); pass whole CRDs in crdPaths`);
      }
      return { name: object.metadata?.name ?? '', conversion: spec.conversion, file, entry };
    });
}

/** Sets each patched CRD's spec.conversion (rewritten to the local server afterwards); the CRD must be installed. */
export function applyConversionPatches(crds: KubeObject[], patches: { name: string; conversion: Record<string, unknown>; file: string }[]): void {
  for (const patch of patches) {
    // A CRD given twice (two crdPaths entries) is installed from the last copy: patch every copy.
    const matching = crds.filter((c) => c.metadata?.name === patch.name);
    if (matching.length === 0) {
      throw new Error(`envtest: ${patch.file}: conversion patch for CRD ${patch.name}, which crdPaths does not install; add its CRD to crdPaths (in an opgen project: config/crd/bases, after \`opgen generate\`)`);
    }
    for (const crd of matching) crd.spec = { ...(crd.spec as object), conversion: structuredClone(patch.conversion) };
  }
}

export async function installWebhookConfigurations(
  client: AdminClient, configs: { config: WebhookConfiguration; file: string }[], serving: WebhookServing, timeoutMs: number,
): Promise<void> {
  for (const { config, file } of configs) {
    const name = config.metadata?.name ?? '';
    const base = KINDS[config.kind ?? ''] ?? '';
    const body: WebhookConfiguration = {
      ...config,
      webhooks: (config.webhooks ?? []).map((w) => ({ ...w, clientConfig: localClientConfig(w.clientConfig, serving, '/') })),
    };
    await createOrReplace(client, base, body, `${config.kind} ${name}`, file);
    await poll(`${config.kind} ${name}`, timeoutMs, 50, async () => ((await client.call('GET', `${base}/${name}`)).status === 200 ? true : undefined));
  }
}
