// RBAC markers (+kubebuilder:rbac) → ClusterRole/Role objects, merged and ordered exactly as controller-gen does.
import type { CollectedMarker } from '../markers/index.js';
import { byteCompare } from '../common/go-order.js';

interface Rule {
  groups: string[];
  resources: string[];
  resourceNames: string[];
  urls: string[];
  verbs: string[];
}

interface RbacMarker {
  groups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
  urls?: string[];
  namespace?: string;
  roleName?: string;
}

function dedupSort(list: string[]): string[] {
  return [...new Set(list)].sort(byteCompare);
}

function normalize(r: Rule): Rule {
  return {
    groups: dedupSort(r.groups),
    resources: dedupSort(r.resources),
    resourceNames: dedupSort(r.resourceNames),
    urls: dedupSort(r.urls),
    verbs: dedupSort(r.verbs),
  };
}

const j = (l: string[]): string => l.join('&');
const key = (r: Rule): string => `${j(r.groups)} + ${j(r.resources)} + ${j(r.resourceNames)} + ${j(r.urls)}`;

/** Merges rules whose `keyOf` matches by concatenating the `field` lists. */
function mergeBy(rules: Rule[], keyOf: (r: Rule) => string, field: keyof Rule): Rule[] {
  const groups = new Map<string, Rule[]>();
  for (const r of rules) groups.set(keyOf(r), [...(groups.get(keyOf(r)) ?? []), r]);
  const byKey = new Map<string, Rule>();
  for (const list of groups.values()) {
    const merged = normalize({ ...list[0]!, [field]: list.flatMap((r) => r[field]) });
    byKey.set(key(merged), merged);
  }
  return [...byKey.values()];
}

function normalizeRules(input: Rule[]): Record<string, string[]>[] {
  const byKey = new Map<string, Rule>();
  for (const raw of input) {
    const r = normalize({ ...raw, groups: raw.groups.map((g) => (g === 'core' ? '' : g)) });
    const existing = byKey.get(key(r));
    if (existing) existing.verbs = dedupSort([...existing.verbs, ...r.verbs]);
    else byKey.set(key(r), r);
  }
  let rules = [...byKey.values()];
  rules = mergeBy(rules, (r) => `${j(r.groups)} + ${j(r.resourceNames)} + ${j(r.urls)} + ${j(r.verbs)}`, 'resources');
  rules = mergeBy(rules, (r) => `${j(r.resources)} + ${j(r.resourceNames)} + ${j(r.urls)} + ${j(r.verbs)}`, 'groups');
  rules = mergeBy(rules, (r) => `${j(r.groups)} + ${j(r.resources)} + ${j(r.resourceNames)} + ${j(r.verbs)}`, 'urls');
  rules.sort((a, b) => byteCompare(key(a), key(b)));
  return rules.map((r) => {
    const out: Record<string, string[]> = {};
    if (r.groups.length > 0) out.apiGroups = r.groups;
    if (r.urls.length > 0) out.nonResourceURLs = r.urls;
    if (r.resourceNames.length > 0) out.resourceNames = r.resourceNames;
    if (r.resources.length > 0) out.resources = r.resources;
    out.verbs = r.verbs.includes('*') ? ['*'] : r.verbs;
    return out;
  });
}

/** The role objects for every `+kubebuilder:rbac` marker, ClusterRoles (namespace "") first. */
export function generateRoles(markers: CollectedMarker[], defaultRoleName: string): Record<string, unknown>[] {
  const byRole = new Map<string, { namespace: string; roleName: string; rules: Rule[] }>();
  for (const m of markers) {
    if (m.definition.name !== 'kubebuilder:rbac') continue;
    const v = m.value as RbacMarker;
    const namespace = v.namespace ?? '';
    const roleName = v.roleName || defaultRoleName;
    const k = `${namespace}\u0000${roleName}`;
    const entry = byRole.get(k) ?? { namespace, roleName, rules: [] };
    byRole.set(k, entry);
    const base = { groups: [...(v.groups ?? [])], resourceNames: v.resourceNames ?? [], urls: v.urls ?? [], verbs: v.verbs };
    const resources = v.resources ?? [];
    if (resources.length === 0) entry.rules.push({ ...base, resources: [] });
    for (const resource of resources) entry.rules.push({ ...base, groups: [...base.groups], resources: [resource] });
  }
  const roles = [...byRole.values()].sort((a, b) => byteCompare(a.namespace, b.namespace) || byteCompare(a.roleName, b.roleName));
  const out: Record<string, unknown>[] = [];
  for (const role of roles) {
    const rules = normalizeRules(role.rules);
    if (rules.length === 0) continue;
    out.push({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: role.namespace === '' ? 'ClusterRole' : 'Role',
      metadata: role.namespace === '' ? { name: role.roleName } : { name: role.roleName, namespace: role.namespace },
      rules,
    });
  }
  return out;
}
