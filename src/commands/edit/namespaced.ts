// `opgen edit --namespaced[=false]`: switch a project between a cluster-scoped operator (ClusterRole,
// every namespace) and a namespace-scoped one (Roles in its namespace, WATCH_NAMESPACE from the pod's
// namespace), as kubebuilder v4.12's `edit --namespaced` does, plus what kubebuilder leaves as manual
// steps: the controllers' RBAC markers get (or lose) namespace=<project>-system. A project that needs a
// ClusterRole (a cluster-scoped kind, a marker for nodes or non-resource URLs) is refused.
import { isMap, isSeq, parseAllDocuments, stringify, type Document, type YAMLMap, type YAMLSeq } from 'yaml';
import { OpgenError } from '../../diag/diagnostic.js';
import { createRegistry, parseArguments, splitMarker } from '../../markers/index.js';
import { managerNamespace, type ProjectConfig } from '../../project/index.js';
import { RBAC_MARKER } from '../../rbac/index.js';
import { renderPartial, type Tree } from '../../scaffold/index.js';
import { clusterScopedResource } from '../../common/kubernetes-builtins.js';
import { managerAccount, managerRules, watchNamespaceRoles, watchNamespaceTransformers, WATCH_ROLES_FILE, WATCH_TRANSFORMERS_DIR } from '../../rbac/watch-namespaces.js';

const MANAGER = 'config/manager/manager.yaml';
const ROLE = 'config/rbac/role.yaml';
const ROLE_BINDING = 'config/rbac/role_binding.yaml';
const MAIN = 'src/main.ts';
const RBAC_KUSTOMIZATION = 'config/rbac/kustomization.yaml';
const DEFAULT_KUSTOMIZATION = 'config/default/kustomization.yaml';
const WATCH_ROLES = `config/rbac/${WATCH_ROLES_FILE}`;
const WATCH_TRANSFORMERS = `config/rbac/${WATCH_TRANSFORMERS_DIR}`;
/** config/default's entry for the transformers (a kustomization folder: files outside its root are refused). */
const TRANSFORMERS_ENTRY = `../rbac/${WATCH_TRANSFORMERS_DIR}`;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

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

/** `--watch-namespaces a,b` → the names, checked: DNS-1123 labels, none twice, not the operator's own. */
export function parseWatchNamespaces(value: string, project: ProjectConfig): string[] {
  const names = value.split(',').map((n) => n.trim()).filter((n) => n !== '');
  const own = managerNamespace(project);
  for (const n of names) {
    if (n.length > 63 || !DNS_LABEL.test(n)) throw new OpgenError(`'${n}' is not a namespace name`, { flag: '--watch-namespaces' }, 'list namespace names (lowercase letters, digits and -, at most 63), comma-separated');
    if (n === own) throw new OpgenError(`'${n}' is the operator's own namespace, which it always watches`, { flag: '--watch-namespaces' }, 'list only the other namespaces');
  }
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new OpgenError(`'${twice}' is listed twice`, { flag: '--watch-namespaces' }, 'list each namespace once');
  return names;
}

/**
 * Sets the extra namespaces a namespace-scoped operator watches: WATCH_NAMESPACE in config/manager (its own
 * namespace, then these), the manager Role and RoleBinding in each (config/rbac/watch_namespaces.yaml, from
 * the manager Role generated so far; `opgen generate` keeps it current) and the kustomize wiring that keeps
 * them in their namespaces. [] removes all of it.
 */
export function setWatchNamespaces(tree: Tree, project: ProjectConfig, namespaces: readonly string[]): string[] {
  setManagerWatchEnv(tree, namespaces);
  const on = namespaces.length > 0;
  if (on) {
    const role = parseAllDocuments(tree.read(ROLE) ?? '').map((d) => d.toJS() as Record<string, unknown> | null).filter((d): d is Record<string, unknown> => d !== null);
    const header = '# Written by `opgen edit --watch-namespaces` and kept current by `opgen generate` (from PROJECT watchNamespaces\n# and the +kubebuilder:rbac markers): the manager Role in each extra watched namespace.\n';
    const account = managerAccount(tree.read(DEFAULT_KUSTOMIZATION), { name: `${project.projectName}-controller-manager`, namespace: managerNamespace(project) });
    tree.write(WATCH_ROLES, header + yamlDocs(watchNamespaceRoles(namespaces, managerRules(role, managerNamespace(project), 'manager-role'), account)));
    tree.write(`${WATCH_TRANSFORMERS}/kustomization.yaml`, '# Listed under config/default\'s transformers: puts the watched namespaces\' Roles back into their namespaces after\n# config/default\'s namespace: (written by `opgen edit --watch-namespaces`).\n' + stringify({ resources: ['transformers.yaml'] }, { indentSeq: false }));
    tree.write(`${WATCH_TRANSFORMERS}/transformers.yaml`, yamlDocs(watchNamespaceTransformers(namespaces)));
  } else {
    for (const p of [WATCH_ROLES, `${WATCH_TRANSFORMERS}/kustomization.yaml`, `${WATCH_TRANSFORMERS}/transformers.yaml`]) tree.delete(p);
  }
  setListEntry(tree, RBAC_KUSTOMIZATION, 'resources', WATCH_ROLES_FILE, on);
  setListEntry(tree, DEFAULT_KUSTOMIZATION, 'transformers', TRANSFORMERS_ENTRY, on);
  // OLM v0 installs an operator for several namespaces (an OperatorGroup's targetNamespaces) only with MultiNamespace.
  for (const path of tree.list('config/manifests/bases').filter((p) => p.endsWith('.clusterserviceversion.yaml'))) {
    const text = tree.read(path)!;
    const next = text.replace(/^(\s*-?\s*supported: )(true|false)(\s*\n\s*type: MultiNamespace)$/m, (_m, a: string, _v: string, b: string) => `${a}${String(on)}${b}`);
    if (next !== text) tree.write(path, next);
  }
  return on ? ['Next: `npm run manifests` writes the manager Role\'s rules into config/rbac/watch_namespaces.yaml for each watched namespace.'] : [];
}

function yamlDocs(objects: readonly object[]): string {
  return objects.map((o) => `---\n${stringify(o, { indentSeq: false, lineWidth: 0 })}`).join('');
}

/**
 * Adds (or removes) the line `- item` in a kustomization's top-level list `key`, as text so the rest of the
 * file stays byte for byte (a key the removal leaves empty goes too; a missing key is added at the end).
 */
function setListEntry(tree: Tree, path: string, key: string, item: string, on: boolean): void {
  const text = tree.read(path);
  if (text === undefined) throw new OpgenError(`${path} not found`, { file: path }, 'restore it (opgen init writes it) to change the watched namespaces');
  const lines = text.split('\n');
  const keyAt = lines.findIndex((l) => l.trimEnd() === `${key}:`);
  const items: number[] = [];
  for (let i = keyAt + 1; keyAt >= 0 && i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith('- ')) items.push(i);
    else if (l !== '' && !l.startsWith('#') && !l.startsWith(' ')) break;
  }
  const itemAt = items.find((i) => lines[i]!.slice(2).trim() === item);
  if (on && itemAt === undefined) {
    if (keyAt >= 0) lines.splice((items.at(-1) ?? keyAt) + 1, 0, `- ${item}`);
    else lines.splice(lines.at(-1) === '' ? lines.length - 1 : lines.length, 0, `${key}:`, `- ${item}`);
  }
  if (!on && itemAt !== undefined) {
    lines.splice(itemAt, 1);
    if (items.length === 1) lines.splice(keyAt, 1);
  }
  const next = lines.join('\n');
  if (next !== text) tree.write(path, next);
}

/**
 * WATCH_NAMESPACE of the manager container: the pod's namespace alone (a fieldRef), or with extra namespaces
 * `$(POD_NAMESPACE),a,b`, POD_NAMESPACE being that fieldRef (Kubernetes expands $(VAR) from earlier entries).
 */
function setManagerWatchEnv(tree: Tree, extra: readonly string[]): void {
  const text = tree.read(MANAGER);
  if (text === undefined) throw new OpgenError(`${MANAGER} not found`, { file: MANAGER }, 'restore it (opgen init writes it) to change the watched namespaces');
  const docs = parseAllDocuments(text);
  const container = docs.map(managerContainer).find((c) => c !== undefined);
  const env = container?.get('env', true);
  const doc = docs.find((d) => managerContainer(d) === container);
  const at = (name: string): number => (isSeq(env) ? env.items.findIndex((e) => isMap(e) && e.get('name') === name) : -1);
  if (!doc || !isSeq(env) || at('WATCH_NAMESPACE') < 0) {
    throw new OpgenError('the manager container has no WATCH_NAMESPACE env entry', { file: MANAGER }, 'run `opgen edit --namespaced` first (it adds the entry)');
  }
  const podNamespace = { fieldRef: { fieldPath: 'metadata.namespace' } };
  if (extra.length > 0) {
    if (at('POD_NAMESPACE') < 0) env.items.splice(at('WATCH_NAMESPACE'), 0, doc.createNode({ name: 'POD_NAMESPACE', valueFrom: podNamespace }));
    env.items[at('WATCH_NAMESPACE')] = doc.createNode({ name: 'WATCH_NAMESPACE', value: ['$(POD_NAMESPACE)', ...extra].join(',') });
  } else {
    env.items[at('WATCH_NAMESPACE')] = doc.createNode({ name: 'WATCH_NAMESPACE', valueFrom: podNamespace });
    if (at('POD_NAMESPACE') >= 0) env.items.splice(at('POD_NAMESPACE'), 1);
  }
  tree.write(MANAGER, docs.map((d) => d.toString({ lineWidth: 0, indentSeq: false })).join(''));
}
