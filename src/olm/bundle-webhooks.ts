// The CSV's webhookdefinitions (admission and conversion webhooks, from the rendered configurations and
// CRDs) and the cert-manager mounts OLM's own serving certificate replaces.
import type { CrdSpec, PodSpec } from './bundle-model.js';
import { byKey, nameOf, type KubeObject } from './objects.js';

export function webhookDefinitions(rendered: KubeObject[], deployments: KubeObject[], crds: KubeObject[], consumed: Set<KubeObject>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const services = rendered.filter((o) => o.kind === 'Service');
  const serviceFor = (ref: { name?: string; namespace?: string } | undefined): KubeObject | undefined =>
    ref ? services.find((s) => nameOf(s) === ref.name && (ref.namespace === undefined || s.metadata?.namespace === ref.namespace)) : undefined;
  const deploymentFor = (svc: KubeObject | undefined): string => {
    const selector = ((svc?.spec as { selector?: Record<string, string> } | undefined)?.selector ?? {}) as Record<string, string>;
    const match = deployments.find((d) => {
      const labels = ((d.spec as { template?: { metadata?: { labels?: Record<string, string> } } }).template?.metadata?.labels ?? {}) as Record<string, string>;
      return Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
    });
    return nameOf(match ?? deployments[0]!);
  };
  const portsOf = (svc: KubeObject | undefined, port: number | undefined): { containerPort: number; targetPort?: unknown } => {
    const ports = ((svc?.spec as { ports?: { port?: number; targetPort?: unknown }[] } | undefined)?.ports ?? []) as { port?: number; targetPort?: unknown }[];
    const p = ports.find((x) => x.port === (port ?? 443)) ?? ports[0];
    const r: { containerPort: number; targetPort?: unknown } = { containerPort: p?.port ?? port ?? 443 };
    if (p?.targetPort !== undefined) r.targetPort = p.targetPort;
    return r;
  };
  for (const cfg of rendered) {
    const type = cfg.kind === 'ValidatingWebhookConfiguration' ? 'ValidatingAdmissionWebhook' : cfg.kind === 'MutatingWebhookConfiguration' ? 'MutatingAdmissionWebhook' : undefined;
    if (!type) continue;
    consumed.add(cfg);
    for (const w of (cfg.webhooks ?? []) as Record<string, unknown>[]) {
      const service = ((w.clientConfig ?? {}) as { service?: { name?: string; namespace?: string; path?: string; port?: number } }).service;
      const svc = serviceFor(service);
      if (svc) consumed.add(svc);
      const d: Record<string, unknown> = { type, generateName: w.name, deploymentName: deploymentFor(svc), ...portsOf(svc, service?.port) };
      for (const k of ['admissionReviewVersions', 'failurePolicy', 'matchPolicy', 'objectSelector', 'reinvocationPolicy', 'rules', 'sideEffects', 'timeoutSeconds']) {
        if (w[k] !== undefined) d[k] = w[k];
      }
      if (service?.path !== undefined) d.webhookPath = service.path;
      out.push(d);
    }
  }
  // Conversion webhooks: one definition per service, listing the CRDs it converts.
  const conversions = new Map<string, { svc?: KubeObject; path?: string; port?: number; reviewVersions?: string[]; crds: string[] }>();
  for (const c of crds) {
    const conv = (c.spec as CrdSpec).conversion;
    if (conv?.strategy !== 'Webhook') continue;
    const service = conv.webhook?.clientConfig?.service;
    const key = `${service?.namespace ?? ''}/${service?.name ?? ''}/${service?.port ?? ''}/${service?.path ?? ''}`;
    const entry = conversions.get(key) ?? { svc: serviceFor(service), path: service?.path, port: service?.port, reviewVersions: conv.webhook?.conversionReviewVersions, crds: [] };
    entry.crds.push(nameOf(c));
    conversions.set(key, entry);
  }
  for (const [, e] of [...conversions].sort(byKey)) {
    if (e.svc) consumed.add(e.svc);
    const crdNames = e.crds.sort();
    const d: Record<string, unknown> = {
      // As operator-sdk: the CRD's conversionReviewVersions, and c<plural><plural>….kb.io as the name.
      admissionReviewVersions: e.reviewVersions ?? ['v1'],
      conversionCRDs: crdNames,
      deploymentName: deploymentFor(e.svc),
      generateName: `c${crdNames.map((n) => n.split('.')[0]).join('')}.kb.io`,
      sideEffects: 'None',
      type: 'ConversionWebhook',
      ...portsOf(e.svc, e.port),
    };
    if (e.path !== undefined) d.webhookPath = e.path;
    out.push(d);
  }
  // operator-sdk orders the definitions by generateName.
  return out.sort((a, b) => (String(a.generateName) < String(b.generateName) ? -1 : String(a.generateName) > String(b.generateName) ? 1 : 0));
}

/** Where OLM mounts the serving certificate it makes for a CSV's webhooks (tls.crt, tls.key), and for API services. */
export const OLM_CERT_MOUNTS = ['/tmp/k8s-webhook-server/serving-certs', '/apiserver.local.config/certificates'];

/**
 * Under OLM the webhook serving certificate is OLM's: it mounts it at /tmp/k8s-webhook-server/serving-certs
 * itself (operator-sdk's bundles rely on the same). A Secret volume mounted there that the bundle does not
 * ship (cert-manager's webhook-server-cert) would keep the pod from starting and clash with OLM's mount:
 * it is dropped, with a note.
 */
export function dropCertManagerMounts(name: string, spec: Record<string, unknown>, shipped: Set<string>, notes: string[]): void {
  const pod = (spec.template as { spec?: PodSpec } | undefined)?.spec;
  if (!pod?.volumes) return;
  const containers = [...(pod.initContainers ?? []), ...(pod.containers ?? [])];
  pod.volumes = pod.volumes.filter((v) => {
    const secret = v.secret?.secretName;
    if (!secret || v.secret?.optional || shipped.has(secret)) return true;
    const mounts = containers.flatMap((c) => (c.volumeMounts ?? []).filter((m) => m.name === v.name));
    if (mounts.length === 0 || !mounts.every((m) => OLM_CERT_MOUNTS.includes((m.mountPath ?? '').replace(/\/+$/, '')))) return true;
    for (const c of containers) if (c.volumeMounts) c.volumeMounts = c.volumeMounts.filter((m) => m.name !== v.name);
    notes.push(`note: Deployment ${name}: volume ${v.name} (Secret ${secret}, which the bundle does not ship) is left out: OLM mounts the webhook serving certificate at ${mounts[0]!.mountPath} itself (tls.crt, tls.key)`);
    return false;
  });
}
