// The kinds a role manages, read from its files: every YAML mapping with a literal apiVersion and kind
// (a kubernetes.core.k8s definition, a template's manifest). `create api --ansible-role <dir>` turns
// them into RBAC markers and dependent watches; a kind written with Jinja ({{ … }}) cannot be read and
// is left to the user, as operator-sdk leaves config/rbac/role.yaml to them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { pluralize } from '../naming/index.js';

export interface RoleKind {
  apiVersion: string;
  kind: string;
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
}

/** Built-in kinds that are cluster-scoped (the rest are taken as namespaced). */
const clusterScoped = new Set(['Namespace', 'Node', 'PersistentVolume', 'ClusterRole', 'ClusterRoleBinding', 'StorageClass',
  'CustomResourceDefinition', 'PriorityClass', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'APIService',
  'IngressClass', 'RuntimeClass', 'CSIDriver', 'CSINode', 'VolumeAttachment', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);

export function roleKinds(roleDir: string): RoleKind[] {
  const found = new Map<string, RoleKind>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (typeof o.apiVersion === 'string' && typeof o.kind === 'string' && !/[{}]/.test(o.apiVersion + o.kind) && /^[A-Z]/.test(o.kind)) {
      const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') as [string, string] : ['', o.apiVersion];
      found.set(`${o.apiVersion}/${o.kind}`, { apiVersion: o.apiVersion, kind: o.kind, group, version, plural: pluralize(o.kind), namespaced: !clusterScoped.has(o.kind) });
    }
    Object.values(o).forEach(visit);
  };
  for (const file of yamlFiles(roleDir)) {
    // Jinja in a template makes it invalid YAML more often than not: what parses is read, the rest skipped.
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      if ('errors' in doc && doc.errors.length === 0) visit(doc.toJS());
    }
  }
  return [...found.values()].sort((a, b) => `${a.group}/${a.kind}`.localeCompare(`${b.group}/${b.kind}`));
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return yamlFiles(p);
    return /\.ya?ml(\.j2)?$/.test(f) ? [p] : [];
  });
}
