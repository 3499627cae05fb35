// The Go model (./go-model.ts) as TypeScript files for `opgen generate`: one folder per Go package, one
// file per Go file, an interface per struct and a type alias per other named type, with the markers
// controller-gen reads kept as markers and the descriptions it makes kept as JSDoc. What controller-gen
// ignores (other generators' markers, typos) becomes a plain comment and is listed in the summary.
import { posix } from 'node:path';
import { TYPE_META } from '../crd/known-types.js';
import type { GeneratorRegistry } from '../registry/index.js';
import { parseArguments, splitMarker, type Target } from '../markers/index.js';
import { pluralize } from '../naming/index.js';
import type { GoField, GoMarker, GoModel, GoPackage, GoTypeDecl, GoTypeExpr } from './go-model.js';

/** One comment block and declaration as the template writes it. */
export interface CommentedLines {
  /** Go markers controller-gen ignores, written as plain comments (without their `+`). */
  ignored: string[];
  /** Marker texts including the `+`. */
  markers: string[];
  /** Description lines: a JSDoc block, or `//` lines when the text holds a `*` `/` (which would end it). */
  doc: string[];
  jsdoc: boolean;
  lineDoc: boolean;
}

export interface FieldOut extends CommentedLines {
  name: string;
  optional: boolean;
  type: string;
}

export interface DeclarationOut extends CommentedLines {
  name: string;
  isInterface: boolean;
  extends: string;
  fields: FieldOut[];
  /** For a type alias. */
  type: string;
  /** `export const X = GroupVersion.kind<X>(...)` for a kind (the templates run strict: always present). */
  kind: { plural: string; namespaced: boolean } | undefined;
  constants: { name: string; value: string }[];
}

export interface FileOut {
  /** Path relative to the output folder. */
  path: string;
  goFile: string;
  importPath: string;
  imports: ImportOut[];
  /** Package markers (groupversion-info.ts, or the package's first file). */
  packageMarkers: string[];
  packageIgnored: string[];
  groupVersion: { group: string; version: string } | undefined;
  /** The file holding the package markers (groupversion-info.ts). */
  isPackageFile: boolean;
  /** Namespace import names given so far, by module (one name per module in a file). */
  namespaceOf: Map<string, string>;
  declarations: DeclarationOut[];
}

export interface ImportOut {
  /** `{ A, B }` or `* as ns` */
  clause: string;
  from: string;
  typeOnly: boolean;
}

export interface IndexOut {
  path: string;
  importPath: string;
  exports: string[];
}

export interface Summary {
  packages: { importPath: string; folder: string; root: boolean; types: number; kinds: string[] }[];
  /** Markers controller-gen ignores, kept as comments. */
  ignored: { pos: string; text: string; why: string }[];
  /** Go constructs with no TypeScript form, and what was done about them. */
  notes: { pos: string; text: string }[];
}

export interface Translation {
  files: FileOut[];
  indexes: IndexOut[];
  summary: Summary;
}

const RUNTIME = '@opgen/runtime';
const RUNTIME_KUBERNETES = '@opgen/runtime/kubernetes';
const META = 'k8s.io/apimachinery/pkg/apis/meta/v1';

/** Marker names that decide whether a field is required, as controller-gen's structToSchema reads them. */
const OPTIONAL_MARKERS = ['optional', 'k8s:optional'];
const REQUIRED_MARKERS = ['required', 'k8s:required'];

type Classified = { kind: 'keep'; name: string; value: unknown } | { kind: 'package'; name: string } | { kind: 'ignore'; why: string };

/** `folderFor` places a package's folder itself (migrate project: where create api puts the version). */
export function translate(model: GoModel, reg: GeneratorRegistry, folderFor?: (pkg: GoPackage) => string | undefined): Translation {
  const { registry } = reg;
  const summary: Summary = { packages: [], ignored: [], notes: [] };
  const byPath = new Map(model.packages.map((p) => [p.importPath, p]));
  const folderOf = packageFolders(model.packages);
  for (const p of model.packages) {
    const folder = folderFor?.(p);
    if (folder !== undefined) folderOf.set(p.importPath, folder);
  }
  const rootModules = new Set(model.packages.filter((p) => p.root).map((p) => p.module));

  const classify = (m: GoMarker, target: Target): Classified => {
    if (m.inBlock) return { kind: 'ignore', why: `in a /* */ comment: controller-gen reads markers only from // comments${m.fromGodoc ? ', and keeps this line in the description' : ''}` };
    const text = m.text.slice(1);
    const split = splitMarker(text, (n) => registry.lookup(n));
    if (!split) return { kind: 'ignore', why: text.startsWith('build ') ? 'a Go build constraint' : 'not a controller-gen marker' };
    const name = split.definition.name;
    const def = registry.lookup(name, target);
    if (!def && target === 'type' && !m.fromGodoc && registry.lookup(name, 'package')) return { kind: 'package', name };
    if (!def) return { kind: 'ignore', why: `not a ${target} marker here` };
    try {
      return { kind: 'keep', name, value: parseArguments({ ...split, definition: def }) };
    } catch (err) {
      return { kind: 'ignore', why: `opgen cannot read it: ${(err as Error).message}` };
    }
  };

  // A package's fields are optional by default with +kubebuilder:validation:Optional among its package
  // markers, or in a marker block above one of its types (controller-gen widens it to the package).
  const optional = (m: GoMarker, target: Target): boolean => m.text === '+kubebuilder:validation:Optional' && classify(m, target).kind === (target === 'type' ? 'package' : 'keep');
  const optionalByPkg = new Map(
    model.packages.map((p) => [p.importPath, p.markers.some((m) => optional(m, 'package')) || p.types.some((t) => t.markers.some((m) => optional(m, 'type')))]),
  );
  const groupOf = (p: GoPackage): string | undefined => p.markers.find((m) => !m.inBlock && m.text.startsWith('+groupName='))?.text.slice('+groupName='.length);
  /**
   * The struct behind a kind, as controller-gen's FindKubeKinds finds it: a struct embedding TypeMeta and
   * ObjectMeta, or a type of the same name declared as one of the same group (gateway-api's v1beta1
   * `type ReferenceGrant v1.ReferenceGrant`: a version of the same kind).
   */
  const kindStruct = (pkg: GoPackage, t: GoTypeDecl): { pkg: GoPackage; decl: GoTypeDecl } | undefined => {
    let at = { pkg, decl: t };
    for (let depth = 0; depth < 8; depth++) {
      if (at.decl.type.kind === 'struct') return isKindStruct(at.decl) && at.decl.name === t.name && groupOf(at.pkg) === groupOf(pkg) ? at : undefined;
      const ref = at.decl.type;
      const target = ref.kind === 'named' || (ref.kind === 'ident' && !ref.basic) ? byPath.get(ref.pkg ?? at.pkg.importPath) : undefined;
      const decl = target?.types.find((d) => d.name === (ref as { name: string }).name);
      if (!target || !decl) return undefined;
      at = { pkg: target, decl };
    }
    return undefined;
  };

  const files: FileOut[] = [];
  const indexes: IndexOut[] = [];
  for (const pkg of model.packages) {
    if (pkg.types.length === 0 && !pkg.root) continue;
    const folder = folderOf.get(pkg.importPath)!;
    const localNames = new Set(pkg.types.map((t) => t.name));
    const fileOfType = new Map(pkg.types.map((t) => [t.name, tsFileName(t.file)]));
    const packageMarkers: string[] = [];
    const packageIgnored: string[] = [];
    // Markers of the user's module are reported; those of the dependencies' types are only carried.
    const own = rootModules.has(pkg.module);
    const ignore = (m: GoMarker, why: string, into: string[]): void => {
      // A doc comment's line stays in the description (escaped there, so opgen does not read a marker).
      if (!(m.inBlock && m.fromGodoc)) into.push(m.text.slice(1));
      if (own) summary.ignored.push({ pos: m.pos, text: m.text, why });
    };
    for (const m of pkg.markers) {
      const c = classify(m, 'package');
      // A dependency's group is not ours: only its folder-wide defaults matter to the schemas.
      if (c.kind === 'keep' && (pkg.root || c.name === 'kubebuilder:validation:Optional')) {
        packageMarkers.push(m.text);
      } else if (pkg.root) ignore(m, c.kind === 'ignore' ? c.why : 'not a package marker', packageIgnored);
    }
    const groupMarker = pkg.markers.find((m) => !m.inBlock && m.text.startsWith('+groupName='));
    const group = groupMarker ? groupMarker.text.slice('+groupName='.length) : undefined;
    const versionMarker = pkg.markers.find((m) => !m.inBlock && m.text.startsWith('+versionName='));
    if (pkg.root && group !== undefined && !versionMarker && pkg.name !== posix.basename(folder)) packageMarkers.push(`+versionName=${pkg.name}`);

    const byFile = new Map<string, FileOut>();
    const fileFor = (goFile: string): FileOut => {
      const path = posix.join(folder, tsFileName(goFile));
      let f = byFile.get(path);
      if (!f) {
        f = { path, goFile, importPath: pkg.importPath, imports: [], packageMarkers: [], packageIgnored: [], groupVersion: undefined, isPackageFile: false, namespaceOf: new Map(), declarations: [] };
        byFile.set(path, f);
      }
      return f;
    };
    const pkgFile = fileFor('groupversion_info.go');
    pkgFile.goFile = pkg.markers[0]?.pos.replace(/:\d+:\d+$/, '').replace(/^.*\//, '') ?? 'groupversion_info.go';
    pkgFile.packageMarkers = packageMarkers;
    pkgFile.isPackageFile = true;
    pkgFile.packageIgnored = packageIgnored;
    if (pkg.root && group !== undefined) pkgFile.groupVersion = { group, version: versionMarker ? versionMarker.text.slice('+versionName='.length) : pkg.name };

    const kinds: string[] = [];
    const sorted = [...pkg.types].sort((a, b) => compareGoPos(a.pos, b.pos));
    for (const t of sorted) {
      const file = fileFor(t.file);
      const imports = new ImportSet(file, pkg.importPath, folder, localNames, fileOfType, byPath, folderOf);
      const typeMarkers: string[] = [];
      const typeIgnored: string[] = [];
      const struct = pkg.root ? kindStruct(pkg, t) : undefined;
      const isKind = struct !== undefined;
      const isList = t.name.endsWith('List') && (t.fields ?? []).some((f) => jsonName(f) === 'items');
      let resource: { path?: string; scope?: string } | undefined;
      for (const m of t.markers) {
        const c = classify(m, 'type');
        if (c.kind === 'keep' && c.name === 'kubebuilder:object:root') {
          // opgen's kinds are the ones controller-gen finds (TypeMeta + ObjectMeta); lists keep theirs.
          if (isKind || isList) typeMarkers.push(m.text);
          else ignore(m, 'not a kind: it does not embed TypeMeta and ObjectMeta', typeIgnored);
          continue;
        }
        if (c.kind === 'keep') {
          if (c.name === 'kubebuilder:resource') resource = c.value as typeof resource;
          typeMarkers.push(m.text);
        } else if (c.kind === 'package') {
          // controller-gen reads a package marker above a type as the package's (e.g. +groupName).
          if (pkg.root || c.name === 'kubebuilder:validation:Optional') pkgFile.packageMarkers.push(m.text);
        } else ignore(m, c.why, typeIgnored);
      }
      if (isKind && !typeMarkers.some((m) => m.startsWith('+kubebuilder:object:root'))) typeMarkers.unshift('+kubebuilder:object:root=true');
      // A kind declared as another package's kind struct is that struct here: opgen's kinds are interfaces.
      const body = struct ?? { pkg, decl: t };
      if (body.decl !== t) {
        for (const m of body.decl.markers) {
          const c = classify(m, 'type');
          // Its schema markers shape this version's schema too (the CRD markers are this type's own).
          if (c.kind === 'keep' && reg.schemaMarkers.has(c.name)) typeMarkers.push(m.text);
        }
      }
      const decl: DeclarationOut = {
        name: t.name,
        isInterface: body.decl.type.kind === 'struct' && !(body.decl === t && t.alias),
        extends: '',
        fields: [],
        type: '',
        constants: [],
        kind: undefined,
        ...comments(typeIgnored, typeMarkers, t.doc || body.decl.doc),
      };
      if (isKind) {
        kinds.push(t.name);
        if (pkgFile.groupVersion) {
          decl.kind = { plural: resource?.path || pluralize(t.name), namespaced: resource?.scope !== 'Cluster' };
          imports.value('GroupVersion', './groupversion-info.js');
        }
      }
      if (decl.isInterface) {
        const bases: string[] = [];
        for (const f of body.decl.fields ?? []) {
          const out = field(f, body.decl, optionalByPkg.get(body.pkg.importPath) ?? false, imports, classify, ignore, summary);
          if (out === undefined) continue;
          if ('base' in out) bases.push(out.base);
          else decl.fields.push(...out.fields);
        }
        if (bases.length > 0) decl.extends = ` extends ${bases.join(', ')}`;
      } else if (t.type.kind === 'struct') {
        summary.notes.push({ pos: t.pos, text: `${t.name}: an alias of an inline struct has no TypeScript form here; written as an empty interface` });
        decl.isInterface = true;
      } else {
        const mapped = typeText(t.type, imports, { pos: t.pos, subject: t.name }, summary);
        decl.type = mapped.text;
        // Typed string constants: the values of a +k8s:enum type, and names a user of the API looks for.
        if (mapped.text === 'string') decl.constants = (t.constants ?? []).map((c) => ({ name: c.name, value: tsString(c.value) }));
        if (mapped.format) decl.markers.unshift(`+kubebuilder:validation:${mapped.format}`);
      }
      file.declarations.push(decl);
      imports.flush();
    }
    for (const f of byFile.values()) if (f.declarations.length > 0 || f.packageMarkers.length > 0 || f.packageIgnored.length > 0 || f.groupVersion) files.push(f);
    const exported = [...byFile.values()].filter((f) => f.declarations.length > 0 || f.groupVersion).map((f) => `./${posix.basename(f.path).replace(/\.ts$/, '.js')}`);
    indexes.push({ path: posix.join(folder, 'index.ts'), importPath: pkg.importPath, exports: exported.sort() });
    summary.packages.push({ importPath: pkg.importPath, folder, root: pkg.root, types: pkg.types.length, kinds });
  }
  return { files: files.sort((a, b) => (a.path < b.path ? -1 : 1)), indexes, summary };
}

/** The TypeScript file of a Go file: kebab-case, so `alertmanager_types.go` is `alertmanager-types.ts`. */
function tsFileName(goFile: string): string {
  return `${goFile.replace(/\.go$/, '').replace(/_/g, '-')}.ts`;
}

function compareGoPos(a: string, b: string): number {
  const pa = /^(.*):(\d+):(\d+)$/.exec(a)!;
  const pb = /^(.*):(\d+):(\d+)$/.exec(b)!;
  if (pa[1] !== pb[1]) return pa[1]! < pb[1]! ? -1 : 1;
  return Number(pa[2]) - Number(pb[2]);
}

/**
 * Output folders: the packages named on the command line (and other packages below their common parent)
 * keep their paths below that parent; any other package goes to `_imports/<import path>`.
 */
function packageFolders(packages: GoPackage[]): Map<string, string> {
  const roots = packages.filter((p) => p.root).map((p) => p.importPath);
  const parents = roots.map((r) => posix.dirname(r).split('/'));
  let common = parents[0] ?? [];
  for (const p of parents.slice(1)) {
    let i = 0;
    while (i < common.length && i < p.length && common[i] === p[i]) i++;
    common = common.slice(0, i);
  }
  const prefix = common.join('/');
  const out = new Map<string, string>();
  for (const p of packages) {
    const under = prefix !== '' && p.importPath.startsWith(`${prefix}/`) ? p.importPath.slice(prefix.length + 1) : undefined;
    out.set(p.importPath, under ?? (p.root ? p.importPath : `_imports/${p.importPath}`));
  }
  return out;
}

function jsonName(f: GoField): string {
  return f.jsonTag.split(',')[0] ?? '';
}

function namedIn(t: GoTypeExpr, pkg: string, name: string): boolean {
  if (t.kind === 'pointer') return namedIn(t.elem, pkg, name);
  return t.kind === 'named' && t.pkg === pkg && t.name === name;
}

/** controller-gen's FindKubeKinds: a struct embedding both metav1.TypeMeta and metav1.ObjectMeta. */
function isKindStruct(t: GoTypeDecl): boolean {
  const embedded = (t.fields ?? []).filter((f) => f.embedded);
  return embedded.some((f) => namedIn(f.type, META, 'TypeMeta')) && embedded.some((f) => namedIn(f.type, META, 'ObjectMeta'));
}

function comments(ignored: string[], markers: string[], doc: string): CommentedLines {
  // A description line reading like a marker (from a Go /* */ comment) is written `\+`: opgen reads a
  // `+` line of any TypeScript comment as a marker, and a `\+` line as description text starting with `+`.
  const lines = doc === '' ? [] : doc.split('\n').map((l) => l.replace(/^([\s*]*)\+/, '$1\\+'));
  const line = doc.includes('*/');
  return { ignored, markers, doc: lines, jsdoc: lines.length > 0 && !line, lineDoc: lines.length > 0 && line };
}

type FieldResult = { base: string } | { fields: FieldOut[] } | undefined;

function field(
  f: GoField,
  owner: GoTypeDecl,
  optionalPackage: boolean,
  imports: ImportSet,
  classify: (m: GoMarker, target: Target) => Classified,
  ignore: (m: GoMarker, why: string, into: string[]) => void,
  summary: Summary,
): FieldResult {
  const where: Where = { pos: f.pos, subject: `${owner.name}.${f.name}` };
  if (!f.hasTag) {
    note(summary, where, `no json tag, so not part of the JSON (controller-gen refuses such a field in a CRD); left out`);
    return undefined;
  }
  const opts = f.jsonTag.split(',');
  if (opts.length === 1 && opts[0] === '-') return undefined;
  const name = opts[0]!;
  const inline = opts.includes('inline') || name === '';
  const omitEmpty = opts.includes('omitempty') || opts.includes('omitzero');
  const markers: string[] = [];
  const ignored: string[] = [];
  const names: string[] = [];
  for (const m of f.markers) {
    const c = classify(m, 'field');
    if (c.kind === 'keep') {
      markers.push(m.text);
      names.push(c.name);
    } else ignore(m, c.kind === 'ignore' ? c.why : 'a package marker has no effect on a field', ignored);
  }
  if (inline) {
    if (namedIn(f.type, META, 'TypeMeta')) {
      // metav1.TypeMeta's two fields with its descriptions (a kind's are fixed by the generator anyway).
      const typeMeta = (n: 'apiVersion' | 'kind'): FieldOut => ({ name: n, optional: true, type: 'string', ...comments([], [], TYPE_META[n].description ?? '') });
      return { fields: [typeMeta('apiVersion'), typeMeta('kind')] };
    }
    // Requiredness markers mean nothing on an inline field (its properties are merged); others would.
    const effective = markers.filter((_, i) => !['optional', 'required', 'k8s:optional', 'k8s:required', 'kubebuilder:validation:Optional', 'kubebuilder:validation:Required'].includes(names[i]!));
    if (effective.length > 0) note(summary, where, `the markers of an embedded field (${effective.join(' ')}) have no place on an extends clause; left out`);
    return { base: typeText(f.type, imports, where, summary).text };
  }
  // controller-gen's order: kubebuilder's Optional/Required, then +optional/+required, then the json tag.
  const has = (list: string[]): boolean => names.some((n) => list.includes(n));
  let required: boolean;
  if (has(['kubebuilder:validation:Optional'])) required = false;
  else if (has(['kubebuilder:validation:Required'])) required = true;
  else if (has(OPTIONAL_MARKERS)) required = false;
  else if (has(REQUIRED_MARKERS)) required = true;
  else required = !optionalPackage && !omitEmpty;
  const schemaless = names.includes('kubebuilder:validation:Schemaless');
  const mapped = schemaless ? { text: 'unknown' } : typeText(f.type, imports, where, summary);
  if (mapped.format) markers.unshift(`+kubebuilder:validation:${mapped.format}`);
  return { fields: [{ name: propertyName(name), optional: !required, type: mapped.text, ...comments(ignored, markers, f.doc) }] };
}

/** A single-quoted TypeScript string literal. */
function tsString(value: string): string {
  return `'${JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

function propertyName(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

const INT_KINDS: Record<string, string> = {
  int: 'int',
  int8: 'int',
  int16: 'int',
  uint: 'int',
  uint8: 'int',
  uint16: 'int',
  uintptr: 'int',
  int32: 'int32',
  uint32: 'int32',
  int64: 'int64',
  uint64: 'int64',
};

/** @opgen/runtime's own types for apimachinery types outside metav1. */
const RUNTIME_TYPES: Record<string, string> = {
  // metav1's scalar types live at @opgen/runtime's top level (its metav1 namespace has the structs).
  'k8s.io/apimachinery/pkg/apis/meta/v1.Time': 'Time',
  'k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime': 'MicroTime',
  'k8s.io/apimachinery/pkg/apis/meta/v1.Duration': 'Duration',
  'k8s.io/apimachinery/pkg/api/resource.Quantity': 'Quantity',
  'k8s.io/apimachinery/pkg/util/intstr.IntOrString': 'IntOrString',
  'k8s.io/apimachinery/pkg/runtime.RawExtension': 'RawExtension',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON': 'JSON',
};

/** metav1 types @opgen/runtime has (the rest of metav1 is read from source when it is not a struct). */
const RUNTIME_META_TYPES = ['ObjectMeta', 'ListMeta', 'TypeMeta', 'Condition', 'LabelSelector', 'LabelSelectorRequirement', 'OwnerReference', 'ManagedFieldsEntry'];

function isByte(t: GoTypeExpr): boolean {
  return t.kind === 'ident' && t.basic === true && t.name === 'uint8';
}

/**
 * The TypeScript type of a Go type expression. `[]byte` is a string with `Format=byte` (controller-gen's
 * schema for it), returned as the marker the declaration needs.
 */
interface Where {
  pos: string;
  subject: string;
}

function note(summary: Summary, where: Where, text: string): void {
  summary.notes.push({ pos: where.pos, text: `${where.subject}: ${text}` });
}

function typeText(t: GoTypeExpr, imports: ImportSet, where: Where, summary: Summary): { text: string; format?: string } {
  switch (t.kind) {
    case 'pointer':
      return typeText(t.elem, imports, where, summary);
    case 'slice':
    case 'array': {
      if (isByte(t.elem)) return { text: 'string', format: 'Format=byte' };
      if ((t.elem.kind === 'slice' || t.elem.kind === 'array') && isByte(t.elem.elem)) return { text: 'string[]', format: 'items:Format=byte' };
      const inner = typeText(t.elem, imports, where, summary);
      return { text: `${inner.text}[]` };
    }
    case 'map': {
      const key = t.key.kind === 'ident' && t.key.basic ? t.key.name : 'string';
      if (key !== 'string') note(summary, where, `map key ${key} is not a string; written as Record<string, …>`);
      const value = typeText(t.elem, imports, where, summary).text;
      // A Go type named Record would shadow TypeScript's in its files: write the map as an index signature.
      return { text: imports.shadows('Record') ? `{ [key: string]: ${value} }` : `Record<string, ${value}>` };
    }
    case 'interface':
      return { text: 'unknown' };
    case 'struct':
      note(summary, where, `an inline struct type has no CRD schema (controller-gen refuses it); written as unknown`);
      return { text: 'unknown' };
    case 'unsupported':
      note(summary, where, `Go type ${t.text} has no TypeScript form here; written as unknown`);
      return { text: 'unknown' };
    case 'ident': {
      if (t.basic) {
        if (t.name === 'string') return { text: 'string' };
        if (t.name === 'bool') return { text: 'boolean' };
        if (t.name === 'float32' || t.name === 'float64') return { text: 'number' };
        const int = INT_KINDS[t.name];
        if (int) return { text: imports.runtime(int) };
        note(summary, where, `Go type ${t.name} has no JSON form; written as unknown`);
        return { text: 'unknown' };
      }
      if (!imports.migrated(t.pkg ?? '', t.name)) {
        note(summary, where, `Go type ${t.name} was not found in its package (a type parameter, or a file go list left out); written as unknown`);
        return { text: 'unknown' };
      }
      return { text: imports.local(t.name, t.pkg) };
    }
    case 'named': {
      const runtimeType = RUNTIME_TYPES[`${t.pkg}.${t.name}`];
      if (runtimeType) return { text: imports.runtime(runtimeType) };
      if (t.pkg === META && RUNTIME_META_TYPES.includes(t.name)) return { text: `${imports.kubernetes('metav1')}.${t.name}` };
      // Named strings, maps and slices of the Kubernetes packages (corev1.PullPolicy) were read from source.
      if (imports.migrated(t.pkg, t.name)) return { text: imports.other(t.pkg, t.name, t.alias) };
      const k8s = /^k8s\.io\/api\/([a-z0-9]+)\/(v\d+(?:(?:alpha|beta)\d+)?)$/.exec(t.pkg);
      if (k8s) return { text: `${imports.kubernetes(`${k8s[1]}${k8s[2]}`)}.${t.name}` };
      if (t.pkg === META) return { text: `${imports.kubernetes('metav1')}.${t.name}` };
      if (t.pkg === 'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1') return { text: `${imports.kubernetes('apiextensionsv1')}.${t.name}` };
      if (t.pkg.startsWith('k8s.io/apimachinery/pkg/runtime') || t.pkg.startsWith('k8s.io/apimachinery/pkg/api/resource') || t.pkg.startsWith('k8s.io/apimachinery/pkg/util/intstr')) {
        note(summary, where, `${t.pkg}.${t.name} has no @opgen/runtime type; written as unknown`);
        return { text: 'unknown' };
      }
      if (!imports.migrated(t.pkg, t.name)) {
        note(summary, where, `${t.pkg}.${t.name} could not be read (go list found no such type); written as unknown`);
        return { text: 'unknown' };
      }
      return { text: imports.other(t.pkg, t.name, t.alias) };
    }
  }
}

/** The imports one declaration needs, merged into its file's import list. */
class ImportSet {
  private readonly runtimeNames = new Set<string>();
  private readonly kubernetesNames = new Set<string>();
  private readonly values = new Map<string, Set<string>>();
  private readonly locals = new Map<string, Set<string>>();
  private readonly namespaces = new Map<string, string>();

  constructor(
    private readonly file: FileOut,
    /** The Go package of the declaration being written: its bare type names are local. */
    private readonly pkgPath: string,
    private readonly folder: string,
    private readonly localNames: Set<string>,
    private readonly fileOfType: Map<string, string>,
    private readonly packages: Map<string, GoPackage>,
    private readonly folders: Map<string, string>,
  ) {}

  runtime(name: string): string {
    // A type of the package with the same name (a Go `Duration` of its own) keeps its name; ours is renamed.
    if (this.localNames.has(name)) {
      this.runtimeNames.add(`${name} as Runtime${name}`);
      return `Runtime${name}`;
    }
    this.runtimeNames.add(name);
    return name;
  }

  kubernetes(namespace: string): string {
    this.kubernetesNames.add(namespace);
    return namespace;
  }

  value(name: string, from: string): void {
    this.values.set(from, (this.values.get(from) ?? new Set()).add(name));
  }

  /** Whether a type of this package has `name` (and hides a TypeScript global of that name). */
  shadows(name: string): boolean {
    return this.localNames.has(name);
  }

  /** Whether the Go reader migrated this type (rather than leaving it to opgen's own Kubernetes types). */
  migrated(pkgPath: string, name: string): boolean {
    return this.packages.get(pkgPath)?.types.some((t) => t.name === name) ?? false;
  }

  local(name: string, pkgPath: string | undefined): string {
    if (pkgPath !== undefined && pkgPath !== this.pkgPath) return this.other(pkgPath, name);
    const file = this.fileOfType.get(name);
    if (file && posix.join(this.folder, file) !== this.file.path) {
      const from = `./${file.replace(/\.ts$/, '.js')}`;
      this.locals.set(from, (this.locals.get(from) ?? new Set()).add(name));
    }
    return name;
  }

  other(pkgPath: string, name: string, goAlias?: string): string {
    const pkg = this.packages.get(pkgPath);
    const folder = this.folders.get(pkgPath);
    if (!pkg || !folder) return name;
    let rel = posix.relative(this.folder, folder);
    if (!rel.startsWith('.')) rel = `./${rel}`;
    const from = `${rel}/index.js`;
    let ns = this.file.namespaceOf.get(from);
    if (ns === undefined) {
      // The Go file's own name for the package, unless it is a bare version or could be one of the
      // runtime's Kubernetes namespaces (`metav1`, `corev1`) the file may also use.
      ns = goAlias && !/^v\d/.test(goAlias) && !KUBERNETES_NAMESPACE.test(goAlias) ? goAlias : `${pkgPath.startsWith('k8s.io/') ? 'k8s' : ''}${aliasFor(pkgPath)}`;
      if (KUBERNETES_NAMESPACE.test(ns)) ns = `${ns}types`;
      const taken = new Set(this.file.namespaceOf.values());
      const base = ns;
      for (let i = 2; taken.has(ns) || this.localNames.has(ns); i++) ns = `${base}${i}`;
      this.file.namespaceOf.set(from, ns);
    }
    this.namespaces.set(from, ns);
    return `${ns}.${name}`;
  }

  /** Adds this declaration's imports to its file's. */
  flush(): void {
    const named = new Map<string, { names: Set<string>; typeOnly: boolean }>();
    const namespaces = new Map<string, string>();
    for (const i of this.file.imports) {
      if (i.clause.startsWith('* as ')) namespaces.set(i.from, i.clause.slice(5));
      else named.set(`${i.typeOnly}\0${i.from}`, { names: new Set(i.clause.slice(2, -2).split(', ')), typeOnly: i.typeOnly });
    }
    const add = (names: Set<string>, from: string, typeOnly: boolean): void => {
      if (names.size === 0) return;
      const key = `${typeOnly}\0${from}`;
      const entry = named.get(key) ?? { names: new Set<string>(), typeOnly };
      for (const n of names) entry.names.add(n);
      named.set(key, entry);
    };
    add(this.runtimeNames, RUNTIME, true);
    add(this.kubernetesNames, RUNTIME_KUBERNETES, true);
    for (const [from, names] of this.values) add(names, from, false);
    for (const [from, names] of this.locals) add(names, from, true);
    for (const [from, ns] of this.namespaces) namespaces.set(from, ns);
    const out: ImportOut[] = [];
    for (const [key, { names, typeOnly }] of named) out.push({ clause: `{ ${[...names].sort().join(', ')} }`, from: key.slice(key.indexOf('\0') + 1), typeOnly });
    for (const [from, ns] of namespaces) out.push({ clause: `* as ${ns}`, from, typeOnly: true });
    out.sort((a, b) => importRank(a.from) - importRank(b.from) || (a.from < b.from ? -1 : a.from > b.from ? 1 : 0) || Number(a.typeOnly) - Number(b.typeOnly));
    this.file.imports = out;
  }
}

/** Names of @opgen/runtime/kubernetes namespaces (`corev1`, `metav1`, …): never a migrated package's. */
const KUBERNETES_NAMESPACE =
  /^(admission|admissionregistration|apiextensions|apiserverinternal|apps|authentication|authorization|autoscaling|batch|certificates|coordination|core|discovery|events|flowcontrol|imagepolicy|meta|networking|node|policy|rbac|resource|scheduling|storage|storagemigration)v\d+((alpha|beta)\d+)?$/;

function importRank(from: string): number {
  return from.startsWith('@') ? 0 : from.startsWith('../') ? 1 : 2;
}

/** A namespace name for a package whose Go name is a bare version (`v1`): its last two path elements. */
function aliasFor(pkgPath: string): string {
  const parts = pkgPath.split('/');
  return parts
    .slice(-2)
    .join('')
    .replace(/[^A-Za-z0-9_]/g, '');
}
