// `opgen generate kustomize manifests`: config/manifests/bases/<package>.clusterserviceversion.yaml, the
// fields of the ClusterServiceVersion a person writes (display name, description, icon, keywords,
// maintainers, provider, links, maturity, minKubeVersion, installModes), plus the owned CRD entries the
// API types' +operator-sdk:csv markers describe. A rerun keeps every field already in the file; the
// marker-derived entries are merged into the user's (what a marker states wins, the rest is kept).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MIN_KUBE_VERSION } from '../common/kube-version.js';
import { OpgenError } from '../diag/diagnostic.js';
import { pluralize } from '../naming/index.js';
import type { ProjectConfig } from '../project/index.js';
import { renderTemplates, type Tree } from '../scaffold/index.js';
import { readOwnedCrdInfo, splitWords, type Derived, type Descriptor, type OwnedCrdInfo } from './descriptors.js';
import { CSV_API_VERSION, CSV_KIND, isRecord, mergeKeepingUser, parseYamlDocument, parseYamlObjects, yamlDocument } from './objects.js';

export const SCORECARD_IMAGE = 'quay.io/operator-framework/scorecard-test:v1.42.0';

export function baseCsvPath(pkg: string): string {
  return `config/manifests/bases/${pkg}.clusterserviceversion.yaml`;
}

/** The owned CRD entry as the CSV spells it. */
export interface OwnedEntry {
  name: string;
  version: string;
  kind: string;
  displayName?: string;
  description?: string;
  resources?: { kind: string; version: string; name: string }[];
  specDescriptors?: Descriptor[];
  statusDescriptors?: Descriptor[];
  [k: string]: unknown;
}

/**
 * Defaults of the hand-written fields, as operator-sdk's base CSV has them. A namespace-scoped project
 * (`init --namespaced`) watches its own namespace (WATCH_NAMESPACE from the pod's namespace) with Roles
 * bound there, so it offers OwnNamespace, not AllNamespaces; OLM refuses anything but AllNamespaces for
 * an operator with conversion webhooks, so such a project keeps AllNamespaces.
 */
function defaultBaseCsv(pkg: string, ownNamespace: boolean, minKubeVersion: string, multiNamespace = false): Record<string, unknown> {
  const display = splitWords(pkg.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' '));
  return {
    apiVersion: CSV_API_VERSION,
    kind: CSV_KIND,
    metadata: {
      annotations: { 'alm-examples': '[]', capabilities: 'Basic Install' },
      name: `${pkg}.v0.0.0`,
      namespace: 'placeholder',
    },
    spec: {
      apiservicedefinitions: {},
      customresourcedefinitions: {},
      description: `${display}: TODO(user) describe what the operator manages and how.`,
      displayName: display,
      icon: [{ base64data: '', mediatype: '' }],
      install: { spec: { deployments: null }, strategy: '' },
      installModes: [
        { supported: ownNamespace, type: 'OwnNamespace' },
        { supported: false, type: 'SingleNamespace' },
        // Extra watched namespaces (PROJECT watchNamespaces) are an OperatorGroup's targetNamespaces under OLM v0.
        { supported: multiNamespace, type: 'MultiNamespace' },
        { supported: !ownNamespace, type: 'AllNamespaces' },
      ],
      keywords: [pkg],
      links: [{ name: display, url: `https://${pkg}.domain` }],
      maintainers: [{ email: 'your@email.com', name: 'Maintainer Name' }],
      maturity: 'alpha',
      minKubeVersion,
      provider: { name: 'Provider Name', url: 'https://your.domain' },
      version: '0.0.0',
    },
  };
}

/** Owned entries from marker info; plural names from the generated CRDs when present. */
export function ownedEntriesOf(infos: OwnedCrdInfo[], plurals: Map<string, string>): DerivedEntry[] {
  return infos.map((i) => {
    const plural = plurals.get(`${i.group}/${i.kind}`) ?? pluralize(i.kind);
    const stated: OwnedEntry = { name: `${plural}.${i.group}`, version: i.version, kind: i.kind };
    const defaults: Partial<OwnedEntry> = { displayName: i.defaultDisplayName };
    if (i.displayName !== undefined) stated.displayName = i.displayName;
    if (i.description !== undefined) defaults.description = i.description;
    if (i.resources !== undefined) stated.resources = i.resources;
    return { stated, defaults, specDescriptors: i.specDescriptors, statusDescriptors: i.statusDescriptors };
  });
}

/** An owned entry as markers and doc comments describe it. */
export interface DerivedEntry extends Derived<OwnedEntry> {
  specDescriptors: Derived<Descriptor>[];
  statusDescriptors: Derived<Descriptor>[];
}

/**
 * Derived entries merged into the user's: what a marker states wins, the user's text wins over opgen's
 * proposals (doc comments, display names made from names), and user-only entries and descriptors stay.
 */
export function mergeOwned(existing: unknown, derived: DerivedEntry[]): OwnedEntry[] {
  const user = (Array.isArray(existing) ? existing.filter(isRecord) : []) as OwnedEntry[];
  const key = (e: Pick<OwnedEntry, 'name' | 'version'>): string => `${e.name}/${e.version}`;
  const out: OwnedEntry[] = [];
  const used = new Set<string>();
  for (const d of derived) {
    const u = user.find((x) => key(x) === key(d.stated));
    used.add(key(d.stated));
    const merged: OwnedEntry = { ...d.defaults, ...(u ?? {}), ...d.stated };
    for (const list of ['specDescriptors', 'statusDescriptors'] as const) {
      const mine = d[list];
      const theirs = (Array.isArray(u?.[list]) ? u[list] : []).filter(isRecord) as Descriptor[];
      const all = [
        ...mine.map((m) => ({ ...m.defaults, ...theirs.find((x) => x.path === m.stated.path), ...m.stated })),
        ...theirs.filter((x) => !mine.some((m) => m.stated.path === x.path)),
      ];
      if (all.length > 0) merged[list] = all;
      else delete merged[list];
    }
    out.push(merged);
  }
  for (const u of user) if (!used.has(key(u))) out.push(u);
  return out;
}

/** group/kind → plural, from the CRDs `opgen generate crd` wrote. */
export async function crdPlurals(cwd: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const dir = join(cwd, 'config', 'crd', 'bases');
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml')).sort()) {
    for (const o of await parseYamlObjects(readFileSync(join(dir, f), 'utf8'))) {
      const spec = o.spec as { group?: string; names?: { kind?: string; plural?: string } } | undefined;
      if (o.kind === 'CustomResourceDefinition' && spec?.group && spec.names?.kind && spec.names.plural) out.set(`${spec.group}/${spec.names.kind}`, spec.names.plural);
    }
  }
  return out;
}

export interface StageManifestsOptions {
  cwd: string;
  project: ProjectConfig;
  package: string;
}

/** Stages the base CSV, config/manifests/kustomization.yaml and config/scorecard. */
export async function stageKustomizeManifests(tree: Tree, o: StageManifestsOptions): Promise<void> {
  const path = baseCsvPath(o.package);
  const text = tree.read(path);
  let existing: unknown;
  if (text !== undefined) {
    try {
      existing = await parseYamlDocument(text);
    } catch (err) {
      throw new OpgenError(`cannot read the base CSV: ${(err as Error).message.split('\n')[0]}`, { file: path }, 'fix its YAML (or delete it to start over)');
    }
    if (existing !== undefined && existing !== null && (!isRecord(existing) || existing.kind !== CSV_KIND)) {
      throw new OpgenError('is not a ClusterServiceVersion', { file: path }, `keep kind: ${CSV_KIND} in it, or delete it to start over`);
    }
  }
  const ownNamespace = o.project.namespaced === true && !(o.project.resources ?? []).some((r) => r.webhooks?.conversion);
  const csv = mergeKeepingUser(defaultBaseCsv(o.package, ownNamespace, o.project.minKubeVersion ?? DEFAULT_MIN_KUBE_VERSION, ownNamespace && (o.project.watchNamespaces?.length ?? 0) > 0), existing ?? undefined) as Record<string, unknown>;
  const spec = csv.spec as Record<string, unknown>;
  // PROJECT's minKubeVersion is the one setting (generate checks CEL rules against it): stated there, it wins.
  if (o.project.minKubeVersion !== undefined) spec.minKubeVersion = o.project.minKubeVersion;
  const crds = (isRecord(spec.customresourcedefinitions) ? spec.customresourcedefinitions : {}) as Record<string, unknown>;
  const owned = mergeOwned(crds.owned, ownedEntriesOf(readOwnedCrdInfo(o.cwd), await crdPlurals(o.cwd)));
  spec.customresourcedefinitions = owned.length > 0 ? { ...crds, owned } : crds;
  tree.write(path, await yamlDocument(csv));

  const samples = tree.exists('config/samples/kustomization.yaml');
  renderTemplates(tree, 'olm/manifests', { data: { package: o.package, samples, scorecardImage: SCORECARD_IMAGE } });
  // An API created after the first run: its samples join the existing kustomization.
  const kustomization = tree.read('config/manifests/kustomization.yaml') ?? '';
  if (samples && !/^- \.\.\/samples\s*$/m.test(kustomization) && /^- \.\.\/default\s*$/m.test(kustomization)) {
    tree.write('config/manifests/kustomization.yaml', kustomization.replace(/^- \.\.\/default\s*$/m, '- ../default\n- ../samples'));
  }
}
