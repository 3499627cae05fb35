// Webhook markers (+kubebuilder:webhook) → MutatingWebhookConfiguration and ValidatingWebhookConfiguration objects,
// checked as controller-gen checks them, with each problem reported at its marker.
import { OpgenError } from '../diag/diagnostic.js';
import type { CollectedMarker } from '../markers/index.js';
import { byteCompare } from '../common/go-order.js';

interface WebhookMarker {
  mutating: boolean;
  failurePolicy: string;
  matchPolicy?: string;
  sideEffects?: string;
  timeoutSeconds?: number;
  groups: string[];
  resources: string[];
  verbs: string[];
  versions: string[];
  name: string;
  path?: string;
  url?: string;
  admissionReviewVersions: string[];
  reinvocationPolicy?: string;
  webhookVersions?: string[];
  serviceName?: string;
  serviceNamespace?: string;
  servicePort?: number;
  patch?: string;
}

function pick(value: string | undefined, allowed: string[]): string | undefined {
  return allowed.find((a) => a.toLowerCase() === (value ?? '').toLowerCase());
}

function deepMerge(base: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch) || base === null || typeof base !== 'object' || Array.isArray(base)) return patch;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = deepMerge(out[k], v);
  }
  return out;
}

/** The webhook configuration objects (mutating first), or none when there are no webhook markers. */
export function generateWebhooks(markers: CollectedMarker[], errors: OpgenError[]): Record<string, unknown>[] {
  const names = { mutating: 'mutating-webhook-configuration', validating: 'validating-webhook-configuration' };
  const renamed = { mutating: false, validating: false };
  for (const m of markers.filter((x) => x.definition.name === 'kubebuilder:webhookconfiguration')) {
    const v = m.value as { mutating: boolean; name: string };
    const which = v.mutating ? 'mutating' : 'validating';
    if (renamed[which]) errors.push(new OpgenError(`a second ${which} +kubebuilder:webhookconfiguration`, m.where, 'keep one per configuration'));
    renamed[which] = true;
    names[which] = v.name;
  }
  const mutating: Record<string, unknown>[] = [];
  const validating: Record<string, unknown>[] = [];
  const webhookMarkers = markers.filter((x) => x.definition.name === 'kubebuilder:webhook');
  for (const m of webhookMarkers) {
    const c = m.value as WebhookMarker;
    const fail = (message: string, fix: string): void => {
      errors.push(new OpgenError(`webhook ${c.name}: ${message}`, m.where, fix));
    };
    if ((c.path && c.url) || (!c.path && !c.url)) {
      fail('needs exactly one of path and url', 'give path=/mutate-... for the webhook service, or url=https://...');
      continue;
    }
    const matchPolicy = c.matchPolicy === undefined || c.matchPolicy === '' ? undefined : pick(c.matchPolicy, ['Exact', 'Equivalent']);
    if (c.matchPolicy && !matchPolicy) fail(`matchPolicy "${c.matchPolicy}" is not a match policy`, 'use Exact or Equivalent');
    const sideEffects = pick(c.sideEffects, ['None', 'NoneOnDryRun']);
    if (!sideEffects) {
      fail(c.sideEffects ? `sideEffects "${c.sideEffects}" is not allowed for admissionregistration.k8s.io/v1` : 'sideEffects is required', 'add sideEffects=None (or NoneOnDryRun)');
    }
    if (c.timeoutSeconds !== undefined && c.timeoutSeconds !== 0 && (c.timeoutSeconds < 1 || c.timeoutSeconds > 30)) fail(`timeoutSeconds ${c.timeoutSeconds} is out of range`, 'use 1 to 30');
    if (c.admissionReviewVersions.length === 0) fail('admissionReviewVersions is empty', 'use admissionReviewVersions=v1');
    for (const v of c.webhookVersions ?? []) if (v !== 'v1') fail(`webhook version ${v} is not supported`, 'use webhookVersions=v1 or leave it out');
    const reinvocation = pick(c.reinvocationPolicy, ['Never', 'IfNeeded']);
    if (c.reinvocationPolicy && !reinvocation) fail(`reinvocationPolicy "${c.reinvocationPolicy}" is not a policy`, 'use Never or IfNeeded');
    if (c.reinvocationPolicy && !c.mutating) fail('reinvocationPolicy applies only to mutating webhooks', 'remove it');
    const operations = c.verbs.map((v) => pick(v, ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*']) ?? v);
    const clientConfig = c.path
      ? { service: { name: c.serviceName || 'webhook-service', namespace: c.serviceNamespace || 'system', path: c.path, ...(c.servicePort ? { port: c.servicePort } : {}) } }
      : { url: c.url };
    let webhook: Record<string, unknown> = {
      admissionReviewVersions: c.admissionReviewVersions,
      clientConfig,
      failurePolicy: pick(c.failurePolicy, ['Fail', 'Ignore']) ?? c.failurePolicy,
      ...(matchPolicy ? { matchPolicy } : {}),
      name: c.name,
      ...(c.mutating && reinvocation ? { reinvocationPolicy: reinvocation } : {}),
      rules: [{ apiGroups: c.groups.map((g) => (g === 'core' ? '' : g)), apiVersions: c.versions, operations, resources: c.resources }],
      ...(sideEffects ? { sideEffects } : {}),
      ...(c.timeoutSeconds ? { timeoutSeconds: c.timeoutSeconds } : {}),
    };
    if (c.patch) {
      try {
        webhook = deepMerge(webhook, JSON.parse(c.patch)) as Record<string, unknown>;
      } catch (err) {
        fail(`patch is not valid JSON: ${(err as Error).message}`, 'write patch=`{"namespaceSelector": {...}}` as JSON');
      }
    }
    (c.mutating ? mutating : validating).push(webhook);
  }
  const byName = (a: Record<string, unknown>, b: Record<string, unknown>): number => byteCompare(String(a.name), String(b.name));
  const out: Record<string, unknown>[] = [];
  if (mutating.length > 0) {
    out.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: names.mutating }, webhooks: mutating.sort(byName) });
  }
  if (validating.length > 0) {
    out.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: names.validating }, webhooks: validating.sort(byName) });
  }
  return out;
}
