// CRD assembly: finds the kinds of every API folder, builds one schema per version, and merges the
// versions of each kind into one CustomResourceDefinition object per kind.
import { basename } from 'node:path';
import type { ts as TS } from 'ts-morph';
import { OpgenError } from '../diag/diagnostic.js';
import type { CollectedMarker, LoadedFile, SourceSet } from '../markers/index.js';
import { KUBERNETES_TYPES_MODULE, positionOf } from '../markers/index.js';
import { KUBERNETES_MODULE, RUNTIME_MODULE } from './type-origins.js';
import { pluralize } from '../naming/index.js';
import type { JSONSchemaProps } from '../common/json-schema.js';
import type { SchemaMarker } from './markers/index.js';
import { byteCompare } from '../common/go-order.js';
import { SchemaBuilder } from './schema-builder.js';
import { celChecker } from '../cel/crd-rules.js';
import type { KubeMinor } from '../common/kube-version.js';

/** One folder of .ts files: an API version (controller-gen's package). */
export interface ApiFolder {
  dir: string;
  display: string;
  files: LoadedFile[];
  markers: CollectedMarker[];
}

export interface GeneratedCrd {
  /** `<group>_<plural>.yaml` */
  fileName: string;
  crd: Record<string, unknown>;
  /** Group and kind: what a later run looks the CRD up by. */
  key: string;
  /** Every file it was built from (its versions' files, the files of the types they use). */
  builtFrom: Set<LoadedFile>;
  /** Taken over from an earlier run (watch mode) instead of built. */
  reused?: boolean;
  /** Building it reported no error (only such CRDs are taken over by a later run). */
  faultless: boolean;
}

interface KindVersion {
  kind: string;
  group: string;
  version: string;
  file: LoadedFile;
  decl: TS.InterfaceDeclaration;
  markers: CollectedMarker[];
  schema?: JSONSchemaProps;
}

const FIX_NO_KIND = "give the kind's interface apiVersion?: string, kind?: string and metadata?: ObjectMeta (or extends KubeObject)";

export const VERSION_ANNOTATION = 'opgen.dev/version';

function folderMarker(folder: ApiFolder, name: string): CollectedMarker | undefined {
  return folder.markers.find((m) => m.definition.name === name);
}

export function generateCrds(
  sources: SourceSet,
  folders: ApiFolder[],
  schemaMarkers: Map<string, SchemaMarker>,
  kubernetes: ConstructorParameters<typeof SchemaBuilder>[4],
  toolVersion: string,
  errors: OpgenError[],
  options: {
    generateEmbeddedObjectMeta?: boolean;
    /**
     * CRDs of an earlier run that found no error in them (watch mode), by key. One is taken over unbuilt
     * when none of the files it was built from changed and its versions are the same declarations. The
     * caller starts afresh when a folder's markers or the set of scanned files changed.
     */
    earlier?: Map<string, GeneratedCrd>;
    /** CEL rules must install on this Kubernetes (PROJECT minKubeVersion); none: the newest opgen models. */
    celFloor?: { version: KubeMinor; source: string };
    /** Prints a warning line (a +groupName folder without kinds while others have some). */
    warn?: (line: string) => void;
  } = {},
): GeneratedCrd[] {
  const ts = sources.ts;
  const folderByFile = new Map<LoadedFile, ApiFolder>();
  for (const f of folders) for (const file of f.files) folderByFile.set(file, f);
  const optional = (file: LoadedFile): boolean => {
    const f = folderByFile.get(file);
    // Files outside the scanned folders (imported helpers) use their own folder markers when we scanned it.
    return f ? folderMarker(f, 'kubebuilder:validation:Optional') !== undefined : false;
  };
  const builder = new SchemaBuilder(sources, schemaMarkers, (file) => ({ optionalByDefault: optional(file) }), errors, kubernetes, options.generateEmbeddedObjectMeta);

  const found: KindVersion[] = [];
  const empty: { where: CollectedMarker['where']; message: string }[] = [];
  for (const folder of folders) {
    if (folderMarker(folder, 'kubebuilder:skip')) continue;
    const groupMarker = folderMarker(folder, 'groupName');
    for (const name of ['groupName', 'versionName']) {
      const all = folder.markers.filter((m) => m.definition.name === name);
      const other = all.find((m) => m.value !== all[0]!.value);
      if (other) {
        errors.push(
          new OpgenError(
            `${folder.display} names two different ${name === 'groupName' ? 'groups' : 'versions'}: ${JSON.stringify(all[0]!.value)} (${all[0]!.where.file}:${all[0]!.where.line}) and ${JSON.stringify(other.value)}`,
            other.where,
            'one folder is one API group-version: keep one +' + name,
          ),
        );
      }
    }
    const version = (folderMarker(folder, 'versionName')?.value as string | undefined) ?? basename(folder.dir);
    let kindsInFolder = 0;
    const nearMisses: string[] = [];
    for (const file of folder.files) {
      for (const st of file.sf.statements) {
        if (!ts.isInterfaceDeclaration(st)) continue;
        const info = file.markers.declarations.get(st);
        const root = info?.markers.find((m) => m.definition.name === 'kubebuilder:object:root');
        const shape = kindShape(sources, file, st);
        // controller-gen's rule (FindKubeKinds): a type embedding TypeMeta and ObjectMeta is a kind, with or
        // without the marker; the marker alone still makes one (and a missing metadata is then an error).
        const marked = root?.value === true;
        if (!shape.kind && !marked) {
          if (shape.nearMiss) nearMisses.push(`${st.name.text} (${file.display}) ${shape.nearMiss}`);
          continue;
        }
        // By shape alone only in an API folder: controllers type the built-in kinds they read the same way
        // (`interface MyDeployment { apiVersion?; kind?; metadata?: ObjectMeta; … }`), and make no CRD.
        if (!marked && !groupMarker) continue;
        const members = st.members.filter(ts.isPropertySignature).map((m) => m.name.getText(file.sf));
        if (st.name.text.endsWith('List') && members.includes('items')) continue;
        const where = positionOf(file, st.name);
        if (!shape.kind && !members.includes('metadata')) {
          errors.push(new OpgenError(`${st.name.text}: a kind needs a metadata property`, where, `add metadata?: ObjectMeta (from @opgen/runtime)`));
          continue;
        }
        kindsInFolder++;
        if (!st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
          errors.push(new OpgenError(`${st.name.text}: a kind must be exported`, where, `write export interface ${st.name.text}`));
          continue;
        }
        if (!groupMarker) {
          errors.push(
            new OpgenError(`${st.name.text}: its folder ${folder.display} has no +groupName`, where, `add // +groupName=<group> to a file in ${folder.display} (e.g. groupversion-info.ts)`),
          );
          continue;
        }
        found.push({
          kind: st.name.text,
          group: groupMarker.value as string,
          version,
          file,
          decl: st,
          markers: info?.markers ?? [],
        });
      }
    }
    if (groupMarker && kindsInFolder === 0) {
      const near = nearMisses.length > 0 ? `; close: ${nearMisses.join('; ')}` : '';
      empty.push({
        where: groupMarker.where,
        message: `${folder.display} has +groupName=${String(groupMarker.value)} but no kind in ${folder.files.length} file${folder.files.length === 1 ? '' : 's'}: looked for an exported interface with apiVersion, kind and metadata: ObjectMeta (or extending KubeObject, or marked +kubebuilder:object:root=true)${near}`,
      });
    }
  }
  // A +groupName folder that yields nothing is said, never passed over: an error when no CRD comes out at
  // all (exit 0 with nothing written would look like success), a warning beside the CRDs of other folders.
  if (found.length === 0) {
    for (const e of empty) errors.push(new OpgenError(e.message, e.where, FIX_NO_KIND));
  } else {
    for (const e of empty) options.warn?.(`warning: ${e.where.file}:${e.where.line}:${e.where.column}: ${e.message} (${FIX_NO_KIND})`);
  }

  const cel = celChecker(sources, options.celFloor ? { floor: options.celFloor.version, floorSource: options.celFloor.source } : {});
  const byKind = new Map<string, KindVersion[]>();
  for (const k of found) {
    const key = `${k.group}\u0000${k.kind}`;
    byKind.set(key, [...(byKind.get(key) ?? []), k]);
  }
  const out: GeneratedCrd[] = [];
  for (const [key, versions] of byKind) {
    const earlier = options.earlier?.get(key);
    if (earlier && unchanged(sources, earlier, versions)) {
      out.push({ ...earlier, reused: true });
      continue;
    }
    const errorsBefore = errors.length;
    const { value: crd, files } = sources.track(() => {
      for (const k of versions) {
        sources.touch(k.file);
        k.schema = builder.kindSchema(k.file, k.decl);
        // CEL rules are judged on the finished schema of each version, as the API server judges them.
        cel.check(k.schema, k.kind, positionOf(k.file, k.decl.name), errors);
      }
      return assemble(versions, toolVersion, errors);
    });
    if (crd) out.push({ ...crd, key, builtFrom: files, faultless: errors.length === errorsBefore });
  }
  return out.sort((a, b) => byteCompare(a.fileName, b.fileName));
}

/**
 * Whether an interface is a kind by its shape, TypeScript's twin of embedding TypeMeta and ObjectMeta:
 * apiVersion, kind and metadata typed as the runtime's ObjectMeta (metav1.ObjectMeta, client-node's
 * V1ObjectMeta), or extending the runtime's KubeObject. `nearMiss` says what a kind-like interface lacks.
 */
export function kindShape(sources: SourceSet, file: LoadedFile, st: TS.InterfaceDeclaration): { kind: boolean; nearMiss?: string } {
  const ts = sources.ts;
  for (const clause of st.heritageClauses ?? []) {
    for (const t of clause.types) {
      const r = sources.resolve(file, t.expression.getText(file.sf));
      if (r.kind === 'module' && r.module === RUNTIME_MODULE && r.name === 'KubeObject') return { kind: true };
    }
  }
  const props = new Map<string, TS.PropertySignature>();
  for (const m of st.members) if (ts.isPropertySignature(m) && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name))) props.set(m.name.text, m);
  const meta = props.get('metadata');
  if (!meta) return { kind: false };
  if (props.has('items')) return { kind: false }; // a list (ListMeta): never a kind
  const metaType = meta.type && ts.isTypeReferenceNode(meta.type) ? meta.type.typeName.getText(file.sf) : undefined;
  const r = metaType ? sources.resolve(file, metaType) : undefined;
  const objectMeta =
    r?.kind === 'module' &&
    ((r.module === RUNTIME_MODULE && r.name === 'ObjectMeta') ||
      (r.module === `${KUBERNETES_TYPES_MODULE}/metav1` && r.name === 'ObjectMeta') ||
      (r.module === KUBERNETES_MODULE && r.name === 'V1ObjectMeta'));
  const missing = ['apiVersion', 'kind'].filter((n) => !props.has(n));
  if (objectMeta && missing.length === 0) return { kind: true };
  if (!objectMeta) return { kind: false, nearMiss: `has metadata${metaType ? `: ${metaType}` : ''}, not ObjectMeta from ${RUNTIME_MODULE}` };
  return { kind: false, nearMiss: `has metadata: ObjectMeta but no ${missing.join(' or ')}` };
}

/** Whether an earlier run's CRD still holds: the same version declarations, no file it was built from changed. */
function unchanged(sources: SourceSet, earlier: GeneratedCrd, versions: KindVersion[]): boolean {
  if (versions.some((k) => !earlier.builtFrom.has(k.file))) return false;
  // Every version's file is one it was built from, and unchanged: so are the versions found in them.
  for (const f of earlier.builtFrom) {
    try {
      // Same object: the parse of this run is the earlier one, so the text is the same.
      if (sources.load(f.abs) !== f) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** What a +kubebuilder:resource marker does to the CRD, with every default spelt out. */
function resourceEffect(kind: string, value: unknown): string {
  const r = value as { path?: string; singular?: string; shortName?: string[]; categories?: string[]; scope?: string };
  return JSON.stringify([r.path || pluralize(kind), r.singular || kind.toLowerCase(), r.shortName ?? [], r.categories ?? [], r.scope || 'Namespaced']);
}

function marker(k: KindVersion, name: string): CollectedMarker | undefined {
  return k.markers.find((m) => m.definition.name === name);
}

function markersNamed(k: KindVersion, name: string): CollectedMarker[] {
  return k.markers.filter((m) => m.definition.name === name);
}

function assemble(all: KindVersion[], toolVersion: string, errors: OpgenError[]): Pick<GeneratedCrd, 'fileName' | 'crd'> | undefined {
  const first = all[0]!;
  const fail = (m: CollectedMarker | undefined, k: KindVersion, message: string, fix: string): void => {
    errors.push(new OpgenError(`${k.kind}: ${message}`, m ? m.where : positionOf(k.file, k.decl.name), fix));
  };
  const seen = new Map<string, KindVersion>();
  for (const k of all) {
    const dup = seen.get(k.version);
    if (dup) {
      fail(undefined, k, `version ${k.version} is declared twice (also in ${dup.file.display})`, 'give each folder its own version');
      return undefined;
    }
    seen.set(k.version, k);
  }
  const kept = all.filter((k) => !marker(k, 'kubebuilder:skipversion'));
  if (kept.length === 0) {
    fail(marker(first, 'kubebuilder:skipversion'), first, 'every version is skipped', 'remove +kubebuilder:skipversion from one version');
    return undefined;
  }
  kept.sort((a, b) => byteCompare(a.version, b.version));

  const names: Record<string, unknown> = { kind: first.kind, listKind: `${first.kind}List`, plural: pluralize(first.kind), singular: first.kind.toLowerCase() };
  let scope = 'Namespaced';
  const annotations: Record<string, string> = {};
  const labels: Record<string, string> = {};
  let firstResource: { k: KindVersion; m: CollectedMarker } | undefined;
  for (const k of kept) {
    const resource = marker(k, 'kubebuilder:resource');
    if (resource && firstResource && resourceEffect(first.kind, resource.value) !== resourceEffect(first.kind, firstResource.m.value)) {
      // controller-gen applies them in map order, so the CRD would depend on chance. Markers that differ
      // only in spelling (scope=Namespaced written out on one version) have the same effect and pass.
      fail(resource, k, `+kubebuilder:resource differs between versions ${firstResource.k.version} and ${k.version}`, 'write the same +kubebuilder:resource on every version');
    }
    if (resource) firstResource ??= { k, m: resource };
    if (resource) {
      const r = resource.value as { path?: string; singular?: string; shortName?: string[]; categories?: string[]; scope?: string };
      if (r.path) names.plural = r.path;
      if (r.singular) names.singular = r.singular;
      if (r.shortName) names.shortNames = r.shortName;
      if (r.categories) names.categories = r.categories;
      if (r.scope !== undefined && r.scope !== '' && r.scope !== 'Namespaced' && r.scope !== 'Cluster') {
        fail(resource, k, `scope "${r.scope}" is not a scope`, 'use scope=Namespaced or scope=Cluster');
      }
      scope = r.scope || 'Namespaced';
    }
    const meta = marker(k, 'kubebuilder:metadata');
    if (meta) {
      const m = meta.value as { annotations?: string[]; labels?: string[] };
      for (const [list, into, what] of [
        [m.annotations, annotations, 'annotation'],
        [m.labels, labels, 'label'],
      ] as const) {
        for (const entry of list ?? []) {
          const eq = entry.indexOf('=');
          if (eq < 0) fail(meta, k, `${what} "${entry}" has no value`, `write "${entry}=<value>"`);
          else into[entry.slice(0, eq)] = entry.slice(eq + 1);
        }
      }
    }
  }

  const versions: Record<string, unknown>[] = [];
  for (const k of kept) {
    const v: Record<string, unknown> = { name: k.version, schema: { openAPIV3Schema: k.schema! }, served: !marker(k, 'kubebuilder:unservedversion'), storage: kept.length === 1 || !!marker(k, 'kubebuilder:storageversion') };
    const subresources: Record<string, unknown> = {};
    if (marker(k, 'kubebuilder:subresource:status')) subresources.status = {};
    const scale = marker(k, 'kubebuilder:subresource:scale');
    if (scale) {
      const s = scale.value as { specpath: string; statuspath: string; selectorpath?: string };
      if (!s.specpath.startsWith('.spec.')) fail(scale, k, `scale specpath "${s.specpath}" is not under .spec`, 'use a path such as .spec.replicas');
      if (!s.statuspath.startsWith('.status.')) fail(scale, k, `scale statuspath "${s.statuspath}" is not under .status`, 'use a path such as .status.replicas');
      if (s.selectorpath !== undefined && !s.selectorpath.startsWith('.spec.') && !s.selectorpath.startsWith('.status.')) {
        fail(scale, k, `scale selectorpath "${s.selectorpath}" is not under .spec or .status`, 'use a path such as .status.selector');
      }
      subresources.scale = { specReplicasPath: s.specpath, statusReplicasPath: s.statuspath, ...(s.selectorpath ? { labelSelectorPath: s.selectorpath } : {}) };
    }
    const columns = markersNamed(k, 'kubebuilder:printcolumn').map((m) => {
      const c = m.value as { name: string; type: string; JSONPath: string; description?: string; format?: string; priority?: number };
      if (!['integer', 'number', 'string', 'boolean', 'date'].includes(c.type)) fail(m, k, `printcolumn type "${c.type}" is not a column type`, 'use integer, number, string, boolean or date');
      return {
        ...(c.description ? { description: c.description } : {}),
        ...(c.format ? { format: c.format } : {}),
        jsonPath: c.JSONPath,
        name: c.name,
        ...(c.priority ? { priority: c.priority } : {}),
        type: c.type,
      };
    });
    if (columns.length > 0) v.additionalPrinterColumns = columns;
    const selectable = markersNamed(k, 'kubebuilder:selectablefield').map((m) => ({ jsonPath: (m.value as { JSONPath: string }).JSONPath }));
    if (selectable.length > 0) v.selectableFields = selectable;
    const deprecated = marker(k, 'kubebuilder:deprecatedversion');
    if (deprecated) {
      v.deprecated = true;
      const warning = (deprecated.value as { warning?: string }).warning;
      if (warning) v.deprecationWarning = warning;
    }
    if (Object.keys(subresources).length > 0 || columns.length > 0) v.subresources = subresources;
    versions.push(v);
  }
  const storage = kept.filter((k, i) => versions[i]!.storage === true);
  if (storage.length === 0) {
    fail(undefined, kept[0]!, `has ${kept.length} versions (${kept.map((k) => k.version).join(', ')}) and none is the storage version`, 'add +kubebuilder:storageversion to exactly one of them');
  } else if (storage.length > 1) {
    fail(marker(storage[1]!, 'kubebuilder:storageversion'), storage[1]!, `has more than one storage version (${storage.map((k) => k.version).join(', ')})`, 'keep +kubebuilder:storageversion on one version only');
  }
  if (!versions.some((v) => v.served)) fail(marker(kept[0]!, 'kubebuilder:unservedversion'), kept[0]!, 'no version is served', 'remove +kubebuilder:unservedversion from one version');

  const group = first.group;
  const plural = names.plural as string;
  return {
    fileName: `${group}_${plural}.yaml`,
    crd: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: {
        annotations: { ...annotations, [VERSION_ANNOTATION]: toolVersion },
        ...(Object.keys(labels).length > 0 ? { labels } : {}),
        name: `${plural}.${group}`,
      },
      spec: { group, names, scope, versions },
    },
  };
}
