// ConversionReview at /convert: each object goes spoke → hub → spoke through the conversions
// registered for its group and kind, in order, answered in desiredAPIVersion. Of metadata only labels
// and annotations may change (the API server refuses anything else), so the rest is taken from the
// object as sent. Any failure fails the whole review (HTTP 200, result.status Failure), as the API
// server expects.
import type { KubeObject } from '../api/types.js';
import type { Logger } from '../log/index.js';
import type { Conversion, ConversionReview } from './types.js';

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export function conversionKey(group: string, kind: string): string {
  return `${kind}.${group}`;
}

async function convertOne(obj: KubeObject, desired: string, conversions: Map<string, Conversion>): Promise<KubeObject> {
  const from = splitApiVersion(obj.apiVersion ?? '');
  const to = splitApiVersion(desired);
  if (from.group !== to.group) throw new Error(`cannot convert ${obj.apiVersion} ${obj.kind} to another group (${desired})`);
  if (from.version === to.version) return obj;
  const conversion = conversions.get(conversionKey(from.group, obj.kind ?? ''));
  if (!conversion) throw new Error(`no conversion registered for ${obj.kind}.${from.group}`);
  const spoke = (version: string) => {
    const s = conversion.spokes[version];
    if (!s) throw new Error(`${obj.kind}.${from.group}: version ${version} is neither the hub (${conversion.hub}) nor a registered spoke`);
    return s;
  };
  const hub = from.version === conversion.hub ? structuredClone(obj) : await spoke(from.version).toHub(structuredClone(obj));
  if (hub !== null && typeof hub === 'object') (hub as KubeObject).apiVersion = `${to.group ? `${to.group}/` : ''}${conversion.hub}`;
  const converted = (to.version === conversion.hub ? hub : await spoke(to.version).fromHub(hub)) as KubeObject;
  if (converted === null || typeof converted !== 'object') throw new Error(`${obj.kind}.${from.group}: conversion to ${desired} returned no object`);
  const given = converted.metadata;
  const metadata = { ...obj.metadata };
  if (given && 'labels' in given) metadata.labels = given.labels;
  if (given && 'annotations' in given) metadata.annotations = given.annotations;
  if (metadata.labels === undefined) delete metadata.labels;
  if (metadata.annotations === undefined) delete metadata.annotations;
  return { ...converted, apiVersion: desired, kind: obj.kind, metadata };
}

/** Answers one ConversionReview (already parsed and checked to carry a request). */
export async function convertReview(body: ConversionReview, conversions: Map<string, Conversion>, log: Logger): Promise<ConversionReview> {
  const { uid, desiredAPIVersion, objects } = body.request!;
  try {
    const convertedObjects: KubeObject[] = [];
    for (const obj of objects ?? []) convertedObjects.push(await convertOne(obj, desiredAPIVersion, conversions));
    return { apiVersion: body.apiVersion, kind: 'ConversionReview', response: { uid, convertedObjects, result: { status: 'Success' } } };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log.error('conversion failed', err, { uid, desiredAPIVersion });
    return { apiVersion: body.apiVersion, kind: 'ConversionReview', response: { uid, convertedObjects: [], result: { status: 'Failure', message } } };
  }
}

/**
 * The answer to a request that is not a ConversionReview this server can handle: HTTP 200 with
 * `result.status: Failure` and the message (the API server fails the read or write with it), in the
 * review's apiVersion when it was one we know.
 */
export function failedConversion(body: unknown, message: string): ConversionReview {
  const r = (body ?? {}) as { apiVersion?: unknown; request?: { uid?: unknown } };
  const apiVersion = r.apiVersion === 'apiextensions.k8s.io/v1beta1' ? 'apiextensions.k8s.io/v1beta1' : 'apiextensions.k8s.io/v1';
  const uid = typeof r.request?.uid === 'string' ? r.request.uid : '';
  return { apiVersion, kind: 'ConversionReview', response: { uid, convertedObjects: [], result: { status: 'Failure', message } } };
}
