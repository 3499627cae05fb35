// Pointing the cluster's webhook configurations and conversion CRDs at a local process, and putting
// them back. Every object changed carries an annotation with what it held before (the original
// clientConfig of each webhook entry, or the CRD's spec.conversion) and who changed it (host, pid, the
// local URL), so the change can be undone on the way out, and by a later start when the process that
// made it was killed before it could (SIGKILL, a second Ctrl-C, a crash).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { isConflict } from '../../client/errors.js';
import type { Transport } from '../../transport/index.js';

export const redirectAnnotation = 'opgen.dev/local-development-redirect';

interface ClientConfig { url?: string; service?: { name?: string; namespace?: string; path?: string; port?: number }; caBundle?: string }
interface Metadata { name: string; resourceVersion?: string; annotations?: Record<string, string> }
interface WebhookConfiguration { metadata: Metadata; webhooks?: { name: string; clientConfig?: ClientConfig }[] }
interface Conversion { strategy?: string; webhook?: { clientConfig?: ClientConfig; conversionReviewVersions?: string[] } }
interface Crd { metadata: Metadata; spec: { group: string; names: { kind: string }; conversion?: Conversion } }

/** Who redirected an object, and what it held before. */
export interface RedirectRecord {
  host: string;
  pid: number;
  /** One manager of that process. */
  id: string;
  /** The local base URL the object was pointed at (https://host:port). */
  url: string;
  /** Webhook configurations: each redirected entry's clientConfig before. */
  webhooks?: Record<string, ClientConfig>;
  /** CRDs: spec.conversion before (null: there was none). */
  conversion?: Conversion | null;
}

export interface Owner { host: string; pid: number; id: string }

/** Redirecting managers of this process that have not restored yet. */
const live = new Set<string>();

/** A new owner for one manager's redirect; live until release(). */
export function newOwner(): Owner {
  const owner = { host: hostname(), pid: process.pid, id: randomUUID() };
  live.add(owner.id);
  return owner;
}

export function releaseOwner(owner: Owner): void {
  live.delete(owner.id);
}

export function sameOwner(record: RedirectRecord | undefined, owner: Owner): boolean {
  return record !== undefined && record.id === owner.id && record.pid === owner.pid && record.host === owner.host;
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

function recordOf(meta: Metadata): RedirectRecord | undefined {
  const raw = meta.annotations?.[redirectAnnotation];
  if (raw === undefined) return undefined;
  try {
    const r = JSON.parse(raw) as RedirectRecord;
    return typeof r === 'object' && r !== null && typeof r.url === 'string' ? r : undefined;
  } catch {
    return undefined;
  }
}

function setRecord(meta: Metadata, record: RedirectRecord | undefined): void {
  const annotations = { ...meta.annotations };
  if (record) annotations[redirectAnnotation] = JSON.stringify(record);
  else delete annotations[redirectAnnotation];
  meta.annotations = annotations;
  if (Object.keys(annotations).length === 0) delete meta.annotations;
}

/** Still pointing where the record says it was pointed (nobody re-applied the configuration since). */
function pointsAt(config: ClientConfig | undefined, baseUrl: string): boolean {
  return config?.url !== undefined && config.url.startsWith(`${baseUrl}/`);
}

/** GET, edit, PUT (with the resourceVersion read); again on a conflict. */
async function updateWithRetry<T extends { metadata: Metadata }>(
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

export interface RedirectTarget {
  /** Admission paths this process serves (and /convert when it converts). */
  paths: string[];
  /** Group/kind pairs it converts. */
  conversionKinds: { group: string; kind: string }[];
  /** https://host:port */
  baseUrl: string;
  /** PEM of the CA the API server must trust. */
  caBundlePem: string;
}

/**
 * Points every webhook entry whose path `target` serves, and every CRD whose conversion it serves, at
 * `target.baseUrl`, recording the original in the annotation (an original already recorded by an
 * earlier run is kept: that run's URL is not the original). Returns what it changed.
 */
export async function redirectWebhooks(transport: Transport, target: RedirectTarget, owner: Owner): Promise<string[]> {
  const caBundle = Buffer.from(target.caBundlePem).toString('base64');
  const served = new Set(target.paths);
  const changed: string[] = [];
  const local = (path: string): ClientConfig => ({ url: `${target.baseUrl}${path}`, caBundle });

  for (const { kind, path } of configurationKinds) {
    const list = await transport.request<{ items: WebhookConfiguration[] }>('GET', path, { context: `list ${kind}s` });
    for (const item of list.items) {
      if (!(item.webhooks ?? []).some((w) => served.has(pathOf(w.clientConfig) ?? ''))) continue;
      const names: string[] = [];
      await updateWithRetry<WebhookConfiguration>(transport, path, item.metadata.name, (config) => {
        names.length = 0;
        const earlier = recordOf(config.metadata);
        const originals: Record<string, ClientConfig> = {};
        // Entries an earlier run redirected and this one does not serve keep their record (restored with the rest).
        for (const w of config.webhooks ?? []) {
          const original = earlier?.webhooks?.[w.name];
          if (original !== undefined && pointsAt(w.clientConfig, earlier!.url)) originals[w.name] = original;
        }
        for (const w of config.webhooks ?? []) {
          const p = pathOf(w.clientConfig);
          if (p === undefined || !served.has(p)) continue;
          originals[w.name] ??= w.clientConfig ?? {};
          const next = local(p);
          if (w.clientConfig?.url === next.url && w.clientConfig?.caBundle === caBundle && sameOwner(earlier, owner)) continue;
          w.clientConfig = next;
          names.push(w.name);
        }
        if (names.length === 0) return false;
        setRecord(config.metadata, { ...owner, url: target.baseUrl, webhooks: originals });
        return true;
      });
      for (const n of names) changed.push(`${kind} ${item.metadata.name}: ${n}`);
    }
  }

  if (target.conversionKinds.length > 0) {
    const list = await transport.request<{ items: Crd[] }>('GET', crdPath, { context: 'list CustomResourceDefinitions' });
    for (const item of list.items) {
      if (!target.conversionKinds.some((k) => k.group === item.spec.group && k.kind === item.spec.names.kind)) continue;
      const updated = await updateWithRetry<Crd>(transport, crdPath, item.metadata.name, (crd) => {
        const earlier = recordOf(crd.metadata);
        const current = crd.spec.conversion;
        const next = local('/convert');
        if (current?.strategy === 'Webhook' && current.webhook?.clientConfig?.url === next.url && current.webhook?.clientConfig?.caBundle === caBundle
          && sameOwner(earlier, owner)) return false;
        const before = earlier && earlier.conversion !== undefined && pointsAt(current?.webhook?.clientConfig, earlier.url) ? earlier.conversion : current ?? null;
        crd.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: next, conversionReviewVersions: current?.webhook?.conversionReviewVersions ?? ['v1'] } };
        setRecord(crd.metadata, { ...owner, url: target.baseUrl, conversion: before });
        return true;
      });
      if (updated) changed.push(`CustomResourceDefinition ${item.metadata.name}: conversion`);
    }
  }
  return changed;
}

/**
 * Puts back what a redirect recorded, on every object whose record `mayRestore` accepts: each entry
 * still pointing at the recorded URL gets its original clientConfig (an entry someone re-applied
 * since is left as it is), and the annotation goes. Returns what it restored.
 */
export async function restoreWebhooks(transport: Transport, mayRestore: (record: RedirectRecord) => boolean): Promise<string[]> {
  const restored: string[] = [];
  for (const { kind, path } of configurationKinds) {
    const list = await transport.request<{ items: WebhookConfiguration[] }>('GET', path, { context: `list ${kind}s` });
    for (const item of list.items) {
      const found = recordOf(item.metadata);
      if (!found || !mayRestore(found)) continue;
      const names: string[] = [];
      await updateWithRetry<WebhookConfiguration>(transport, path, item.metadata.name, (config) => {
        names.length = 0;
        const record = recordOf(config.metadata);
        if (!record || !mayRestore(record)) return false;
        for (const w of config.webhooks ?? []) {
          const original = record.webhooks?.[w.name];
          if (original === undefined || !pointsAt(w.clientConfig, record.url)) continue;
          w.clientConfig = original;
          names.push(w.name);
        }
        setRecord(config.metadata, undefined);
        return true;
      });
      for (const n of names) restored.push(`${kind} ${item.metadata.name}: ${n}`);
    }
  }
  const crds = await transport.request<{ items: Crd[] }>('GET', crdPath, { context: 'list CustomResourceDefinitions' });
  for (const item of crds.items) {
    const found = recordOf(item.metadata);
    if (!found || !mayRestore(found)) continue;
    let put = false;
    await updateWithRetry<Crd>(transport, crdPath, item.metadata.name, (crd) => {
      const record = recordOf(crd.metadata);
      if (!record || !mayRestore(record)) return false;
      put = record.conversion !== undefined && pointsAt(crd.spec.conversion?.webhook?.clientConfig, record.url);
      if (put) {
        if (record.conversion) crd.spec.conversion = record.conversion;
        else delete crd.spec.conversion; // the API server defaults it to strategy None
      }
      setRecord(crd.metadata, undefined);
      return true;
    });
    if (put) restored.push(`CustomResourceDefinition ${item.metadata.name}: conversion`);
  }
  return restored;
}

/** A record a start may undo: made on this machine by a manager that is gone (its process, or a stopped one of this process). */
export function leftBehind(record: RedirectRecord): boolean {
  if (record.host !== hostname()) return false;
  if (record.pid === process.pid) return !live.has(record.id);
  try {
    process.kill(record.pid, 0);
    return false; // still running: its redirect is live
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

