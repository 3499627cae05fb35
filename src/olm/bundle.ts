// `opgen generate bundle`: config/manifests rendered by `kubectl kustomize` → an OLM registry+v1 bundle.
// The CSV starts from the base CSV (the user's fields, kept as written) and gets what opgen owns: name,
// spec.version, replaces, olm.skipRange, install strategy (deployments, permissions, clusterPermissions),
// owned CRDs, alm-examples, webhookdefinitions and relatedImages. Its other jobs live beside it: the
// webhook definitions (bundle-webhooks.ts), images (bundle-images.ts), alm-examples (alm-examples.ts),
// metadata and staging the bundle's files (bundle-metadata.ts).
import { opgenVersion } from '../common/version.js';
import { OpgenError } from '../diag/diagnostic.js';
import { LAYOUT } from '../project/index.js';
import { mergeOwned, type OwnedEntry } from './base-csv.js';
import { splitWords } from './descriptors.js';
import { BUNDLE_KINDS, bundleFileName } from './names.js';
import { byKey, CSV_KIND, groupOf, isRecord, nameOf, versionOf, type KubeObject } from './objects.js';
import { exampleFor, sortObjects } from './alm-examples.js';
import { firstImage, pinImages, relatedImages } from './bundle-images.js';
import type { BundleInputs, CrdSpec, PodSpec } from './bundle-model.js';
import { dropCertManagerMounts, webhookDefinitions } from './bundle-webhooks.js';

interface Binding {
  kind: string;
  roleKind: string;
  roleName: string;
  subjects: { kind?: string; name?: string; namespace?: string }[];
  object: KubeObject;
}

/** Splits the rendered objects into the CSV and the bundle's other files; returns file name → object. */
export function buildBundle(rendered: KubeObject[], inputs: BundleInputs, notes: string[]): { files: Map<string, KubeObject>; scorecard?: KubeObject; csv: KubeObject } {
  const bases = rendered.filter((o) => o.kind === CSV_KIND);
  if (bases.length !== 1) {
    throw new OpgenError(
      `config/manifests renders ${bases.length} ClusterServiceVersions, not one`,
      { file: 'config/manifests/kustomization.yaml' },
      bases.length === 0 ? 'run opgen generate kustomize manifests (it writes the base CSV and lists it here)' : 'list one base CSV in config/manifests',
    );
  }
  const base = structuredClone(bases[0]!);
  const crds = rendered.filter((o) => o.kind === 'CustomResourceDefinition');
  const crdGvks = new Set<string>();
  for (const c of crds) {
    const spec = c.spec as CrdSpec;
    for (const v of spec.versions ?? []) crdGvks.add(`${spec.group}/${v.name}/${spec.names?.kind}`);
  }
  const consumed = new Set<KubeObject>([bases[0]!, ...crds]);

  // Samples: custom resources of the bundle's own CRDs become alm-examples.
  const samples = rendered.filter((o) => crdGvks.has(`${groupOf(o.apiVersion)}/${versionOf(o.apiVersion)}/${o.kind}`));
  for (const s of samples) consumed.add(s);
  const scorecard = rendered.find((o) => o.kind === 'Configuration' && groupOf(o.apiVersion) === 'scorecard.operatorframework.io');
  if (scorecard) consumed.add(scorecard);

  // The install strategy: every Deployment, and the RBAC bound to the service accounts they run as.
  const deployments = rendered.filter((o) => o.kind === 'Deployment' && groupOf(o.apiVersion) === 'apps');
  if (deployments.length === 0) {
    throw new OpgenError('config/manifests renders no Deployment', { file: 'config/manifests/kustomization.yaml' }, 'keep ../default (with the manager Deployment) in its resources');
  }
  for (const d of deployments) consumed.add(d);
  const accounts = new Set(deployments.map((d) => serviceAccountOf(d)));
  const namespaceOfDeployments = deployments[0]!.metadata?.namespace;
  const bindings: Binding[] = rendered
    .filter((o) => (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding') && groupOf(o.apiVersion) === 'rbac.authorization.k8s.io')
    .map((o) => {
      const ref = (o.roleRef ?? {}) as { kind?: string; name?: string };
      return { kind: o.kind!, roleKind: ref.kind ?? '', roleName: ref.name ?? '', subjects: (o.subjects ?? []) as Binding['subjects'], object: o };
    });
  const roles = rendered.filter((o) => (o.kind === 'Role' || o.kind === 'ClusterRole') && groupOf(o.apiVersion) === 'rbac.authorization.k8s.io');
  const findRole = (kind: string, name: string): KubeObject | undefined => roles.find((r) => r.kind === kind && nameOf(r) === name);
  const permissions = new Map<string, unknown[]>();
  const clusterPermissions = new Map<string, unknown[]>();
  for (const b of bindings) {
    const sas = b.subjects.filter((s) => s.kind === 'ServiceAccount' && accounts.has(s.name ?? '') && (s.namespace === undefined || s.namespace === namespaceOfDeployments)).map((s) => s.name!);
    if (sas.length === 0) continue;
    const role = findRole(b.roleKind, b.roleName);
    if (!role) {
      notes.push(`note: ${b.kind} ${nameOf(b.object)} refers to ${b.roleKind} ${b.roleName}, which config/manifests does not render; its rules are not in the CSV`);
      continue;
    }
    consumed.add(b.object);
    consumed.add(role);
    const target = b.kind === 'ClusterRoleBinding' ? clusterPermissions : permissions;
    for (const sa of sas) target.set(sa, [...(target.get(sa) ?? []), ...((role.rules ?? []) as unknown[])]);
  }
  // OLM creates the service accounts the CSV names.
  for (const o of rendered) if (o.kind === 'ServiceAccount' && accounts.has(nameOf(o))) consumed.add(o);

  const webhookdefinitions = webhookDefinitions(rendered, deployments, crds, consumed);

  // The CSV.
  const csv = base;
  const meta = (csv.metadata ??= {});
  meta.name = `${inputs.package}.v${inputs.version}`;
  const annotations: Record<string, string> = { ...(meta.annotations ?? {}) };
  if (samples.length > 0) annotations['alm-examples'] = JSON.stringify(sortObjects(samples).map((o) => exampleFor(o, crds, notes)), null, 2);
  if (inputs.skipRange !== undefined) annotations['olm.skipRange'] = inputs.skipRange;
  annotations['operators.operatorframework.io/builder'] = `opgen-v${opgenVersion()}`;
  annotations['operators.operatorframework.io/project_layout'] = LAYOUT;
  const managerImage = firstImage(deployments[0]!);
  if (managerImage && annotations.containerImage === undefined) annotations.containerImage = inputs.pinned?.get(managerImage) ?? managerImage;
  meta.annotations = annotations;
  const spec = (isRecord(csv.spec) ? csv.spec : (csv.spec = {})) as Record<string, unknown>;
  spec.version = inputs.version;
  if (inputs.replaces !== undefined) spec.replaces = inputs.replaces;
  const shipped = new Set(rendered.filter((o) => o.kind === 'Secret').map(nameOf));
  const install: Record<string, unknown> = {
    deployments: deployments.map((d) => {
      const depSpec = pinImages(structuredClone((d.spec ?? {}) as Record<string, unknown>), inputs.pinned);
      watchTargetNamespaces(depSpec);
      if (webhookdefinitions.length > 0) dropCertManagerMounts(nameOf(d), depSpec, shipped, notes);
      const out: Record<string, unknown> = { name: nameOf(d), spec: depSpec };
      if (d.metadata?.labels && Object.keys(d.metadata.labels).length > 0) out.label = d.metadata.labels;
      return out;
    }),
  };
  if (permissions.size > 0) install.permissions = [...permissions].sort(byKey).map(([serviceAccountName, rules]) => ({ rules, serviceAccountName }));
  if (clusterPermissions.size > 0) install.clusterPermissions = [...clusterPermissions].sort(byKey).map(([serviceAccountName, rules]) => ({ rules, serviceAccountName }));
  spec.install = { spec: install, strategy: 'deployment' };
  const baseCrds = isRecord(spec.customresourcedefinitions) ? spec.customresourcedefinitions : {};
  spec.customresourcedefinitions = { ...baseCrds, owned: ownedFor(crds, (baseCrds as { owned?: unknown }).owned, notes) };
  if (webhookdefinitions.length > 0) spec.webhookdefinitions = webhookdefinitions;
  const related = relatedImages(deployments, spec.relatedImages, inputs.pinned);
  if (related.length > 0) spec.relatedImages = related;

  // Any other Secret volume nothing in the bundle provides would keep the pod from starting (opgen bundle
  // validate refuses it).
  for (const d of install.deployments as { name: string; spec: { template?: { spec?: PodSpec } } }[]) {
    for (const v of d.spec.template?.spec?.volumes ?? []) {
      const secret = v.secret?.secretName;
      if (secret && !v.secret?.optional && !shipped.has(secret)) {
        notes.push(`note: Deployment ${d.name} mounts Secret ${secret}, which neither the bundle nor OLM provides; ship it in the bundle, mark the volume optional, or drop it`);
      }
    }
  }

  const files = new Map<string, KubeObject>();
  files.set(bundleFileName(csv, inputs.package), csv);
  for (const c of crds) files.set(bundleFileName(c, inputs.package), c);
  for (const o of rendered) {
    if (consumed.has(o)) continue;
    if (o.kind === 'Namespace') continue; // OLM installs into the namespace the user picks.
    if (['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'].includes(o.kind ?? '')) continue; // webhookdefinitions
    if (!BUNDLE_KINDS.has(o.kind ?? '')) {
      notes.push(`note: ${o.kind} ${nameOf(o)} is left out of the bundle: OLM does not accept that kind in a bundle`);
      continue;
    }
    files.set(bundleFileName(o, inputs.package), o);
  }
  return { files, scorecard, csv };
}

/** One owned entry per CRD version in the bundle, merged with the base CSV's entries (markers, user text). */
function ownedFor(crds: KubeObject[], baseOwned: unknown, notes: string[]): OwnedEntry[] {
  const fromCrds: OwnedEntry[] = [];
  for (const c of crds) {
    const spec = c.spec as CrdSpec;
    for (const v of spec.versions ?? []) {
      fromCrds.push({ name: nameOf(c), version: v.name, kind: spec.names?.kind ?? '', displayName: splitWords(spec.names?.kind ?? '') });
    }
  }
  const base = (Array.isArray(baseOwned) ? baseOwned.filter(isRecord) : []) as OwnedEntry[];
  for (const b of base) {
    if (!fromCrds.some((e) => e.name === b.name && e.version === b.version)) {
      notes.push(`note: the base CSV owns ${b.name} ${b.version}, which config/manifests does not render; it is left out of the bundle's CSV`);
    }
  }
  // The base entry (markers and the user's text) wins over the plain one built from the CRD.
  const merged = mergeOwned(
    base.filter((b) => fromCrds.some((e) => e.name === b.name && e.version === b.version)),
    fromCrds.map((e) => ({ stated: { name: e.name, version: e.version, kind: e.kind }, defaults: { displayName: e.displayName }, specDescriptors: [], statusDescriptors: [] })),
  );
  return merged.sort((a, b) => (a.name === b.name ? (a.version < b.version ? -1 : 1) : a.name < b.name ? -1 : 1));
}

/**
 * A namespaced manager (init --namespaced) reads WATCH_NAMESPACE from its pod's namespace. Under OLM the
 * watched namespace is the OperatorGroup's (v0) or the ClusterExtension's watchNamespace (v1), which both
 * hand to the pod only as the annotation olm.targetNamespaces; for OwnNamespace it equals the pod's
 * namespace, so taking it from the annotation keeps that install mode and makes the others honour theirs.
 */
export const TARGET_NAMESPACES_FIELD = "metadata.annotations['olm.targetNamespaces']";
function watchTargetNamespaces(depSpec: Record<string, unknown>): void {
  const pod = (depSpec.template as { spec?: PodSpec } | undefined)?.spec;
  for (const c of [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])]) {
    for (const e of (c.env ?? []) as { name?: string; value?: string; valueFrom?: { fieldRef?: { fieldPath?: string } } }[]) {
      if (e.name !== 'WATCH_NAMESPACE') continue;
      if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') e.valueFrom.fieldRef.fieldPath = TARGET_NAMESPACES_FIELD;
      // The list `opgen edit --watch-namespaces` writes ($(POD_NAMESPACE),a,b): under OLM the install picks the
      // namespaces (OperatorGroup targetNamespaces, ClusterExtension watchNamespace), and OLM v0 copies the
      // CSV's permissions into each.
      else if (e.value?.startsWith('$(POD_NAMESPACE)')) {
        delete e.value;
        e.valueFrom = { fieldRef: { fieldPath: TARGET_NAMESPACES_FIELD } };
      }
    }
  }
}

function serviceAccountOf(d: KubeObject): string {
  return ((d.spec as { template?: { spec?: { serviceAccountName?: string } } } | undefined)?.template?.spec?.serviceAccountName ?? 'default');
}

