// `opgen generate bundle`: config/manifests rendered by `kubectl kustomize` → an OLM registry+v1 bundle.
// The CSV starts from the base CSV (the user's fields, kept as written) and gets what opgen owns: name,
// spec.version, replaces, olm.skipRange, install strategy (deployments, permissions, clusterPermissions),
// owned CRDs, alm-examples, webhookdefinitions and relatedImages.
import { opgenVersion } from '../common/version.js';
import { OpgenError } from '../diag/diagnostic.js';
import { LAYOUT } from '../project/index.js';
import { renderTemplates, type Tree } from '../scaffold/index.js';
import { mergeOwned, type OwnedEntry } from './base-csv.js';
import { splitWords } from './descriptors.js';
import { BUNDLE_KINDS, bundleFileName } from './names.js';
import { CSV_KIND, groupOf, isRecord, nameOf, parseYamlDocument, versionOf, yamlDocument, type KubeObject } from './objects.js';

export const ANNOTATION = {
  mediatype: 'operators.operatorframework.io.bundle.mediatype.v1',
  manifests: 'operators.operatorframework.io.bundle.manifests.v1',
  metadata: 'operators.operatorframework.io.bundle.metadata.v1',
  package: 'operators.operatorframework.io.bundle.package.v1',
  channels: 'operators.operatorframework.io.bundle.channels.v1',
  defaultChannel: 'operators.operatorframework.io.bundle.channel.default.v1',
  builder: 'operators.operatorframework.io.metrics.builder',
  metricsMediatype: 'operators.operatorframework.io.metrics.mediatype.v1',
  layout: 'operators.operatorframework.io.metrics.project_layout',
  testMediatype: 'operators.operatorframework.io.test.mediatype.v1',
  testConfig: 'operators.operatorframework.io.test.config.v1',
} as const;

export interface BundleInputs {
  package: string;
  version: string;
  channels: string[];
  defaultChannel: string;
  replaces?: string;
  skipRange?: string;
  /** Bundle directory relative to the project root. */
  outputDir: string;
  /** image reference → digest-pinned reference (--use-image-digests). */
  pinned?: Map<string, string>;
}

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

interface CrdSpec {
  group?: string;
  names?: { kind?: string; plural?: string };
  versions?: { name: string; served?: boolean; storage?: boolean }[];
  conversion?: { strategy?: string; webhook?: { conversionReviewVersions?: string[]; clientConfig?: { service?: { name?: string; namespace?: string; path?: string; port?: number } } } };
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

function webhookDefinitions(rendered: KubeObject[], deployments: KubeObject[], crds: KubeObject[], consumed: Set<KubeObject>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const services = rendered.filter((o) => o.kind === 'Service');
  const serviceFor = (ref: { name?: string; namespace?: string } | undefined): KubeObject | undefined =>
    ref ? services.find((s) => nameOf(s) === ref.name && (ref.namespace === undefined || s.metadata?.namespace === ref.namespace)) : undefined;
  const deploymentFor = (svc: KubeObject | undefined): string => {
    const selector = ((svc?.spec as { selector?: Record<string, string> } | undefined)?.selector ?? {}) as Record<string, string>;
    const match = deployments.find((d) => {
      const labels = ((d.spec as { template?: { metadata?: { labels?: Record<string, string> } } }).template?.metadata?.labels ?? {}) as Record<string, string>;
      return Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
    });
    return nameOf(match ?? deployments[0]!);
  };
  const portsOf = (svc: KubeObject | undefined, port: number | undefined): { containerPort: number; targetPort?: unknown } => {
    const ports = ((svc?.spec as { ports?: { port?: number; targetPort?: unknown }[] } | undefined)?.ports ?? []) as { port?: number; targetPort?: unknown }[];
    const p = ports.find((x) => x.port === (port ?? 443)) ?? ports[0];
    const r: { containerPort: number; targetPort?: unknown } = { containerPort: p?.port ?? port ?? 443 };
    if (p?.targetPort !== undefined) r.targetPort = p.targetPort;
    return r;
  };
  for (const cfg of rendered) {
    const type = cfg.kind === 'ValidatingWebhookConfiguration' ? 'ValidatingAdmissionWebhook' : cfg.kind === 'MutatingWebhookConfiguration' ? 'MutatingAdmissionWebhook' : undefined;
    if (!type) continue;
    consumed.add(cfg);
    for (const w of (cfg.webhooks ?? []) as Record<string, unknown>[]) {
      const service = ((w.clientConfig ?? {}) as { service?: { name?: string; namespace?: string; path?: string; port?: number } }).service;
      const svc = serviceFor(service);
      if (svc) consumed.add(svc);
      const d: Record<string, unknown> = { type, generateName: w.name, deploymentName: deploymentFor(svc), ...portsOf(svc, service?.port) };
      for (const k of ['admissionReviewVersions', 'failurePolicy', 'matchPolicy', 'objectSelector', 'reinvocationPolicy', 'rules', 'sideEffects', 'timeoutSeconds']) {
        if (w[k] !== undefined) d[k] = w[k];
      }
      if (service?.path !== undefined) d.webhookPath = service.path;
      out.push(d);
    }
  }
  // Conversion webhooks: one definition per service, listing the CRDs it converts.
  const conversions = new Map<string, { svc?: KubeObject; path?: string; port?: number; reviewVersions?: string[]; crds: string[] }>();
  for (const c of crds) {
    const conv = (c.spec as CrdSpec).conversion;
    if (conv?.strategy !== 'Webhook') continue;
    const service = conv.webhook?.clientConfig?.service;
    const key = `${service?.namespace ?? ''}/${service?.name ?? ''}/${service?.port ?? ''}/${service?.path ?? ''}`;
    const entry = conversions.get(key) ?? { svc: serviceFor(service), path: service?.path, port: service?.port, reviewVersions: conv.webhook?.conversionReviewVersions, crds: [] };
    entry.crds.push(nameOf(c));
    conversions.set(key, entry);
  }
  for (const [, e] of [...conversions].sort(byKey)) {
    if (e.svc) consumed.add(e.svc);
    const crdNames = e.crds.sort();
    const d: Record<string, unknown> = {
      // As operator-sdk: the CRD's conversionReviewVersions, and c<plural><plural>….kb.io as the name.
      admissionReviewVersions: e.reviewVersions ?? ['v1'],
      conversionCRDs: crdNames,
      deploymentName: deploymentFor(e.svc),
      generateName: `c${crdNames.map((n) => n.split('.')[0]).join('')}.kb.io`,
      sideEffects: 'None',
      type: 'ConversionWebhook',
      ...portsOf(e.svc, e.port),
    };
    if (e.path !== undefined) d.webhookPath = e.path;
    out.push(d);
  }
  // operator-sdk orders the definitions by generateName.
  return out.sort((a, b) => (String(a.generateName) < String(b.generateName) ? -1 : String(a.generateName) > String(b.generateName) ? 1 : 0));
}

/** Where OLM mounts the serving certificate it makes for a CSV's webhooks (tls.crt, tls.key), and for API services. */
export const OLM_CERT_MOUNTS = ['/tmp/k8s-webhook-server/serving-certs', '/apiserver.local.config/certificates'];

interface PodVolume { name?: string; secret?: { secretName?: string; optional?: boolean } }
interface PodContainer { volumeMounts?: { name?: string; mountPath?: string }[]; env?: { name?: string; valueFrom?: { fieldRef?: { fieldPath?: string } } }[] }
interface PodSpec { volumes?: PodVolume[]; containers?: PodContainer[]; initContainers?: PodContainer[] }

/**
 * Under OLM the webhook serving certificate is OLM's: it mounts it at /tmp/k8s-webhook-server/serving-certs
 * itself (operator-sdk's bundles rely on the same). A Secret volume mounted there that the bundle does not
 * ship (cert-manager's webhook-server-cert) would keep the pod from starting and clash with OLM's mount:
 * it is dropped, with a note.
 */
function dropCertManagerMounts(name: string, spec: Record<string, unknown>, shipped: Set<string>, notes: string[]): void {
  const pod = (spec.template as { spec?: PodSpec } | undefined)?.spec;
  if (!pod?.volumes) return;
  const containers = [...(pod.initContainers ?? []), ...(pod.containers ?? [])];
  pod.volumes = pod.volumes.filter((v) => {
    const secret = v.secret?.secretName;
    if (!secret || v.secret?.optional || shipped.has(secret)) return true;
    const mounts = containers.flatMap((c) => (c.volumeMounts ?? []).filter((m) => m.name === v.name));
    if (mounts.length === 0 || !mounts.every((m) => OLM_CERT_MOUNTS.includes((m.mountPath ?? '').replace(/\/+$/, '')))) return true;
    for (const c of containers) if (c.volumeMounts) c.volumeMounts = c.volumeMounts.filter((m) => m.name !== v.name);
    notes.push(`note: Deployment ${name}: volume ${v.name} (Secret ${secret}, which the bundle does not ship) is left out: OLM mounts the webhook serving certificate at ${mounts[0]!.mountPath} itself (tls.crt, tls.key)`);
    return false;
  });
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
    for (const e of c.env ?? []) {
      if (e.name === 'WATCH_NAMESPACE' && e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') e.valueFrom.fieldRef.fieldPath = TARGET_NAMESPACES_FIELD;
    }
  }
}

function serviceAccountOf(d: KubeObject): string {
  return ((d.spec as { template?: { spec?: { serviceAccountName?: string } } } | undefined)?.template?.spec?.serviceAccountName ?? 'default');
}

interface Container {
  name?: string;
  image?: string;
  env?: { name?: string; value?: string }[];
}

function containersOf(d: KubeObject): Container[] {
  const pod = (d.spec as { template?: { spec?: { containers?: Container[]; initContainers?: Container[] } } } | undefined)?.template?.spec;
  return [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
}

function firstImage(d: KubeObject): string | undefined {
  const pod = (d.spec as { template?: { spec?: { containers?: Container[] } } } | undefined)?.template?.spec;
  return pod?.containers?.[0]?.image;
}

/** Every image the operator runs or names in RELATED_IMAGE_* variables, with the base CSV's entries kept. */
export function imagesOf(deployments: KubeObject[]): { name: string; image: string }[] {
  const out: { name: string; image: string }[] = [];
  for (const d of deployments) {
    for (const c of containersOf(d)) {
      if (c.image) out.push({ name: c.name ?? nameOf(d), image: c.image });
      for (const e of c.env ?? []) {
        if (e.name?.startsWith('RELATED_IMAGE_') && e.value) out.push({ name: e.name.slice('RELATED_IMAGE_'.length).toLowerCase().replaceAll('_', '-'), image: e.value });
      }
    }
  }
  return out;
}

function relatedImages(deployments: KubeObject[], fromBase: unknown, pinned: Map<string, string> | undefined): { name: string; image: string }[] {
  const out: { name: string; image: string }[] = [];
  const seen = new Set<string>();
  const user = (Array.isArray(fromBase) ? fromBase.filter(isRecord) : []) as { name: string; image: string }[];
  for (const r of [...user, ...imagesOf(deployments)]) {
    const image = pinned?.get(r.image) ?? r.image;
    if (seen.has(image)) continue;
    seen.add(image);
    out.push({ ...r, image });
  }
  return out;
}

function pinImages(spec: Record<string, unknown>, pinned: Map<string, string> | undefined): Record<string, unknown> {
  if (!pinned || pinned.size === 0) return spec;
  const pod = (spec.template as { spec?: { containers?: Container[]; initContainers?: Container[] } } | undefined)?.spec;
  for (const c of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]) {
    if (c.image && pinned.has(c.image)) c.image = pinned.get(c.image);
    for (const e of c.env ?? []) if (e.name?.startsWith('RELATED_IMAGE_') && e.value && pinned.has(e.value)) e.value = pinned.get(e.value);
  }
  return spec;
}

/**
 * A sample as an alm-example: without its namespace (examples are created in the namespace the user picks)
 * and, when its spec is empty (the scaffold's `spec:` with only a TODO comment is null), with a spec built
 * from the CRD schema's defaults and required fields, so OLM consoles do not offer `"spec": null`.
 */
function exampleFor(o: KubeObject, crds: KubeObject[], notes: string[]): KubeObject {
  const copy = structuredClone(o);
  if (copy.metadata) delete copy.metadata.namespace;
  if (copy.spec !== null && copy.spec !== undefined) return copy;
  const crd = crds.find((c) => (c.spec as CrdSpec).group === groupOf(o.apiVersion) && (c.spec as CrdSpec).names?.kind === o.kind);
  const version = ((crd?.spec ?? {}) as { versions?: { name: string; schema?: { openAPIV3Schema?: SchemaNode } }[] }).versions?.find((v) => v.name === versionOf(o.apiVersion));
  const specSchema = version?.schema?.openAPIV3Schema?.properties?.spec;
  if (!specSchema) {
    if ('spec' in copy) delete copy.spec;
    return copy;
  }
  copy.spec = fromSchema(specSchema) ?? {};
  notes.push(`warning: the ${o.kind} sample ${nameOf(o)} has no spec; its alm-example uses ${JSON.stringify(copy.spec)} (the schema's defaults and required fields): fill in the sample in config/samples`);
  return copy;
}

interface SchemaNode { type?: string; properties?: Record<string, SchemaNode>; required?: string[]; default?: unknown; enum?: unknown[]; minimum?: number; minLength?: number; minItems?: number; items?: SchemaNode }

/** The smallest value the schema accepts that shows its defaults: required fields and defaulted ones. */
function fromSchema(s: SchemaNode): unknown {
  if (s.default !== undefined) return structuredClone(s.default);
  if (s.enum && s.enum.length > 0) return s.enum[0];
  switch (s.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, p] of Object.entries(s.properties ?? {})) {
        if (s.required?.includes(k) || p.default !== undefined) out[k] = fromSchema(p) ?? {};
      }
      return out;
    }
    case 'array': return s.minItems && s.items ? Array.from({ length: s.minItems }, () => fromSchema(s.items!)) : [];
    case 'string': return 'x'.repeat(s.minLength ?? 0);
    case 'integer': case 'number': return s.minimum ?? 0;
    case 'boolean': return false;
    default: return undefined;
  }
}

function sortObjects(list: KubeObject[]): KubeObject[] {
  const key = (o: KubeObject): string => `${o.apiVersion}/${o.kind}/${nameOf(o)}`;
  return [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function byKey<T>(a: [string, T], b: [string, T]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/** annotations.yaml: opgen's keys set, the user's other keys kept. */
export function bundleAnnotations(inputs: BundleInputs, existing: Record<string, string>): Record<string, string> {
  return {
    ...existing,
    [ANNOTATION.mediatype]: 'registry+v1',
    [ANNOTATION.manifests]: 'manifests/',
    [ANNOTATION.metadata]: 'metadata/',
    [ANNOTATION.package]: inputs.package,
    [ANNOTATION.channels]: inputs.channels.join(','),
    [ANNOTATION.defaultChannel]: inputs.defaultChannel,
    [ANNOTATION.builder]: `opgen-v${opgenVersion()}`,
    [ANNOTATION.metricsMediatype]: 'metrics+v1',
    [ANNOTATION.layout]: LAYOUT,
    [ANNOTATION.testMediatype]: 'scorecard+v1',
    [ANNOTATION.testConfig]: 'tests/scorecard/',
  };
}

/** `LABEL k=v` pairs of a Dockerfile (one per line, or several on one LABEL line). */
export function dockerfileLabels(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const joined = text.replace(/\\\r?\n/g, ' ');
  for (const line of joined.split(/\r?\n/)) {
    const m = /^\s*LABEL\s+(.*)$/i.exec(line);
    if (!m) continue;
    const re = /([^\s=]+)=("(?:[^"\\]|\\.)*"|\S*)/g;
    for (const pair of m[1]!.matchAll(re)) {
      const raw = pair[2]!;
      out.set(pair[1]!, raw.startsWith('"') ? (JSON.parse(raw) as string) : raw);
    }
  }
  return out;
}

/** The values `generate bundle` needs from the files a previous run left (channels, user labels). */
export async function readPreviousMetadata(tree: Tree, outputDir: string): Promise<{ annotations: Record<string, string>; dockerLabels: Map<string, string> }> {
  let annotations: Record<string, string> = {};
  const path = `${outputDir}/metadata/annotations.yaml`;
  const text = tree.read(path);
  if (text !== undefined) {
    let doc: unknown;
    try {
      doc = await parseYamlDocument(text);
    } catch (err) {
      throw new OpgenError(`cannot read it: ${(err as Error).message.split('\n')[0]}`, { file: path }, 'fix its YAML or delete it');
    }
    const a = isRecord(doc) && isRecord(doc.annotations) ? doc.annotations : {};
    annotations = Object.fromEntries(Object.entries(a).map(([k, v]) => [k, String(v)]));
  }
  const docker = tree.read('bundle.Dockerfile');
  return { annotations, dockerLabels: docker === undefined ? new Map() : dockerfileLabels(docker) };
}

/** Stages bundle/manifests (stale files removed), metadata, tests and bundle.Dockerfile. */
export async function stageBundle(
  tree: Tree,
  built: { files: Map<string, KubeObject>; scorecard?: KubeObject },
  inputs: BundleInputs,
  previous: { annotations: Record<string, string>; dockerLabels: Map<string, string> },
): Promise<void> {
  const dir = inputs.outputDir;
  const manifests = `${dir}/manifests`;
  for (const stale of tree.list(manifests)) {
    if (!built.files.has(stale.slice(manifests.length + 1))) tree.delete(stale);
  }
  for (const [name, obj] of [...built.files].sort(byKey)) tree.write(`${manifests}/${name}`, await yamlDocument(obj));
  const annotations = bundleAnnotations(inputs, previous.annotations);
  tree.write(`${dir}/metadata/annotations.yaml`, await yamlDocument({ annotations }));
  if (built.scorecard) tree.write(`${dir}/tests/scorecard/config.yaml`, await yamlDocument(built.scorecard));
  // Labels: the annotations, then LABELs the user added to the Dockerfile alone.
  const owned = Object.values(ANNOTATION) as string[];
  const labels = new Map<string, string>(owned.map((k) => [k, annotations[k]!]));
  for (const k of Object.keys(annotations).filter((k) => !owned.includes(k)).sort()) labels.set(k, annotations[k]!);
  for (const [k, v] of [...previous.dockerLabels].sort(byKey)) if (!labels.has(k)) labels.set(k, v);
  const rows = [...labels].map(([key, value]) => ({ key, value: /^[^\s"'\\$]*$/.test(value) && value !== '' ? value : JSON.stringify(value) }));
  renderTemplates(tree, 'olm/bundle', { data: { labels: rows, bundleDir: dir } });
}
