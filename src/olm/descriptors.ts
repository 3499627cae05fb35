// Reads the API types of a project and turns `+operator-sdk:csv:customresourcedefinitions` markers (and
// doc comments) into the CSV's owned CRD entries: displayName, description, resources and the spec and
// status descriptors, keyed by group/version/kind.
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ts as TS } from 'ts-morph';
import { OpgenError, OpgenErrors } from '../diag/diagnostic.js';
import { expandPaths } from '../common/paths.js';
import { createGeneratorRegistry } from '../registry/index.js';
import { loadTypeScript } from '../common/typescript-loader.js';
import { SourceSet, type CollectedMarker, type LoadedFile } from '../markers/index.js';
import { CSV_CRD_MARKER } from '../registry/olm-markers.js';

export interface Descriptor {
  path: string;
  displayName?: string;
  description?: string;
  'x-descriptors'?: string[];
}

/**
 * What a marker states (it wins over the base CSV) and what opgen only proposes (the doc comment, a
 * display name made from the name: used where the base CSV has nothing).
 */
export interface Derived<T> {
  stated: T;
  defaults: Partial<T>;
}

export interface OwnedCrdInfo {
  group: string;
  version: string;
  kind: string;
  displayName?: string;
  defaultDisplayName: string;
  description?: string;
  resources?: { kind: string; version: string; name: string }[];
  specDescriptors: Derived<Descriptor>[];
  statusDescriptors: Derived<Descriptor>[];
}

interface Ordered {
  order?: number;
  descriptor: Derived<Descriptor>;
}

/** Every kind under the project's API sources with what its CSV markers say. Throws OpgenErrors on bad markers. */
export function readOwnedCrdInfo(cwd: string, paths?: string): OwnedCrdInfo[] {
  const scan = paths ?? (existsSync(join(cwd, 'src', 'api')) ? 'src/api' : 'src');
  if (!existsSync(join(cwd, scan.split('*')[0]!))) return [];
  const ts = loadTypeScript();
  const { registry } = createGeneratorRegistry();
  const errors: OpgenError[] = [];
  const sources = new SourceSet(ts, registry, cwd, errors);
  const files = expandPaths(cwd, scan).map((f) => sources.load(f));
  const byDir = new Map<string, LoadedFile[]>();
  for (const f of files) byDir.set(dirname(f.abs), [...(byDir.get(dirname(f.abs)) ?? []), f]);

  const out: OwnedCrdInfo[] = [];
  for (const [dir, dirFiles] of byDir) {
    const pkg = dirFiles.flatMap((f) => f.markers.package);
    const group = pkg.find((m) => m.definition.name === 'groupName')?.value as string | undefined;
    if (group === undefined) continue;
    const version = (pkg.find((m) => m.definition.name === 'versionName')?.value as string | undefined) ?? basename(dir);
    for (const file of dirFiles) {
      for (const st of file.sf.statements) {
        if (!ts.isInterfaceDeclaration(st)) continue;
        const info = file.markers.declarations.get(st);
        if (!info?.markers.some((m) => m.definition.name === 'kubebuilder:object:root' && m.value === true)) continue;
        const props = st.members.filter(ts.isPropertySignature);
        if (st.name.text.endsWith('List') && props.some((p) => propName(ts, p.name) === 'items')) continue;
        const marker = csvMarker(info.markers);
        const args = (marker?.value ?? {}) as Record<string, unknown>;
        if (marker && (args.type !== undefined || args.xDescriptors !== undefined)) {
          errors.push(new OpgenError(`${st.name.text}: type= and xDescriptors= belong on fields, not on a kind`, marker.where, 'keep displayName and resources on the kind'));
        }
        const entry: OwnedCrdInfo = {
          group,
          version,
          kind: st.name.text,
          displayName: args.displayName as string | undefined,
          defaultDisplayName: splitWords(st.name.text),
          specDescriptors: [],
          statusDescriptors: [],
        };
        if (info.description) entry.description = info.description;
        if (args.resources !== undefined && marker) entry.resources = resourcesOf(args.resources as string[][], marker, errors);
        const spec: Ordered[] = [];
        const status: Ordered[] = [];
        for (const p of props) {
          const root = propName(ts, p.name);
          if (root !== 'spec' && root !== 'status') continue;
          walkFields(ts, sources, file, p.type, '', root, root === 'spec' ? spec : status, { spec, status }, errors, new Set());
        }
        entry.specDescriptors = sortDescriptors(spec);
        entry.statusDescriptors = sortDescriptors(status);
        out.push(entry);
      }
    }
  }
  if (sources.syntaxErrors.length > 0) throw new OpgenErrors(sources.syntaxErrors);
  if (errors.length > 0) throw new OpgenErrors(errors);
  return out.sort((a, b) => cmp(`${a.group}/${a.kind}/${a.version}`, `${b.group}/${b.kind}/${b.version}`));
}

function walkFields(
  ts: typeof TS,
  sources: SourceSet,
  file: LoadedFile,
  type: TS.TypeNode | undefined,
  prefix: string,
  root: 'spec' | 'status',
  sink: Ordered[],
  lists: { spec: Ordered[]; status: Ordered[] },
  errors: OpgenError[],
  seen: Set<TS.Node>,
): void {
  if (!type) return;
  // T[] / Array<T>: descriptors of the items are written `path[0].field`, as operator-sdk writes them.
  if (ts.isArrayTypeNode(type)) return walkFields(ts, sources, file, type.elementType, `${prefix}[0]`, root, sink, lists, errors, seen);
  if (ts.isParenthesizedTypeNode(type)) return walkFields(ts, sources, file, type.type, prefix, root, sink, lists, errors, seen);
  if (ts.isUnionTypeNode(type)) {
    for (const t of type.types) walkFields(ts, sources, file, t, prefix, root, sink, lists, errors, seen);
    return;
  }
  let members: TS.NodeArray<TS.TypeElement> | undefined;
  let memberFile = file;
  if (ts.isTypeLiteralNode(type)) members = type.members;
  else if (ts.isTypeReferenceNode(type)) {
    const name = entityName(ts, type.typeName);
    if (name === 'Array' && type.typeArguments?.[0]) return walkFields(ts, sources, file, type.typeArguments[0], `${prefix}[0]`, root, sink, lists, errors, seen);
    const r = sources.resolve(file, name);
    if (r.kind !== 'declaration') return;
    if (seen.has(r.decl)) return;
    if (ts.isInterfaceDeclaration(r.decl)) members = r.decl.members;
    else if (ts.isTypeAliasDeclaration(r.decl)) {
      seen.add(r.decl);
      walkFields(ts, sources, r.file, r.decl.type, prefix, root, sink, lists, errors, seen);
      seen.delete(r.decl);
      return;
    }
    if (!members) return;
    memberFile = r.file;
    seen.add(r.decl);
    walkMembers();
    seen.delete(r.decl);
    return;
  }
  if (members) walkMembers();

  function walkMembers(): void {
    for (const m of members!) {
      if (!ts.isPropertySignature(m)) continue;
      const name = propName(ts, m.name);
      const path = prefix === '' ? name : `${prefix}.${name}`;
      const info = memberFile.markers.declarations.get(m);
      const marker = info && csvMarker(info.markers);
      if (marker) {
        const args = marker.value as Record<string, unknown>;
        let target = sink;
        if (args.type !== undefined) {
          if (args.type !== 'spec' && args.type !== 'status') {
            errors.push(new OpgenError(`type=${String(args.type)} is not a descriptor type`, marker.where, 'write type=spec or type=status'));
          } else target = lists[args.type];
        }
        if (args.resources !== undefined) {
          errors.push(new OpgenError(`${name}: resources= belongs on the kind, not on a field`, marker.where, 'move it to the kind\'s +operator-sdk:csv:customresourcedefinitions marker'));
        }
        const d: Derived<Descriptor> = { stated: { path }, defaults: { displayName: splitWords(name.charAt(0).toUpperCase() + name.slice(1)) } };
        if (args.displayName !== undefined) d.stated.displayName = args.displayName as string;
        if (info?.description) d.defaults.description = info.description;
        if (args.xDescriptors !== undefined) d.stated['x-descriptors'] = args.xDescriptors as string[];
        target.push({ order: args.order as number | undefined, descriptor: d });
      }
      walkFields(ts, sources, memberFile, m.type, path, root, sink, lists, errors, seen);
    }
  }
}

function resourcesOf(raw: string[][], marker: CollectedMarker, errors: OpgenError[]): OwnedCrdInfo['resources'] {
  const out: NonNullable<OwnedCrdInfo['resources']> = [];
  for (const r of raw) {
    if (!Array.isArray(r) || r.length !== 3) {
      errors.push(new OpgenError(`resources entry ${JSON.stringify(r)} is not {Kind,version,name}`, marker.where, 'write resources={{Deployment,v1,my-deployment}}'));
      continue;
    }
    out.push({ kind: String(r[0]), version: String(r[1]), name: String(r[2]) });
  }
  return out;
}

function csvMarker(markers: CollectedMarker[]): CollectedMarker | undefined {
  return markers.find((m) => m.definition.name === CSV_CRD_MARKER.name);
}

function sortDescriptors(list: Ordered[]): Derived<Descriptor>[] {
  // Ordered ones first by order, the rest in declaration order (operator-sdk's rule).
  const ordered = list.filter((d) => d.order !== undefined).sort((a, b) => a.order! - b.order!);
  return [...ordered, ...list.filter((d) => d.order === undefined)].map((d) => d.descriptor);
}

/** `MemcachedApp` → `Memcached App` (operator-sdk's default display name). */
export function splitWords(s: string): string {
  return s.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
}

function propName(ts: typeof TS, name: TS.PropertyName): string {
  return ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) ? name.text : name.getText();
}

function entityName(ts: typeof TS, name: TS.EntityName): string {
  return ts.isIdentifier(name) ? name.text : `${entityName(ts, name.left)}.${name.right.text}`;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

