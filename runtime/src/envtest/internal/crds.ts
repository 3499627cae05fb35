// Installs CustomResourceDefinitions and waits until the API server serves them: Established
// (names accepted, storage ready) and every served version visible in discovery, which is what a
// client needs before its first create.
import { poll, sleep, type AdminClient } from './admin-client.js';
import type { KubeObject, SourcedObject } from './manifests.js';

const CRD_API = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

interface Crd extends KubeObject {
  spec?: { group?: string; names?: { plural?: string; kind?: string }; versions?: { name: string; served?: boolean; storage?: boolean }[] };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[] };
}

export function pickCrds(objects: SourcedObject[]): { crd: Crd; file: string; entry: string }[] {
  return objects
    .filter(({ object }) => object.kind === 'CustomResourceDefinition')
    .map(({ object, file, entry }) => {
      if (object.apiVersion !== 'apiextensions.k8s.io/v1') {
        throw new Error(`envtest: ${file}: CustomResourceDefinition ${object.metadata?.name ?? ''} has apiVersion ${object.apiVersion}; only apiextensions.k8s.io/v1 is served since Kubernetes 1.22 — regenerate it`);
      }
      return { crd: object as Crd, file, entry };
    });
}

/**
 * POSTs `obj` to `collection`; when it exists already (e.g. two paths define it), replaces it, retrying on
 * write conflicts. `what` names it in errors ("CRD memcacheds.cache.example.com").
 */
export async function createOrReplace(client: AdminClient, collection: string, obj: KubeObject, what: string, file: string): Promise<void> {
  const item = `${collection}/${obj.metadata?.name ?? ''}`;
  const created = await client.call('POST', collection, obj);
  if (created.status === 201) return;
  if (created.status !== 409) throw new Error(`envtest: ${file}: creating ${what} failed (HTTP ${created.status}): ${message(created.body, created.text)}`);
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await client.call('GET', item);
    const resourceVersion = (current.body as KubeObject | undefined)?.metadata?.resourceVersion;
    const replaced = await client.call('PUT', item, { ...obj, metadata: { ...obj.metadata, resourceVersion } });
    if (replaced.status === 200) return;
    if (replaced.status !== 409) throw new Error(`envtest: ${file}: updating ${what} failed (HTTP ${replaced.status}): ${message(replaced.body, replaced.text)}`);
  }
  throw new Error(`envtest: ${file}: updating ${what} kept conflicting`);
}

export function message(body: unknown, text: string): string {
  const m = (body as { message?: unknown } | undefined)?.message;
  return typeof m === 'string' ? m : text.slice(0, 500);
}

/** Resolves with the time the CRD became Established, once it is served in every version. */
async function waitServed(client: AdminClient, crd: Crd, timeoutMs: number): Promise<number> {
  const name = crd.metadata?.name ?? '';
  let lastConditions = '';
  let establishedAt: number;
  try {
    establishedAt = await poll(`CRD ${name} to be Established`, timeoutMs, 50, async () => {
      const res = await client.call('GET', `${CRD_API}/${name}`);
      const conditions = (res.body as Crd | undefined)?.status?.conditions ?? [];
      lastConditions = conditions.map((c) => `${c.type}=${c.status}${c.message ? ` (${c.message})` : ''}`).join(', ');
      const established = conditions.find((c) => c.type === 'Established' && c.status === 'True');
      return established ? Date.parse(established.lastTransitionTime ?? '') || Date.now() : undefined;
    });
  } catch (err) {
    throw new Error(`${(err as Error).message}; conditions: ${lastConditions || 'none'}`);
  }
  const group = crd.spec?.group ?? '';
  const plural = crd.spec?.names?.plural ?? '';
  for (const version of crd.spec?.versions ?? []) {
    if (version.served === false) continue;
    await poll(`${plural}.${group}/${version.name} in discovery`, timeoutMs, 50, async () => {
      const res = await client.call('GET', `/apis/${group}/${version.name}`);
      const resources = (res.body as { resources?: { name: string }[] } | undefined)?.resources ?? [];
      return resources.some((r) => r.name === plural) ? true : undefined;
    });
    // The API server builds a CRD's storage on its first request and answers 429 until its watch
    // cache is filled (about 2 s): absorb that here so a test's first list or create just works.
    await poll(`${plural}.${group}/${version.name} to be listable`, timeoutMs, 50, async () => {
      const res = await client.call('GET', `/apis/${group}/${version.name}/${plural}?limit=1`);
      return res.status === 200 ? true : undefined;
    });
  }
  return establishedAt;
}

/**
 * kube-apiserver holds every create of a custom resource for 2 s while its CRD became Established
 * less than 2 s ago (apiextensions-apiserver's customresource_handler.go, for HA peers to catch up).
 * Waiting out that window here keeps it from landing in the first test.
 */
const JUST_CREATED_MS = 2000;

export async function installCrds(client: AdminClient, crds: { crd: Crd; file: string }[], timeoutMs: number): Promise<string[]> {
  for (const { crd, file } of crds) await createOrReplace(client, CRD_API, crd, `CRD ${crd.metadata?.name ?? ''}`, file);
  const established = await Promise.all(crds.map(({ crd }) => waitServed(client, crd, timeoutMs)));
  // Condition times have whole seconds, as the server compares them; a little margin on top.
  const settled = Math.max(0, ...established) + JUST_CREATED_MS + 50;
  if (settled > Date.now()) await sleep(settled - Date.now());
  return [...new Set(crds.map(({ crd }) => crd.metadata?.name ?? ''))];
}
