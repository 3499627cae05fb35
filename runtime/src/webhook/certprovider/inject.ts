// Where the CA bundle goes, as cert-controller's injectCert: every webhook of a Validating- or
// MutatingWebhookConfiguration (webhooks[].clientConfig.caBundle) and a CRD's conversion webhook
// (spec.conversion.webhook.clientConfig.caBundle). Pure: the caller writes the result.
import { groupVersion } from '../../api/kind.js';
import type { KubeObject } from '../../api/types.js';
import { bundleAccepts } from './certificates.js';

interface ClientConfig { caBundle?: string }
export interface WebhookConfiguration extends KubeObject { webhooks?: { clientConfig?: ClientConfig }[] }
export interface ConversionCrd extends KubeObject { spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: ClientConfig } } } }

const admissionregistration = groupVersion('admissionregistration.k8s.io', 'v1');
export const targetKinds = {
  validating: admissionregistration.kind<WebhookConfiguration>('ValidatingWebhookConfiguration', { namespaced: false }),
  mutating: admissionregistration.kind<WebhookConfiguration>('MutatingWebhookConfiguration', { namespaced: false }),
  crd: groupVersion('apiextensions.k8s.io', 'v1').kind<ConversionCrd>('CustomResourceDefinition', { namespaced: false }),
};

export type Target = { kind: keyof typeof targetKinds; name: string };

function decode(b64: string | undefined): string | undefined {
  return b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8');
}

/**
 * `obj` with `bundlePem` injected, or undefined when every place already holds a bundle that will do
 * (see bundleAccepts). A CRD without a conversion webhook is left alone (undefined).
 */
export function injected<T extends WebhookConfiguration | ConversionCrd>(kind: Target['kind'], obj: T, bundlePem: string, now = Date.now()): T | undefined {
  const caBundle = Buffer.from(bundlePem, 'utf8').toString('base64');
  if (kind === 'crd') {
    const crd = obj as ConversionCrd;
    const config = crd.spec?.conversion?.webhook?.clientConfig;
    if (crd.spec?.conversion?.strategy !== 'Webhook' || !config || bundleAccepts(decode(config.caBundle), bundlePem, now)) return undefined;
    const next = structuredClone(crd);
    next.spec!.conversion!.webhook!.clientConfig!.caBundle = caBundle;
    return next as T;
  }
  const webhooks = (obj as WebhookConfiguration).webhooks ?? [];
  if (webhooks.every((w) => bundleAccepts(decode(w.clientConfig?.caBundle), bundlePem, now))) return undefined;
  const next = structuredClone(obj as WebhookConfiguration);
  for (const w of next.webhooks ?? []) w.clientConfig = { ...w.clientConfig, caBundle };
  return next as T;
}
