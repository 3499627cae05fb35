// The variables a role sees, named as operator-sdk's Ansible operator names them: the spec's fields
// snake_cased at the top level, ansible_operator_meta (name, namespace), the whole object as
// _<group>_<kind> and the raw spec as _<group>_<kind>_spec (group dots and dashes as underscores),
// then the watch's vars, then the finalizer's vars on a deletion run.
import type { KubeObject } from '../api/types.js';
import type { AnsibleWatch } from './watches.js';

/** Go's common initialisms, which operator-sdk keeps as one word (IPs, URLs: their plurals too). Longest first. */
const initialisms = ['ASCII', 'HTTPS', 'JSON', 'GUID', 'HTML', 'HTTP', 'UUID', 'UTF8', 'XMPP', 'XSRF', 'ACL', 'API', 'CPU', 'CSS', 'DNS', 'EOF',
  'LHS', 'QPS', 'RAM', 'RHS', 'RPC', 'SLA', 'SMTP', 'SQL', 'SSH', 'TCP', 'TLS', 'TTL', 'UDP', 'UID', 'URI', 'URL', 'XML', 'XSS', 'ID', 'IP', 'UI', 'VM']
  .sort((a, b) => b.length - a.length);

/**
 * A spec key as operator-sdk's Ansible operator names the variable: replicaCount → replica_count,
 * egressIPs → egress_ips, sizeK8sBuckets → size_k8s_buckets; a key starting with a capital gets a leading
 * underscore (ThisField → _this_field), except one starting with a singular initialism (URLPath →
 * url_path): its output, quirks included, so the variables of roles written for it keep their names.
 */
export function toSnake(name: string): string {
  const s = name.replace(/ /g, '_');
  if (!/[a-z]/.test(s)) return /^[A-Z]/.test(s) ? `_${s.toLowerCase()}` : s.toLowerCase();
  let out = '';
  const sep = () => (out === '' || out.endsWith('_') ? '' : '_');
  for (let i = 0; i < s.length;) {
    const c = s[i]!;
    if (c < 'A' || c > 'Z') {
      out += c;
      i++;
      continue;
    }
    const word = initialisms.find((w) => s.startsWith(w, i));
    if (!word) {
      out += `${i === 0 ? '_' : sep()}${c.toLowerCase()}`;
      i++;
      continue;
    }
    const plural = s[i + word.length] === 's';
    out += `${i === 0 ? (plural ? '_' : '') : sep()}${word.toLowerCase()}${plural ? 's' : ''}`;
    i += word.length + (plural ? 1 : 0);
    if (/[a-z0-9]/.test(s[i] ?? '')) out += '_';
  }
  return out;
}

/** Every key of maps (nested, and inside lists) snake_cased; values other than maps and lists as they are. */
export function mapToSnake(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(mapToSnake);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [toSnake(k), mapToSnake(v)]));
  }
  return value;
}

/** Ansible's marker for a string it must not template ({{ … }} in a spec stays text). */
function markUnsafe(value: unknown): unknown {
  if (typeof value === 'string') return { __ansible_unsafe: value };
  if (Array.isArray(value)) return value.map(markUnsafe);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, markUnsafe(v)]));
  return value;
}

/** `_cache.example.com` + Memcached → `_cache_example_com_memcached`. */
export function objectVariable(group: string, kind: string): string {
  return `_${group}_${kind.toLowerCase()}`.replace(/[.-]/g, '_');
}

export function extraVars(watch: AnsibleWatch, obj: KubeObject & { spec?: unknown }, finalizerRun: boolean): Record<string, unknown> {
  const spec = obj.spec && typeof obj.spec === 'object' && !Array.isArray(obj.spec) ? obj.spec as Record<string, unknown> : {};
  const unsafe = (v: unknown) => (watch.markUnsafe ? markUnsafe(v) : v);
  const vars: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(watch.snakeCaseParameters ? mapToSnake(spec) as Record<string, unknown> : spec)) vars[k] = unsafe(v);
  vars.ansible_operator_meta = { name: obj.metadata?.name, namespace: obj.metadata?.namespace ?? '' };
  const key = objectVariable(watch.group, watch.kind);
  vars[key] = unsafe(obj);
  vars[`${key}_spec`] = unsafe(spec);
  Object.assign(vars, watch.vars);
  if (finalizerRun) Object.assign(vars, watch.finalizer?.vars ?? {});
  return vars;
}
