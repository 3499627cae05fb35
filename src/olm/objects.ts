// Small helpers over plain Kubernetes objects and the YAML files opgen writes for OLM.
import { toYaml } from '../common/yaml.js';
import type { KubeObject } from '../kustomize/render.js';

export type { KubeObject };

export const CSV_API_VERSION = 'operators.coreos.com/v1alpha1';
export const CSV_KIND = 'ClusterServiceVersion';

export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Orders [key, value] entries by key (for Object.fromEntries in a fixed order). */
export function byKey<T>(a: [string, T], b: [string, T]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

export function groupOf(apiVersion: string | undefined): string {
  const a = apiVersion ?? '';
  return a.includes('/') ? a.slice(0, a.indexOf('/')) : '';
}

export function versionOf(apiVersion: string | undefined): string {
  const a = apiVersion ?? '';
  return a.includes('/') ? a.slice(a.indexOf('/') + 1) : a;
}

export function nameOf(o: KubeObject): string {
  return o.metadata?.name ?? '';
}

/**
 * Existing values win over defaults, recursively through maps; lists and scalars the user wrote are kept
 * as written. This is how a rerun keeps every field the user set while adding fields opgen introduces.
 */
export function mergeKeepingUser(defaults: unknown, existing: unknown): unknown {
  if (existing === undefined) return defaults;
  if (isRecord(defaults) && isRecord(existing)) {
    const out: Record<string, unknown> = { ...existing };
    for (const [k, v] of Object.entries(defaults)) out[k] = mergeKeepingUser(v, existing[k]);
    return out;
  }
  return existing;
}

/** One YAML document without the leading `---` (the files OLM tools write look this way). */
export async function yamlDocument(value: object): Promise<string> {
  return (await toYaml([value])).replace(/^---\n/, '');
}

/** Parses one YAML document; undefined for empty text. Throws the yaml library's error on bad YAML. */
export async function parseYamlDocument(text: string): Promise<unknown> {
  const { parse } = await import('yaml');
  return parse(text, { maxAliasCount: -1 });
}

/** Every document of a YAML stream that is an object. */
export async function parseYamlObjects(text: string): Promise<KubeObject[]> {
  const { parseAllDocuments } = await import('yaml');
  const out: KubeObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if ('errors' in doc && doc.errors.length > 0) throw doc.errors[0]!;
    const v: unknown = doc.toJS({ maxAliasCount: -1 });
    if (isRecord(v)) out.push(v as KubeObject);
  }
  return out;
}
