// `opgen edit --namespaced[=false]`: switch a project between a cluster-scoped operator (ClusterRole,
// every namespace) and a namespace-scoped one (Roles in its namespace, WATCH_NAMESPACE from the pod's
// namespace), as kubebuilder v4.12's `edit --namespaced` does, plus what kubebuilder leaves as manual
// steps: the controllers' RBAC markers get (or lose) namespace=<project>-system. A project that needs a
// ClusterRole (a cluster-scoped kind, a marker for nodes or non-resource URLs) is refused.
import { isMap, isSeq, parseAllDocuments, type Document, type YAMLMap, type YAMLSeq } from 'yaml';
import { OpgenError } from '../../diag/diagnostic.js';
import { createRegistry, parseArguments, splitMarker } from '../../markers/index.js';
import { managerNamespace, type ProjectConfig } from '../../project/index.js';
import { RBAC_MARKER } from '../../rbac/index.js';
import { renderPartial, type Tree } from '../../scaffold/index.js';
import { clusterScopedResource } from '../../rbac/cluster-scoped.js';

const MANAGER = 'config/manager/manager.yaml';
const ROLE = 'config/rbac/role.yaml';
const ROLE_BINDING = 'config/rbac/role_binding.yaml';
const MAIN = 'src/main.ts';

interface RbacLine {
  file: string;
  /** 0-based index into the file's lines. */
  index: number;
  /** 1-based column of the `+`. */
  column: number;
  value: { groups?: string[]; resources?: string[]; urls?: string[]; namespace?: string };
}

/** Stages the switch; returns notes for the user (next steps). Throws an OpgenError for a project that cannot switch. */
export function switchNamespaced(tree: Tree, project: ProjectConfig, on: boolean): string[] {
  const namespace = managerNamespace(project);
  const markers = rbacMarkers(tree);
  if (on) refuseClusterScoped(tree, project, markers);
  rewriteMarkers(tree, markers, namespace, on);

  const data = { projectName: project.projectName, namespaced: on };
  // role.yaml is generated; until `npm run manifests` runs, a placeholder of the right kind keeps the
  // binding's roleRef valid.
  tree.write(ROLE, renderPartial('manager-role', data));
  tree.write(ROLE_BINDING, renderPartial('manager-role-binding', data));
  setWatchNamespaceEnv(tree, on);
  for (const path of tree.list('config/rbac').filter((p) => /_(admin|editor|viewer)_role\.yaml$/.test(p))) {
    // The per-kind helper roles follow the project's scope, as kubebuilder's do.
    const text = tree.read(path)!;
    tree.write(path, on ? text.replace(/^kind: ClusterRole$/m, 'kind: Role') : text.replace(/^kind: Role$/m, 'kind: ClusterRole'));
  }

  const notes = ['Next: regenerate config/rbac/role.yaml from the markers with `npm run manifests`.'];
  notes.push(...setBaseCsvInstallModes(tree, project, on));
  const main = tree.read(MAIN);
  if (main !== undefined && !main.includes('WATCH_NAMESPACE')) {
    notes.push(`${MAIN} does not read WATCH_NAMESPACE (scaffolded before opgen knew it): pass \`namespaces: watchNamespaces(process.env.WATCH_NAMESPACE)\` (from @opgen/runtime) to createManager.`);
  }
  if (on && project.resources.some((r) => r.webhooks)) {
    notes.push('Webhooks stay cluster-wide: the API server sends them requests from every namespace. Limit them with a namespaceSelector (docs/multi-tenancy.md).');
  }
  return notes;
}

/** Every `// +kubebuilder:rbac:` line under src/, parsed (markers opgen cannot parse are left to `opgen generate`). */
function rbacMarkers(tree: Tree): RbacLine[] {
  const registry = createRegistry();
  registry.define(RBAC_MARKER);
  const found: RbacLine[] = [];
  for (const file of tree.list('src').filter((f) => /\.(ts|mts|cts)$/.test(f) && !/\.d\.ts$/.test(f))) {
    const lines = tree.read(file)!.split('\n');
    lines.forEach((line, index) => {
      const m = /^(\s*\/\/\s*)\+(kubebuilder:rbac:.*?)\s*$/.exec(line);
      if (!m) return;
      const split = splitMarker(m[2]!, (name) => registry.lookup(name));
      if (!split) return;
      let value: RbacLine['value'];
      try {
        value = parseArguments(split) as RbacLine['value'];
      } catch {
        return;
      }
      found.push({ file, index, column: m[1]!.length + 1, value });
    });
  }
  return found;
}

/** A namespace-scoped operator holds only Roles; anything only a ClusterRole can grant stops the switch. */
function refuseClusterScoped(tree: Tree, project: ProjectConfig, markers: RbacLine[]): void {
  const clusterKind = project.resources.find((r) => r.api?.namespaced === false && !r.external && !r.core);
  if (clusterKind) {
    const where = clusterKind.path ? scopeMarkerPosition(tree, clusterKind.path) : { file: 'PROJECT' };
    throw new OpgenError(
      `${clusterKind.kind} (${clusterKind.group}/${clusterKind.version}) is cluster-scoped, and a namespace-scoped operator holds only Roles, which cannot grant access to it`,
      where,
      'keep the project cluster-scoped, or drop scope=Cluster from the kind first',
    );
  }
  for (const m of markers) {
    if (m.value.namespace) continue;
    const at = { file: m.file, line: m.index + 1, column: m.column };
    if (m.value.urls && m.value.urls.length > 0) {
      throw new OpgenError(`+kubebuilder:rbac for non-resource URLs (${m.value.urls.join(', ')}) needs a ClusterRole, which a namespace-scoped operator does not hold`, at, 'remove the marker, or keep the project cluster-scoped');
    }
    for (const resource of m.value.resources ?? []) {
      for (const group of m.value.groups ?? ['']) {
        if (clusterScopedResource(group, resource)) {
          throw new OpgenError(`+kubebuilder:rbac for ${resource} needs a ClusterRole (${resource.split('/')[0]} are cluster-scoped), which a namespace-scoped operator does not hold`, at, 'remove the marker, or keep the project cluster-scoped');
        }
      }
    }
  }
}

/** Where `scope=Cluster` stands in a types module, for the error; the file alone when it is not found. */
function scopeMarkerPosition(tree: Tree, path: string): { file: string; line?: number; column?: number } {
  const lines = (tree.read(path) ?? '').split('\n');
  const index = lines.findIndex((l) => /\+kubebuilder:resource:.*scope=Cluster/.test(l));
  return index < 0 ? { file: path } : { file: path, line: index + 1, column: lines[index]!.indexOf('scope=Cluster') + 1 };
}

/** Adds `,namespace=<ns>` to markers without a namespace, or removes exactly that from them. */
function rewriteMarkers(tree: Tree, markers: RbacLine[], namespace: string, on: boolean): void {
  const byFile = new Map<string, RbacLine[]>();
  for (const m of markers) byFile.set(m.file, [...(byFile.get(m.file) ?? []), m]);
  for (const [file, list] of byFile) {
    const lines = tree.read(file)!.split('\n');
    for (const m of list) {
      const line = lines[m.index]!;
      if (on && m.value.namespace === undefined) lines[m.index] = line.replace(/\s*$/, '') + `,namespace=${namespace}`;
      if (!on && m.value.namespace === namespace) {
        lines[m.index] = line.replace(`,namespace=${namespace}`, '').replace(`namespace=${namespace},`, '');
      }
    }
    tree.write(file, lines.join('\n'));
  }
}

/** Adds (or removes) the manager container's WATCH_NAMESPACE env from the pod's namespace, keeping the rest of the file as it is. */
function setWatchNamespaceEnv(tree: Tree, on: boolean): void {
  const text = tree.read(MANAGER);
  if (text === undefined) throw new OpgenError(`${MANAGER} not found`, { file: MANAGER }, 'restore it (opgen init writes it) to switch the scope');
  const docs = parseAllDocuments(text);
  const container = docs.map(managerContainer).find((c) => c !== undefined);
  if (!container) {
    throw new OpgenError('no Deployment with a container named "manager"', { file: MANAGER }, 'restore the controller-manager Deployment opgen init wrote');
  }
  const doc = docs.find((d) => managerContainer(d) === container)!;
  let env = container.get('env', true) as YAMLSeq | undefined;
  const index = env && isSeq(env) ? env.items.findIndex((e) => isMap(e) && e.get('name') === 'WATCH_NAMESPACE') : -1;
  if (on && index < 0) {
    const entry = doc.createNode({ name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } });
    if (env && isSeq(env)) {
      env.items.push(entry);
    } else {
      env = doc.createNode([entry]) as YAMLSeq;
      const pair = doc.createPair('env', env);
      (pair.key as { commentBefore?: string }).commentBefore = ' The namespaces the manager watches (comma-separated; empty: all). Its own by default, where\n config/rbac binds its Role.';
      // After `name`, where opgen init puts it.
      const at = container.items.findIndex((p) => (p.key as { value?: unknown } | null)?.value === 'name');
      container.items.splice(at < 0 ? container.items.length : at + 1, 0, pair);
    }
  }
  if (!on && env && isSeq(env) && index >= 0) {
    env.items.splice(index, 1);
    if (env.items.length === 0) container.delete('env');
  }
  tree.write(MANAGER, docs.map((d) => d.toString({ lineWidth: 0, indentSeq: false })).join(''));
}

function managerContainer(doc: Document): YAMLMap | undefined {
  if (doc.get('kind') !== 'Deployment') return undefined;
  const containers = doc.getIn(['spec', 'template', 'spec', 'containers'], true);
  if (!isSeq(containers)) return undefined;
  return containers.items.find((c): c is YAMLMap => isMap(c) && c.get('name') === 'manager');
}

/**
 * The base CSV's OwnNamespace and AllNamespaces follow the scope, as `generate kustomize manifests` sets
 * them for a new CSV (a conversion webhook keeps AllNamespaces: OLM allows nothing else then); the other
 * modes and the rest of the file are the user's. Edited as text so the file keeps its layout.
 */
function setBaseCsvInstallModes(tree: Tree, project: ProjectConfig, on: boolean): string[] {
  const own = on && !project.resources.some((r) => r.webhooks?.conversion);
  const notes: string[] = [];
  for (const path of tree.list('config/manifests/bases').filter((p) => p.endsWith('.clusterserviceversion.yaml'))) {
    const text = tree.read(path)!;
    let seen = 0;
    const next = text.replace(/^(\s*-?\s*supported: )(true|false)(\s*\n\s*type: )(OwnNamespace|AllNamespaces)$/gm, (_m, a: string, _v: string, b: string, type: string) => {
      seen++;
      return `${a}${String(type === 'OwnNamespace' ? own : !own)}${b}${type}`;
    });
    if (seen < 2) notes.push(`${path}: set installModes by hand (OwnNamespace supported: ${own}, AllNamespaces supported: ${!own}); its entries are not in the form opgen writes.`);
    if (next !== text) tree.write(path, next);
  }
  return notes;
}
