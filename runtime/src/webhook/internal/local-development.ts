// A manager run outside a cluster serves its webhooks with a certificate it made itself, so the API
// server must be told where to call and which CA to trust: every webhook configuration entry whose
// path this process serves, and every CRD whose conversion it serves, is pointed at the local URL
// with that CA as caBundle. (envtest does the same for tests; this is that, for `npm start`.)
import type { Transport } from '../../transport/index.js';
import { isConflict } from '../../client/errors.js';
import type { Logger } from '../../log/index.js';
import type { WebhookServer } from '../server.js';

interface ClientConfig { url?: string; service?: { name?: string; namespace?: string; path?: string; port?: number }; caBundle?: string }
interface WebhookConfiguration { metadata: { name: string; resourceVersion?: string }; webhooks?: { name: string; clientConfig?: ClientConfig }[] }
interface Crd {
  metadata: { name: string };
  spec: { group: string; names: { kind: string }; versions?: unknown[]; conversion?: { strategy?: string; webhook?: { clientConfig?: ClientConfig; conversionReviewVersions?: string[] } } };
}

const configurationKinds = [
  { kind: 'MutatingWebhookConfiguration', path: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations' },
  { kind: 'ValidatingWebhookConfiguration', path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations' },
];
const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function pathOf(config: ClientConfig | undefined): string | undefined {
  if (config?.service) return config.service.path ?? '/';
  if (config?.url) {
    try {
      return new URL(config.url).pathname;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** GET, edit, PUT; again on a conflict (someone else wrote in between). */
async function updateWithRetry<T extends { metadata: { name: string } }>(
  transport: Transport, base: string, name: string, edit: (obj: T) => boolean,
): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const obj = await transport.request<T>('GET', `${base}/${name}`);
    if (!edit(obj)) return false;
    try {
      await transport.request('PUT', `${base}/${name}`, { body: obj, context: `update ${base}/${name}` });
      return true;
    } catch (err) {
      if (!isConflict(err) || attempt >= 4) throw err;
    }
  }
}

/**
 * Points the webhook configurations and conversion CRDs this server answers for at `baseUrl`
 * (https://host:port) with `caBundle` (PEM). Returns what it changed ("MutatingWebhookConfiguration x: m.kb.io").
 */
export async function pointWebhooksAtLocalServer(
  transport: Transport, server: WebhookServer, baseUrl: string, caBundlePem: string, log: Logger,
): Promise<string[]> {
  const caBundle = Buffer.from(caBundlePem).toString('base64');
  const served = new Set(server.paths());
  const changed: string[] = [];
  const local = (path: string): ClientConfig => ({ url: `${baseUrl}${path}`, caBundle });

  for (const { kind, path } of configurationKinds) {
    const list = await transport.request<{ items: WebhookConfiguration[] }>('GET', path, { context: `list ${kind}s` });
    for (const item of list.items) {
      const names: string[] = [];
      await updateWithRetry<WebhookConfiguration>(transport, path, item.metadata.name, (config) => {
        names.length = 0;
        for (const w of config.webhooks ?? []) {
          const p = pathOf(w.clientConfig);
          if (p === undefined || !served.has(p)) continue;
          const next = local(p);
          if (w.clientConfig?.url === next.url && w.clientConfig?.caBundle === caBundle) continue;
          w.clientConfig = next;
          names.push(w.name);
        }
        return names.length > 0;
      });
      for (const n of names) changed.push(`${kind} ${item.metadata.name}: ${n}`);
    }
  }

  const kinds = server.conversionKinds();
  if (kinds.length > 0) {
    const list = await transport.request<{ items: Crd[] }>('GET', crdPath, { context: 'list CustomResourceDefinitions' });
    for (const item of list.items) {
      if (!kinds.some((k) => k.group === item.spec.group && k.kind === item.spec.names.kind)) continue;
      const updated = await updateWithRetry<Crd>(transport, crdPath, item.metadata.name, (crd) => {
        const webhook = crd.spec.conversion?.webhook;
        const next = local('/convert');
        if (crd.spec.conversion?.strategy === 'Webhook' && webhook?.clientConfig?.url === next.url && webhook?.clientConfig?.caBundle === caBundle) return false;
        crd.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: next, conversionReviewVersions: webhook?.conversionReviewVersions ?? ['v1'] } };
        return true;
      });
      if (updated) changed.push(`CustomResourceDefinition ${item.metadata.name}: conversion`);
    }
  }
  if (changed.length > 0) log.info('pointed webhooks at this process (local development)', { url: baseUrl, changed });
  else log.info('local development: no webhook configuration or conversion CRD names a path this process serves', { url: baseUrl, paths: [...served] });
  return changed;
}

/** The manager's `webhook` option. */
export interface ManagerWebhookOptions {
  /** Listen address; default all interfaces. */
  host?: string;
  /** Default 9443. */
  port?: number;
  /** `--webhook-cert-path`: folder with tls.crt/tls.key, reloaded when it changes. */
  certDir?: string;
  certName?: string;
  keyName?: string;
  /**
   * Outside a cluster (no KUBERNETES_SERVICE_HOST) and without a certificate, the server makes a CA
   * and serving certificate, and (unless false) points the webhook configurations and conversion
   * CRDs it serves at `url` (default https://127.0.0.1:<port>) with that CA. Default on outside a
   * cluster, off inside.
   */
  localDevelopment?: boolean | { url?: string };
  certPollIntervalMs?: number;
}

const unspecified = new Set(['', '0.0.0.0', '::', undefined]);

export function webhookServerOptions(opts: ManagerWebhookOptions = {}, log: Logger): ConstructorParameters<typeof WebhookServer>[0] {
  const inCluster = process.env.KUBERNETES_SERVICE_HOST !== undefined && process.env.KUBERNETES_SERVICE_HOST !== '';
  const local = opts.localDevelopment ?? !inCluster;
  const extraHost = typeof local === 'object' && local.url ? new URL(local.url).hostname.replace(/^\[|\]$/g, '') : undefined;
  const hosts = ['localhost', '127.0.0.1', '::1', ...(opts.host && !unspecified.has(opts.host) ? [opts.host] : []), ...(extraHost ? [extraHost] : [])];
  return {
    host: opts.host,
    port: opts.port,
    certDir: opts.certDir,
    certName: opts.certName,
    keyName: opts.keyName,
    certPollIntervalMs: opts.certPollIntervalMs,
    selfSigned: local !== false && opts.certDir === undefined ? { hosts: [...new Set(hosts)] } : undefined,
    logger: log,
  };
}

/**
 * Starts `server` (serving until `signal` aborts) and, when it made its own certificate and local
 * development is on, points the cluster's webhooks at it. Resolves with the bound port.
 */
export async function startManagerWebhooks(
  server: WebhookServer, opts: ManagerWebhookOptions = {}, transport: Transport, signal: AbortSignal, log: Logger,
): Promise<number> {
  const started = server.start(signal);
  const port = await Promise.race([server.listening(), started.then(() => server.listening())]);
  const local = opts.localDevelopment ?? true;
  if (server.caBundle && local !== false) {
    const host = unspecified.has(opts.host) ? '127.0.0.1' : opts.host!;
    const url = typeof local === 'object' && local.url ? local.url.replace(/\/$/, '') : `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
    await pointWebhooksAtLocalServer(transport, server, url, server.caBundle, log);
  }
  return port;
}
