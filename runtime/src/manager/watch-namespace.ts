// WATCH_NAMESPACE: the namespaces a namespace-scoped operator watches, as kubebuilder's --namespaced
// projects read it (comma-separated; empty or unset means every namespace).

/** The environment variable scaffolded projects read; config/manager sets it from the pod's namespace. */
export const WATCH_NAMESPACE = 'WATCH_NAMESPACE';

// DNS-1123 label: what the API server accepts as a namespace name.
const NAMESPACE_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Parses a WATCH_NAMESPACE value into the manager's `namespaces` option: `undefined` (every namespace)
 * for an unset or empty value, else the listed namespaces, trimmed, without duplicates. Throws an Error
 * naming the bad entry for anything that is not a namespace name, so a typo stops the manager at start
 * instead of leaving it watching nothing.
 */
export function watchNamespaces(value: string | undefined = process.env[WATCH_NAMESPACE]): string[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const names = value.split(',').map((n) => n.trim());
  const out: string[] = [];
  for (const name of names) {
    if (name === '') throw new Error(`${WATCH_NAMESPACE}="${value}" has an empty entry; list namespaces separated by single commas, e.g. team-a,team-b`);
    if (name.length > 63 || !NAMESPACE_RE.test(name)) {
      throw new Error(`${WATCH_NAMESPACE}="${value}": "${name}" is not a namespace name (lower-case letters, digits and '-', at most 63 characters)`);
    }
    if (!out.includes(name)) out.push(name);
  }
  return out;
}
