// The self certificate provider's settings (createManager({ webhook: { selfCertificate } })), their
// defaults (open-policy-agent/cert-controller's) and the environment variables config/default sets.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SelfCertificateOptions {
  /** Secret holding ca.crt, ca.key, tls.crt and tls.key (type kubernetes.io/tls); created when absent. */
  secretName: string;
  /** The webhook Service: the certificate names <serviceName>.<namespace>.svc and .svc.cluster.local. */
  serviceName: string;
  /** Namespace of the Secret and the Service; default the pod's own (outside a cluster: 'default'). */
  namespace?: string;
  /** More DNS names or IP addresses for the serving certificate (e.g. 'localhost' for a URL webhook). */
  extraHosts?: string[];
  /** ValidatingWebhookConfigurations whose every webhook gets the CA bundle. */
  validatingWebhookConfigurations?: string[];
  /** MutatingWebhookConfigurations whose every webhook gets the CA bundle. */
  mutatingWebhookConfigurations?: string[];
  /**
   * CRDs whose spec.conversion.webhook.clientConfig gets the CA bundle; default the CRDs of the
   * conversions the webhook server registers (webhookFor(...).withConversion).
   */
  conversionCrds?: string[];
  /** Lifetime of a new CA; default 10 years. */
  caValidityMs?: number;
  /** Lifetime of a new serving certificate; default 1 year. */
  certValidityMs?: number;
  /** A CA or certificate is replaced this long before it expires; default 90 days. */
  renewBeforeMs?: number;
  /** Longest time between two checks of the Secret (besides the one timed for the next renewal); default 12 hours. */
  checkIntervalMs?: number;
}

export type ResolvedOptions = Required<Omit<SelfCertificateOptions, 'conversionCrds'>> & { conversionCrds?: string[] };

const day = 24 * 60 * 60 * 1000;

/** cert-controller's defaults (pkg/rotator/rotator.go). */
export const defaults = {
  caValidityMs: 10 * 365 * day,
  certValidityMs: 365 * day,
  renewBeforeMs: 90 * day,
  checkIntervalMs: 12 * 60 * 60 * 1000,
} as const;

/** Fills the defaults and checks the durations; throws one line naming the option. */
export function resolveOptions(o: SelfCertificateOptions, podNamespace: () => string): ResolvedOptions {
  for (const key of ['secretName', 'serviceName'] as const) {
    if (!o[key]) throw new Error(`webhook.selfCertificate.${key} is required`);
  }
  const r: ResolvedOptions = {
    secretName: o.secretName,
    serviceName: o.serviceName,
    namespace: o.namespace || podNamespace(),
    extraHosts: o.extraHosts ?? [],
    validatingWebhookConfigurations: o.validatingWebhookConfigurations ?? [],
    mutatingWebhookConfigurations: o.mutatingWebhookConfigurations ?? [],
    ...(o.conversionCrds ? { conversionCrds: o.conversionCrds } : {}),
    caValidityMs: o.caValidityMs ?? defaults.caValidityMs,
    certValidityMs: o.certValidityMs ?? defaults.certValidityMs,
    renewBeforeMs: o.renewBeforeMs ?? defaults.renewBeforeMs,
    checkIntervalMs: o.checkIntervalMs ?? defaults.checkIntervalMs,
  };
  for (const key of ['caValidityMs', 'certValidityMs', 'renewBeforeMs', 'checkIntervalMs'] as const) {
    if (!(r[key] > 0)) throw new Error(`webhook.selfCertificate.${key} must be a positive number of milliseconds, got ${r[key]}`);
  }
  // A certificate renewed this early would be renewed again at once.
  if (r.renewBeforeMs >= r.certValidityMs || r.renewBeforeMs >= r.caValidityMs) {
    throw new Error(`webhook.selfCertificate.renewBeforeMs (${r.renewBeforeMs}) must be shorter than certValidityMs (${r.certValidityMs}) and caValidityMs (${r.caValidityMs})`);
  }
  return r;
}

/** The variables config/default's self-certificate patch sets on the manager container. */
export const selfCertificateEnv = {
  secretName: 'WEBHOOK_CERT_SECRET',
  serviceName: 'WEBHOOK_SERVICE_NAME',
  validating: 'VALIDATING_WEBHOOK_CONFIGURATION',
  mutating: 'MUTATING_WEBHOOK_CONFIGURATION',
} as const;

/**
 * The options from the manager's environment (what `opgen create webhook --cert-provider self`
 * scaffolds): the Secret and Service names, and the webhook configurations' names (empty: none of
 * that kind). Undefined, so the manager reads certificate files as before, when WEBHOOK_CERT_SECRET is
 * unset or a certificate is mounted in `certDir` (default controller-runtime's
 * $TMPDIR/k8s-webhook-server/serving-certs, where OLM mounts the one it makes for a bundle's webhooks).
 * Throws one line naming a missing variable.
 */
export function selfCertificateFromEnv(env: Record<string, string | undefined> = process.env, certDir = join(tmpdir(), 'k8s-webhook-server', 'serving-certs')): SelfCertificateOptions | undefined {
  if (!env[selfCertificateEnv.secretName] || existsSync(join(certDir, 'tls.crt'))) return undefined;
  const need = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`${name} is not set; config/default/manager_webhook_patch.yaml sets it (--cert-provider self)`);
    return value;
  };
  const names = (name: string) => (env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return {
    secretName: need(selfCertificateEnv.secretName),
    serviceName: need(selfCertificateEnv.serviceName),
    validatingWebhookConfigurations: names(selfCertificateEnv.validating),
    mutatingWebhookConfigurations: names(selfCertificateEnv.mutating),
  };
}
