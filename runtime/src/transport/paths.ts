// REST paths for a kind: /api/v1/namespaces/ns/configmaps/name, /apis/group/version/plural/name/status.
import type { ResourceKind } from '../api/kind.js';

export function resourcePath(kind: ResourceKind, namespace?: string, name?: string, subresource?: string): string {
  let path = kind.group === '' ? `/api/${kind.version}` : `/apis/${kind.group}/${kind.version}`;
  if (kind.namespaced && namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${kind.plural}`;
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource) path += `/${subresource}`;
  return path;
}

/** `{app: 'x', tier: 'db'}` → `app=x,tier=db`; strings pass through. */
export function formatLabelSelector(selector: string | Record<string, string> | undefined): string | undefined {
  if (selector === undefined) return undefined;
  if (typeof selector === 'string') return selector === '' ? undefined : selector;
  const parts = Object.keys(selector)
    .sort()
    .map((k) => `${k}=${selector[k]}`);
  return parts.length === 0 ? undefined : parts.join(',');
}

export function describe(kind: ResourceKind, namespace?: string, name?: string): string {
  const key = kind.namespaced && namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
  return `${kind.plural}.${kind.group || 'core'} ${key}`.trimEnd();
}
