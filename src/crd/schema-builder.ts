// TypeScript declarations → apiextensions/v1 schemas, read syntactically. Named types are inlined (a CRD
// may not use $ref); a field's own markers form a layer merged onto its type's schema (./flatten.ts).
// Where types may come from is ./type-origins.ts; what the API server would refuse, ./apiserver-refusals.ts.
import { dirname } from 'node:path';
import type { ts as TS } from 'ts-morph';
import { byteCompare } from '../common/go-order.js';
import { OpgenError } from '../diag/diagnostic.js';
import { positionOf, type CollectedMarker, type LoadedFile, type SourceSet, type TopLevelDeclaration } from '../markers/index.js';
import { checkFieldSchema, checkRulePaths } from './apiserver-refusals.js';
import { flattenInto, flattenLayer } from './flatten.js';
import { cloneJson, type JSONSchemaProps } from '../common/json-schema.js';
import { TYPE_META } from './known-types.js';
import { MarkerApplyError, type ApplyContext, type SchemaMarker } from './markers/index.js';
import { RUNTIME_MODULE, typeOrigin, type KubernetesModels } from './type-origins.js';

/** What the builder needs to know about a file's folder (API version package). */
export interface FolderDefaults {
  optionalByDefault: boolean;
}

interface Built {
  schema: JSONSchemaProps;
  /** A named type: the field's markers form a separate layer merged onto it. */
  named: boolean;
  nullable: boolean;
  /** Stands for a Go struct (runtime known type, Kubernetes model): a bare $ref to controller-gen's markers. */
  struct?: boolean;
}

export class SchemaBuilder {
  private readonly ts: typeof TS;
  private readonly named = new Map<TopLevelDeclaration, JSONSchemaProps>();
  /** The files each named type was built from: a kind reusing the schema depends on them too (watch mode). */
  private readonly namedFrom = new Map<TopLevelDeclaration, Set<LoadedFile>>();
  private readonly building: TopLevelDeclaration[] = [];

  constructor(
    private readonly sources: SourceSet,
    private readonly schemaMarkers: Map<string, SchemaMarker>,
    private readonly folderOf: (file: LoadedFile) => FolderDefaults,
    private readonly errors: OpgenError[],
    private readonly kubernetes: KubernetesModels | undefined,
    /** controller-gen's crd:generateEmbeddedObjectMeta: ObjectMeta below the root gets its five fields. */
    private readonly embeddedObjectMeta = false,
  ) {
    this.ts = sources.ts;
  }

  /** The openAPIV3Schema of a kind's root interface. */
  kindSchema(file: LoadedFile, decl: TS.InterfaceDeclaration): JSONSchemaProps {
    const path = decl.name.text;
    const { schema, bases } = this.objectSchema(file, decl, path, true);
    const info = file.markers.declarations.get(decl);
    if (info?.description) schema.description = info.description;
    this.applyMarkers(schema, info?.markers ?? [], {}, path);
    this.flattenBases(file, decl, path, schema, bases);
    return schema;
  }

  private fail(file: LoadedFile, node: TS.Node, path: string, message: string, fix?: string): JSONSchemaProps {
    this.errors.push(new OpgenError(`${path}: ${message}`, positionOf(file, node), fix));
    this.refused.add(path);
    return {};
  }

  /** Paths already refused: their markers would only add knock-on errors ("MaxProperties applies to … untyped"). */
  private readonly refused = new Set<string>();

  private applyMarkers(schema: JSONSchemaProps, markers: CollectedMarker[], ctx: ApplyContext, path: string): void {
    const applicable = markers
      .map((m) => ({ m, sm: this.schemaMarkers.get(m.definition.name) }))
      .filter((x): x is { m: CollectedMarker; sm: SchemaMarker } => x.sm !== undefined)
      .sort((a, b) => a.sm.priority - b.sm.priority);
    for (const { m, sm } of applicable) {
      try {
        sm.apply(schema, m.value, ctx);
      } catch (err) {
        if (!(err instanceof MarkerApplyError)) throw err;
        if (this.refused.has(path)) continue;
        this.errors.push(new OpgenError(`${path}: ${err.message}`, m.where, err.fix));
      }
    }
  }

  /**
   * An interface's `extends` bases (Go's embedded structs) flattened with its own schema, once its own
   * markers are on it, as controller-gen flattens a struct: the bases in order into an empty schema, then
   * the interface's own values (so a base's rules come after the interface's, and a differing
   * MinProperties keeps both in allOf). The interface's documentation stays its own.
   */
  private flattenBases(file: LoadedFile, node: TS.Node, path: string, schema: JSONSchemaProps, bases: JSONSchemaProps[]): void {
    if (bases.length === 0) return;
    const own = { ...schema };
    const merged: JSONSchemaProps = {};
    if (own.description !== undefined) merged.description = own.description;
    const conflict = (srcType: string, dstType: string): void => {
      this.fail(file, node, path, `this is a ${srcType}, but a base makes it a ${dstType}`, 'extend interfaces only');
    };
    for (const base of bases) flattenInto(merged, base, conflict);
    flattenInto(merged, own, conflict);
    // Same object: namedSchema caches it and callers hold it.
    for (const key of Object.keys(schema)) delete (schema as Record<string, unknown>)[key];
    Object.assign(schema, merged);
  }

  /** Own properties of an interface or type literal, and the schemas of its `extends` bases (not yet merged). */
  private objectSchema(file: LoadedFile, node: TS.InterfaceDeclaration | TS.TypeLiteralNode, path: string, root: boolean): { schema: JSONSchemaProps; bases: JSONSchemaProps[] } {
    const ts = this.ts;
    const properties: Record<string, JSONSchemaProps> = {};
    const required = new Set<string>();
    const bases: JSONSchemaProps[] = [];
    let additional: JSONSchemaProps | undefined;

    if (ts.isInterfaceDeclaration(node)) {
      for (const clause of node.heritageClauses ?? []) {
        for (const expr of clause.types) {
          const name = expr.expression.getText(file.sf);
          if (root && name === 'KubeObject') continue; // apiVersion/kind/metadata are emitted below
          const base = this.reference(file, expr, name, expr.typeArguments, path);
          if (base.schema.type !== 'object' || !base.schema.properties) {
            if (Object.keys(base.schema).length > 0) this.fail(file, expr, path, `extends ${name}, which is not an object type`, 'extend interfaces only');
            continue;
          }
          bases.push(base.schema);
        }
      }
    }
    const parentRules: NonNullable<JSONSchemaProps['x-kubernetes-validations']> = [];
    for (const member of node.members) {
      if (ts.isIndexSignatureDeclaration(member)) {
        const key = member.parameters[0]?.type;
        if (!key || key.kind !== ts.SyntaxKind.StringKeyword) {
          this.fail(file, member, path, 'only string index signatures can be expressed', 'use { [key: string]: T }');
          continue;
        }
        additional = this.typeSchema(file, member.type, `${path}[key]`).schema;
        continue;
      }
      if (!ts.isPropertySignature(member)) {
        this.fail(file, member, path, `${member.getText(file.sf).split('\n')[0]} is not data`, 'a CRD schema holds only properties; remove methods and call signatures');
        continue;
      }
      const name = propertyName(ts, member.name);
      if (name === undefined) {
        this.fail(file, member, path, 'computed property names cannot be expressed', 'use a plain property name');
        continue;
      }
      const fieldPath = `${path}.${name}`;
      if (root && (name === 'apiVersion' || name === 'kind')) {
        properties[name] = cloneJson(TYPE_META[name]);
        continue;
      }
      if (root && name === 'metadata') {
        // Always {type: object} (FixTopLevelMetadata), but required when declared so: `json:"metadata"`.
        properties[name] = { type: 'object' };
        if (this.isRequired(file, member)) required.add(name);
        continue;
      }
      const field = this.fieldSchema(file, member, fieldPath);
      properties[name] = field.schema;
      if (field.required) required.add(name);
      if (field.immutable && !field.required) {
        parentRules.push({ message: `field ${name} is immutable once set`, rule: `!has(oldSelf.${name}) || has(self.${name})` });
      }
    }
    if (root) {
      for (const name of ['apiVersion', 'kind'] as const) properties[name] ??= cloneJson(TYPE_META[name]);
      properties.metadata ??= { type: 'object' };
    }
    const schema: JSONSchemaProps = { type: 'object' };
    if (Object.keys(properties).length > 0) {
      if (additional) this.fail(file, node, path, 'an object cannot have both properties and an index signature', 'move the free-form entries into a Record<string, T> property');
      schema.properties = properties;
    } else if (additional) {
      schema.additionalProperties = additional;
    }
    if (required.size > 0) schema.required = [...required].sort(byteCompare);
    if (parentRules.length > 0) schema['x-kubernetes-validations'] = parentRules;
    return { schema, bases };
  }

  private fieldSchema(file: LoadedFile, prop: TS.PropertySignature, path: string): { schema: JSONSchemaProps; required: boolean; immutable: boolean } {
    const info = file.markers.declarations.get(prop);
    const markers = info?.markers ?? [];
    const has = (name: string): boolean => markers.some((m) => m.definition.name === name);
    const required = this.isRequired(file, prop);

    let schema: JSONSchemaProps;
    if (has('kubebuilder:validation:Schemaless')) {
      schema = {};
      if (info?.description) schema.description = info.description;
      this.applyMarkers(schema, markers, {}, path);
    } else if (!prop.type) {
      schema = this.fail(file, prop, path, 'has no type annotation', 'write the type, e.g. name: string');
    } else {
      const built = this.typeSchema(file, prop.type, path, has('kubebuilder:pruning:PreserveUnknownFields'));
      if (built.named) {
        const layer: JSONSchemaProps = {};
        if (info?.description) layer.description = info.description;
        if (built.nullable) layer.nullable = true;
        this.applyMarkers(layer, markers, { typeHint: built.schema.type, intOrStringHint: built.schema['x-kubernetes-int-or-string'], structRef: built.struct }, path);
        schema = this.mergeLayer(file, prop, path, built.schema, layer);
      } else {
        schema = built.schema;
        if (built.nullable) schema.nullable = true;
        if (info?.description) schema.description = info.description;
        this.applyMarkers(schema, markers, {}, path);
      }
    }
    this.checkField(file, prop, path, schema, markers);
    return { schema, required, immutable: has('k8s:immutable') };
  }

  /** controller-gen's precedence: Validation:Optional/Required, then +optional/+required (k8s: too), then the folder default, then `?`. */
  private isRequired(file: LoadedFile, prop: TS.PropertySignature): boolean {
    const markers = file.markers.declarations.get(prop)?.markers ?? [];
    const has = (name: string): boolean => markers.some((m) => m.definition.name === name);
    // `x?: T` and `x: T | undefined` may both be absent from the JSON.
    const undefinedAllowed = !!prop.type && this.ts.isUnionTypeNode(prop.type) && prop.type.types.some((t) => t.kind === this.ts.SyntaxKind.UndefinedKeyword);
    let required = !prop.questionToken && !undefinedAllowed;
    if (this.folderOf(file).optionalByDefault) required = false;
    if (has('required') || has('k8s:required')) required = true;
    if (has('optional') || has('k8s:optional')) required = false;
    if (has('kubebuilder:validation:Required')) required = true;
    if (has('kubebuilder:validation:Optional')) required = false;
    return required;
  }

  /** What the API server would reject about this field, refused before anything is written. */
  private checkField(file: LoadedFile, prop: TS.PropertySignature, path: string, schema: JSONSchemaProps, markers: CollectedMarker[]): void {
    checkFieldSchema(schema, markers, (m, message, fix) => {
      this.errors.push(new OpgenError(`${path}: ${message}`, m ? m.where : positionOf(file, prop), fix));
    });
  }

  /** controller-gen's flatten of allOf[typeSchema, fieldLayer]. */
  private mergeLayer(file: LoadedFile, node: TS.Node, path: string, type: JSONSchemaProps, layer: JSONSchemaProps): JSONSchemaProps {
    return flattenLayer(type, layer, (layerType, typeType) => {
      this.fail(file, node, path, `the markers make this a ${layerType}, but its type is a ${typeType}`, 'remove +kubebuilder:validation:Type');
    });
  }

  private typeSchema(file: LoadedFile, node: TS.TypeNode, path: string, preserveUnknown = false): Built {
    const ts = this.ts;
    const plain = (schema: JSONSchemaProps): Built => ({ schema, named: false, nullable: false });
    const K = ts.SyntaxKind;
    switch (node.kind) {
      case K.StringKeyword:
        return plain({ type: 'string' });
      case K.BooleanKeyword:
        return plain({ type: 'boolean' });
      case K.NumberKeyword:
        return plain({ type: 'number' });
      case K.AnyKeyword:
      case K.UnknownKeyword:
      case K.ObjectKeyword:
        if (preserveUnknown) return plain(node.kind === K.ObjectKeyword ? { type: 'object' } : {});
        return plain(
          this.fail(
            file,
            node,
            path,
            `type ${node.getText(file.sf)} cannot be expressed in a CRD schema`,
            `use JSON or RawExtension from ${RUNTIME_MODULE}, or a Record<string, T> with +kubebuilder:pruning:PreserveUnknownFields`,
          ),
        );
      case K.BigIntKeyword:
        return plain(this.fail(file, node, path, 'bigint cannot be expressed in JSON', `use int64 from ${RUNTIME_MODULE}, or a string`));
      case K.SymbolKeyword:
      case K.NeverKeyword:
      case K.VoidKeyword:
      case K.UndefinedKeyword:
      case K.NullKeyword:
        return plain(this.fail(file, node, path, `type ${node.getText(file.sf)} cannot be expressed in a CRD schema`, 'give the field a data type'));
    }
    if (ts.isParenthesizedTypeNode(node)) return this.typeSchema(file, node.type, path, preserveUnknown);
    if (ts.isTypeOperatorNode(node) && node.operator === K.ReadonlyKeyword) return this.typeSchema(file, node.type, path, preserveUnknown);
    if (ts.isUnionTypeNode(node)) return this.unionSchema(file, node, path);
    if (ts.isLiteralTypeNode(node)) {
      const v = literalValue(ts, node);
      if (v === undefined || v === null) return plain(this.fail(file, node, path, `type ${node.getText(file.sf)} cannot be expressed alone`, 'use string, number or boolean'));
      return plain({ enum: [v], type: jsonType(v) });
    }
    if (ts.isArrayTypeNode(node)) return plain(this.arraySchema(file, node.elementType, path));
    if (ts.isTypeLiteralNode(node)) return plain(this.objectSchema(file, node, path, false).schema);
    if (ts.isTypeReferenceNode(node)) {
      const name = entityName(ts, node.typeName);
      return this.reference(file, node, name, node.typeArguments, path, preserveUnknown);
    }
    if (ts.isIntersectionTypeNode(node)) {
      // As a Go struct embedding each part: allOf[A, B] flattened into an object, the parts' markers kept.
      // Named, so a field's markers form a layer over it like over any struct type.
      const merged: JSONSchemaProps = {};
      for (const part of node.types) {
        const b = this.typeSchema(file, part, path);
        if (b.schema.type !== 'object' || !b.schema.properties) {
          return plain(this.fail(file, part, path, `${part.getText(file.sf)} in an intersection is not an object type`, 'intersect interfaces only, or use extends'));
        }
        flattenInto(merged, b.schema, () => {});
      }
      flattenInto(merged, { type: 'object' }, () => {});
      return { schema: merged, named: true, nullable: false };
    }
    if (ts.isIndexedAccessTypeNode(node)) return plain(this.constListSchema(file, node, path));
    if (ts.isFunctionTypeNode(node) || ts.isConstructorTypeNode(node)) {
      return plain(this.fail(file, node, path, 'functions cannot be stored in a Kubernetes object', 'remove the field, or store data instead'));
    }
    if (ts.isTupleTypeNode(node)) {
      return plain(this.fail(file, node, path, 'tuples cannot be expressed in a CRD schema', 'use an array T[] or an object with named fields'));
    }
    return plain(this.fail(file, node, path, `type ${node.getText(file.sf)} cannot be expressed in a CRD schema`, 'use interfaces, arrays, Record<string, T>, string literal unions or the @opgen/runtime types'));
  }

  private arraySchema(file: LoadedFile, element: TS.TypeNode, path: string): JSONSchemaProps {
    const item = this.typeSchema(file, element, `${path}[]`);
    const items = item.schema;
    if (item.nullable) items.nullable = true;
    return { items, type: 'array' };
  }

  private unionSchema(file: LoadedFile, node: TS.UnionTypeNode, path: string): Built {
    const ts = this.ts;
    let nullable = false;
    const rest: TS.TypeNode[] = [];
    for (const t of node.types) {
      if (t.kind === ts.SyntaxKind.UndefinedKeyword) continue;
      if (ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword) {
        nullable = true;
        continue;
      }
      rest.push(t);
    }
    if (rest.length === 1) {
      const b = this.typeSchema(file, rest[0]!, path);
      return { ...b, nullable: b.nullable || nullable };
    }
    const literals = rest.map((t) => (ts.isLiteralTypeNode(t) ? literalValue(ts, t) : undefined));
    if (rest.length > 0 && literals.every((v) => v !== undefined && v !== null)) {
      const types = new Set(literals.map((v) => jsonType(v)));
      if (types.size === 1 || (types.size === 2 && types.has('integer') && types.has('number'))) {
        const type = types.has('number') ? 'number' : [...types][0]!;
        if (type === 'boolean' && literals.length === 2) return { schema: { type: 'boolean' }, named: false, nullable };
        return { schema: { enum: literals, type }, named: false, nullable };
      }
    }
    const kinds = rest.map((t) => t.kind);
    if (kinds.length === 2 && kinds.includes(ts.SyntaxKind.StringKeyword) && kinds.includes(ts.SyntaxKind.NumberKeyword)) {
      return { schema: this.fail(file, node, path, 'string | number cannot be expressed as a union', `use IntOrString from ${RUNTIME_MODULE}`), named: false, nullable };
    }
    return {
      schema: this.fail(
        file,
        node,
        path,
        `the union ${node.getText(file.sf)} cannot be expressed in a CRD schema`,
        'use one interface with optional fields and +kubebuilder:validation:ExactlyOneOf, or a string literal union',
      ),
      named: false,
      nullable,
    };
  }

  private reference(file: LoadedFile, node: TS.Node, name: string, args: TS.NodeArray<TS.TypeNode> | undefined, path: string, preserveUnknown = false): Built {
    const plain = (schema: JSONSchemaProps): Built => ({ schema, named: false, nullable: false });
    const origin = typeOrigin(this.sources, this.kubernetes, file, name, args?.length ?? 0);
    switch (origin.kind) {
      case 'builtin': {
        if (origin.name !== 'Record') return plain(this.arraySchema(file, args![0]!, path));
        // Any string-kinded key (string, or an alias of it carrying MinLength/Pattern …) makes a map, as
        // controller-gen's map[KeyType]V does; a CRD cannot validate keys, so the key's markers have no effect.
        if (args![0]!.kind !== this.ts.SyntaxKind.StringKeyword) {
          const keyPath = `${path}[key type]`;
          const key = this.typeSchema(file, args![0]!, keyPath).schema;
          if (this.refused.has(keyPath)) {
            this.refused.add(path); // the key's own error is the root one
            return plain({});
          }
          if (key.type !== 'string') return plain(this.fail(file, args![0]!, path, 'Record keys must be strings', 'use Record<string, T> (or a string alias), or an interface for fixed keys'));
        }
        const value = args![1]!;
        if (preserveUnknown && (value.kind === this.ts.SyntaxKind.UnknownKeyword || value.kind === this.ts.SyntaxKind.AnyKeyword)) return plain({ type: 'object' });
        return plain({ additionalProperties: this.typeSchema(file, value, `${path}[key]`).schema, type: 'object' });
      }
      case 'schema':
        if (this.embeddedObjectMeta && name === 'ObjectMeta' && origin.schema.type === 'object' && Object.keys(origin.schema).length === 1) {
          return { schema: embeddedObjectMetaSchema(), named: origin.named, nullable: false, struct: true };
        }
        if (this.embeddedObjectMeta) expandEmbeddedObjectMeta(origin.schema);
        return { schema: origin.schema, named: origin.named, nullable: false, struct: origin.named };
      case 'refused':
        return plain(this.fail(file, node, path, origin.message, origin.fix));
      case 'declaration':
        return { schema: cloneJson(this.namedSchema(origin.file, origin.decl, path, file, node)), named: true, nullable: false };
    }
  }

  private namedSchema(file: LoadedFile, decl: TopLevelDeclaration, path: string, fromFile: LoadedFile, fromNode: TS.Node): JSONSchemaProps {
    const ts = this.ts;
    const cached = this.named.get(decl);
    if (cached) {
      for (const f of this.namedFrom.get(decl) ?? []) this.sources.touch(f);
      return cached;
    }
    if (this.building.includes(decl)) {
      const cycle = [...this.building.slice(this.building.indexOf(decl)), decl].map((d) => d.name.text).join(' → ');
      return this.fail(
        fromFile,
        fromNode,
        path,
        `recursive type (${cycle}) cannot be expressed in a CRD schema`,
        'break the cycle: type the field as JSON from @opgen/runtime, or give it +kubebuilder:validation:Schemaless with +kubebuilder:pruning:PreserveUnknownFields',
      );
    }
    if (!ts.isEnumDeclaration(decl) && decl.typeParameters?.length) {
      return this.fail(file, decl, path, `generic type ${decl.name.text}<...> cannot be expressed in a CRD schema`, 'write a concrete interface');
    }
    const { value, files } = this.sources.track(() => this.buildNamed(file, decl, path));
    this.sources.touch(file);
    files.add(file);
    this.namedFrom.set(decl, files);
    this.named.set(decl, value);
    return value;
  }

  private buildNamed(file: LoadedFile, decl: TopLevelDeclaration, path: string): JSONSchemaProps {
    const ts = this.ts;
    this.building.push(decl);
    let schema: JSONSchemaProps;
    let bases: JSONSchemaProps[] = [];
    try {
      if (ts.isInterfaceDeclaration(decl)) ({ schema, bases } = this.objectSchema(file, decl, path, false));
      else if (ts.isEnumDeclaration(decl)) schema = this.enumSchema(file, decl, path);
      else {
        const b = this.typeSchema(file, decl.type, path);
        schema = b.schema;
        if (b.nullable) schema.nullable = true;
      }
    } finally {
      this.building.pop();
    }
    const info = file.markers.declarations.get(decl);
    if (info?.description) schema.description = info.description;
    const typeMarkers = (info?.markers ?? []).filter((m) => m.definition.targets.includes('type'));
    this.applyMarkers(schema, typeMarkers, {}, path);
    this.flattenBases(file, decl.name, path, schema, bases);
    const k8sEnum = typeMarkers.find((m) => m.definition.name === 'k8s:enum');
    if (k8sEnum) this.k8sEnum(file, decl, schema, k8sEnum);
    checkRulePaths(schema, typeMarkers, (m, message, fix) => {
      this.errors.push(new OpgenError(`${decl.name.text}: ${message}`, m ? m.where : positionOf(file, decl.name), fix));
    });
    return schema;
  }

  /**
   * `+k8s:enum` on `type Phase = string`: the enum is every string constant declared `const X: Phase = '…'` in
   * the type's folder, sorted by JSON bytes (controller-gen's K8sEnum over a package's consts).
   */
  private k8sEnum(file: LoadedFile, decl: TopLevelDeclaration, schema: JSONSchemaProps, m: CollectedMarker): void {
    const ts = this.ts;
    const name = decl.name.text;
    if (schema.type !== 'string') {
      this.errors.push(new OpgenError(`${name}: +k8s:enum needs a string type, not ${schema.type ?? 'this type'}`, m.where, `declare it as type ${name} = string`));
      return;
    }
    const folder = dirname(file.abs);
    const values: string[] = [];
    for (const f of this.sources.files()) {
      if (dirname(f.abs) !== folder) continue;
      this.sources.touch(f);
      for (const st of f.sf.statements) {
        if (!ts.isVariableStatement(st) || !(st.declarationList.flags & ts.NodeFlags.Const)) continue;
        for (const d of st.declarationList.declarations) {
          const t = d.type;
          if (!t || !ts.isTypeReferenceNode(t) || t.typeName.getText(f.sf) !== name || !d.initializer) continue;
          if (ts.isStringLiteral(d.initializer) || ts.isNoSubstitutionTemplateLiteral(d.initializer)) values.push(d.initializer.text);
        }
      }
    }
    if (values.length === 0) {
      this.errors.push(new OpgenError(`${name}: +k8s:enum found no constants of this type in its folder`, m.where, `declare them as export const ${name}A: ${name} = 'A'`));
      return;
    }
    schema.enum = values.map((v) => JSON.stringify(v)).sort(byteCompare).map((j) => JSON.parse(j) as string);
  }

  /** `(typeof modes)[number]` over `const modes = ['a', 'b'] as const`: an enum in the order written. */
  private constListSchema(file: LoadedFile, node: TS.IndexedAccessTypeNode, path: string): JSONSchemaProps {
    const ts = this.ts;
    let query: TS.TypeNode = node.objectType;
    while (ts.isParenthesizedTypeNode(query)) query = query.type;
    const fix = 'write the values as a union (\'a\' | \'b\'), or index an `as const` array of literals: (typeof list)[number]';
    if (!ts.isTypeQueryNode(query) || node.indexType.kind !== ts.SyntaxKind.NumberKeyword) {
      return this.fail(file, node, path, `type ${node.getText(file.sf)} cannot be expressed in a CRD schema`, fix);
    }
    const name = entityName(ts, query.exprName);
    const r = this.sources.resolve(file, name);
    let init = r.kind === 'constant' ? r.decl.initializer : undefined;
    while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init))) init = init.expression;
    if (!init || !ts.isArrayLiteralExpression(init)) return this.fail(file, node, path, `${name} is not a constant array opgen can read`, fix);
    const values: unknown[] = [];
    for (const el of init.elements) {
      if (ts.isStringLiteral(el) || ts.isNoSubstitutionTemplateLiteral(el)) values.push(el.text);
      else if (ts.isNumericLiteral(el)) values.push(Number(el.text));
      else return this.fail(file, el, path, `${el.getText(r.kind === 'constant' ? r.file.sf : file.sf)} in ${name} is not a literal`, fix);
    }
    const types = new Set(values.map((v) => jsonType(v)));
    if (values.length === 0 || types.size > 1) return this.fail(file, node, path, `${name} must hold literals of one type`, fix);
    return { enum: values, type: [...types][0]! };
  }

  private enumSchema(file: LoadedFile, decl: TS.EnumDeclaration, path: string): JSONSchemaProps {
    const ts = this.ts;
    const values: (string | number)[] = [];
    let next = 0;
    for (const m of decl.members) {
      const init = m.initializer;
      if (!init) values.push(next++);
      else if (ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init)) values.push(init.text);
      else if (ts.isNumericLiteral(init)) {
        next = Number(init.text);
        values.push(next++);
      } else return this.fail(file, m, path, `enum member ${m.name.getText(file.sf)} has a computed value`, 'use string or number literals');
    }
    const types = new Set(values.map((v) => typeof v));
    if (types.size > 1) return this.fail(file, decl, path, `enum ${decl.name.text} mixes strings and numbers`, 'use one kind of value');
    return { enum: values, type: types.has('string') ? 'string' : 'integer' };
  }
}

function propertyName(ts: typeof TS, name: TS.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  return undefined;
}

function entityName(ts: typeof TS, name: TS.EntityName): string {
  return ts.isIdentifier(name) ? name.text : `${entityName(ts, name.left)}.${name.right.text}`;
}

function literalValue(ts: typeof TS, node: TS.LiteralTypeNode): string | number | boolean | null | undefined {
  const l = node.literal;
  if (ts.isStringLiteral(l) || ts.isNoSubstitutionTemplateLiteral(l)) return l.text;
  if (ts.isNumericLiteral(l)) return Number(l.text);
  if (ts.isPrefixUnaryExpression(l) && l.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(l.operand)) return -Number(l.operand.text);
  if (l.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (l.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (l.kind === ts.SyntaxKind.NullKeyword) return null;
  return undefined;
}

function jsonType(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/**
 * controller-gen applies crd:generateEmbeddedObjectMeta to every ObjectMeta below the root, those inside
 * Kubernetes' own types too (PodTemplateSpec, JobTemplateSpec, PersistentVolumeClaim …). In the model
 * schemas an ObjectMeta is a `metadata` property that is a bare object (its description at most); ListMeta,
 * the other `metadata`, has its properties.
 */
function expandEmbeddedObjectMeta(schema: JSONSchemaProps): void {
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const bare = prop.type === 'object' && Object.keys(prop).every((k) => k === 'type' || k === 'description');
    if (name === 'metadata' && bare) Object.assign(prop, embeddedObjectMetaSchema(), prop.description === undefined ? {} : { description: prop.description });
    else expandEmbeddedObjectMeta(prop);
  }
  for (const child of [schema.items, schema.additionalProperties, ...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    if (child && typeof child === 'object' && !Array.isArray(child)) expandEmbeddedObjectMeta(child);
  }
}

/** The ObjectMeta fields controller-gen allows in an embedded ObjectMeta (known_types.go ObjectMetaPackages). */
function embeddedObjectMetaSchema(): JSONSchemaProps {
  const stringMap = (): JSONSchemaProps => ({ additionalProperties: { type: 'string' }, type: 'object' });
  return {
    properties: {
      annotations: stringMap(),
      finalizers: { items: { type: 'string' }, type: 'array' },
      labels: stringMap(),
      name: { type: 'string' },
      namespace: { type: 'string' },
    },
    type: 'object',
  };
}
