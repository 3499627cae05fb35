// What a CEL rule sees of the schema it sits on: the API server's SchemaDeclType
// (k8s.io/apiserver/pkg/cel/common/schemas.go), with the same size bounds, because the cost estimate
// is computed from them (maxLength/maxItems/maxProperties, else what fits in a 3 MiB request).
import type { JSONSchemaProps } from '../common/json-schema.js';

export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
const MIN_STRING_SIZE = 2;
const MIN_BOOL_SIZE = 4;
const MIN_NUMBER_SIZE = 1;
const MAX_DURATION_SIZE_JSON = 32;
const MIN_DURATION_SIZE_JSON = 3;
const JSON_DATE_SIZE = 12;
const MAX_DATETIME_SIZE_JSON = 32;
const MIN_DATETIME_SIZE_JSON = 21;

export type DeclKind = 'object' | 'list' | 'map' | 'scalar';

export interface DeclType {
  kind: DeclKind;
  /** The CEL type name: int, string, list, map, or the registered object type's name. */
  cel: string;
  /** size(): characters for strings and bytes, items, properties; 0 for other scalars. */
  maxElements: number;
  minSerializedSize: number;
  fields?: Map<string, DeclType>;
  elem?: DeclType;
  /** The schema this was made from (objects: for fieldPath and correlation checks). */
  schema: JSONSchemaProps;
  /** Why a size is unbounded: the schema path and the marker that would bound it. */
  unbounded?: { path: string; marker: string };
}

/** CEL's reserved words (cel-go's reservedIds): a property of that name is declared `__name__`. */
export const RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** The API server's property-name escaping (k8s.io/apiserver/pkg/cel/escaping.go); undefined: not reachable from CEL. */
export function escapeName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z_./-][a-zA-Z0-9_./-]*$/.test(name)) return undefined;
  return name.replace(/__|[-./]/g, (m) => (m === '__' ? '__underscores__' : m === '-' ? '__dash__' : m === '.' ? '__dot__' : '__slash__'));
}

const bound = (n: number | undefined): number | undefined => (n === undefined ? undefined : Math.max(0, n));

/** The declaration for `schema`, or undefined when CEL cannot see it (untyped, preserve-unknown-fields maps …). */
export function declTypeOf(schema: JSONSchemaProps, isResourceRoot: boolean, path = 'self'): DeclType | undefined {
  if (schema['x-kubernetes-int-or-string']) {
    const max = bound(schema.maxLength);
    return {
      kind: 'scalar',
      cel: 'dyn',
      maxElements: max !== undefined ? max * 4 : MAX_REQUEST_SIZE_BYTES - 2,
      minSerializedSize: 1,
      schema,
      ...(max === undefined ? { unbounded: { path, marker: '+kubebuilder:validation:MaxLength' } } : {}),
    };
  }
  if (isResourceRoot) schema = withTypeAndObjectMeta(schema);
  switch (schema.type) {
    case 'array': {
      if (!schema.items) return undefined;
      const elem = declTypeOf(schema.items, !!schema.items['x-kubernetes-embedded-resource'], `${path}[*]`);
      if (!elem) return undefined;
      const max = bound(schema.maxItems);
      return {
        kind: 'list',
        cel: `list<${elem.cel}>`,
        elem,
        maxElements: max ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 1)),
        minSerializedSize: 2,
        schema,
        ...(max === undefined ? { unbounded: { path, marker: '+kubebuilder:validation:MaxItems' } } : {}),
      };
    }
    case 'object': {
      const ap = schema.additionalProperties;
      if (ap !== undefined && ap !== false) {
        if (ap === true) return undefined;
        const elem = declTypeOf(ap, !!ap['x-kubernetes-embedded-resource'], `${path}[*]`);
        if (!elem) return undefined;
        const max = bound(schema.maxProperties);
        return {
          kind: 'map',
          cel: `map<string, ${elem.cel}>`,
          elem,
          maxElements: max ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 6)),
          minSerializedSize: 2,
          schema,
          ...(max === undefined ? { unbounded: { path, marker: '+kubebuilder:validation:MaxProperties' } } : {}),
        };
      }
      const fields = new Map<string, DeclType>();
      const required = new Set(schema.required ?? []);
      let minSerializedSize = 2;
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        const t = declTypeOf(prop, !!prop['x-kubernetes-embedded-resource'], `${path}.${name}`);
        if (!t) continue;
        const escaped = escapeName(name);
        if (escaped !== undefined) fields.set(escaped, t);
        if (required.has(name) && prop.default === undefined) minSerializedSize += name.length + t.minSerializedSize + 4;
      }
      return { kind: 'object', cel: '', fields, maxElements: 0, minSerializedSize, schema };
    }
    case 'string':
      return stringDecl(schema, path);
    case 'boolean':
      return { kind: 'scalar', cel: 'bool', maxElements: 0, minSerializedSize: MIN_BOOL_SIZE, schema };
    case 'number':
      return { kind: 'scalar', cel: 'double', maxElements: 0, minSerializedSize: MIN_NUMBER_SIZE, schema };
    case 'integer':
      return { kind: 'scalar', cel: 'int', maxElements: 0, minSerializedSize: MIN_NUMBER_SIZE, schema };
  }
  return undefined;
}

function stringDecl(schema: JSONSchemaProps, path: string): DeclType {
  const max = bound(schema.maxLength);
  const unbounded = { unbounded: { path, marker: '+kubebuilder:validation:MaxLength' } };
  switch (schema.format) {
    case 'byte':
      return { kind: 'scalar', cel: 'bytes', maxElements: max ?? MAX_REQUEST_SIZE_BYTES - 2, minSerializedSize: MIN_STRING_SIZE, schema, ...(max === undefined ? unbounded : {}) };
    case 'duration':
      return { kind: 'scalar', cel: 'google.protobuf.Duration', maxElements: MAX_DURATION_SIZE_JSON, minSerializedSize: MIN_DURATION_SIZE_JSON, schema };
    case 'date':
      return { kind: 'scalar', cel: 'google.protobuf.Timestamp', maxElements: JSON_DATE_SIZE, minSerializedSize: JSON_DATE_SIZE, schema };
    case 'date-time':
      return { kind: 'scalar', cel: 'google.protobuf.Timestamp', maxElements: MAX_DATETIME_SIZE_JSON, minSerializedSize: MIN_DATETIME_SIZE_JSON, schema };
  }
  if (max !== undefined) return { kind: 'scalar', cel: 'string', maxElements: max * 4, minSerializedSize: MIN_STRING_SIZE, schema };
  if (schema.enum && schema.enum.length > 0) {
    const longest = Math.max(0, ...schema.enum.map((v) => (typeof v === 'string' ? Buffer.byteLength(v) : 0)));
    return { kind: 'scalar', cel: 'string', maxElements: longest, minSerializedSize: MIN_STRING_SIZE, schema };
  }
  return { kind: 'scalar', cel: 'string', maxElements: MAX_REQUEST_SIZE_BYTES - 2, minSerializedSize: MIN_STRING_SIZE, schema, ...unbounded };
}

/** apiVersion, kind, metadata.name and metadata.generateName are visible at a resource root even when the schema omits them. */
function withTypeAndObjectMeta(schema: JSONSchemaProps): JSONSchemaProps {
  const p = schema.properties ?? {};
  const meta = p.metadata;
  if (p.kind?.type === 'string' && p.apiVersion?.type === 'string' && meta?.type === 'object' && meta.properties?.name?.type === 'string' && meta.properties.generateName?.type === 'string') return schema;
  return {
    ...schema,
    properties: {
      ...p,
      kind: { type: 'string' },
      apiVersion: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
    },
  };
}
