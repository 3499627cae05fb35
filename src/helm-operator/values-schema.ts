// A chart's values.schema.json (JSON Schema draft 4-2020) → the structural OpenAPI v3 schema of a CRD's
// spec. Helm still validates the values with the whole JSON Schema at every install and upgrade; the CRD
// schema is the part the API server can check when the CR is written (types, enums, ranges, required),
// so a typo is refused by `kubectl apply` instead of surfacing as a failed release. What a CRD schema
// cannot say (anyOf of types, patternProperties, remote $ref, ...) becomes an open field
// (x-kubernetes-preserve-unknown-fields), reported as a warning with its position, and left to Helm.
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import { firstRefusalInside } from '../crd/apiserver-refusals.js';
import type { JSONSchemaProps } from '../common/json-schema.js';

export interface SchemaDiagnostic {
  severity: 'error' | 'warning';
  /** `file:line:column: message` */
  text: string;
}

export interface ConvertedSchema {
  schema?: JSONSchemaProps;
  diagnostics: SchemaDiagnostic[];
}

type Json = Record<string, unknown>;

const scalarKeywords = ['description', 'title', 'format', 'minimum', 'maximum', 'multipleOf', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const;
/** Keywords that only annotate or that draft 7 tools add; dropped without a word. */
const ignored = new Set(['$schema', '$id', 'id', '$comment', 'examples', 'definitions', '$defs', 'readOnly', 'writeOnly', 'deprecated', 'contentMediaType', 'contentEncoding']);
/** CRDs accept only these formats (k8s.io/apiextensions-apiserver's supported formats); others are dropped. */
const formats = new Set(['bsonobjectid', 'uri', 'email', 'hostname', 'ipv4', 'ipv6', 'cidr', 'mac', 'uuid', 'uuid3', 'uuid4', 'uuid5', 'isbn', 'isbn10', 'isbn13', 'creditcard', 'ssn', 'hexcolor', 'rgbcolor', 'byte', 'password', 'date', 'duration', 'datetime', 'date-time', 'int32', 'int64', 'float', 'double']);

/** Converts the text of `file` (a values.schema.json); errors leave `schema` undefined. */
export function valuesSchemaToCrd(text: string, file: string): ConvertedSchema {
  const diagnostics: SchemaDiagnostic[] = [];
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  // The position of a keyword is that of its key ("anyOf"), where a reader looks for it.
  const at = (path: (string | number)[]): string => {
    const parent = path.length === 0 ? undefined : doc.getIn(path.slice(0, -1), true);
    const pair = isMap(parent) ? parent.items.find((p) => isScalar(p.key) && p.key.value === path[path.length - 1]) : undefined;
    const node = (isScalar(pair?.key) ? pair.key : doc.getIn(path, true)) as { range?: [number, number, number] } | undefined;
    const pos = lineCounter.linePos(node?.range?.[0] ?? 0);
    return `${file}:${pos.line}:${pos.col}`;
  };
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const pos = lineCounter.linePos(e.pos[0]);
    diagnostics.push({ severity: 'error', text: `${file}:${pos.line}:${pos.col}: not valid JSON: ${e.message.split('\n')[0]}; fix the file (helm lint reports the same)` });
    return { diagnostics };
  }
  const root = doc.toJS() as unknown;
  if (!isObject(root)) {
    diagnostics.push({ severity: 'error', text: `${file}:1:1: the schema must be a JSON object; fix the file` });
    return { diagnostics };
  }
  const warn = (path: (string | number)[], message: string) => diagnostics.push({ severity: 'warning', text: `${at(path)}: ${message}` });

  /** Follows local $refs; `seen` (the refs above this node) grows so a recursive one is caught. */
  const resolve = (node: Json, path: (string | number)[], seen: Set<string>): { node: Json; path: (string | number)[] } | undefined => {
    const ref = node.$ref;
    if (typeof ref !== 'string') return { node, path };
    const m = /^#\/(definitions|\$defs)\/([^/]+)$/.exec(ref);
    const target = m ? (root[m[1]!] as Json | undefined)?.[m[2]!] : undefined;
    if (!m || !isObject(target)) {
      warn([...path, '$ref'], `$ref ${ref} is not a local #/definitions or #/$defs entry; the field is left open (Helm still validates it)`);
      return undefined;
    }
    if (seen.has(ref)) {
      warn([...path, '$ref'], `$ref ${ref} is recursive, which a CRD schema cannot express; the field is left open`);
      return undefined;
    }
    seen.add(ref);
    return resolve(target, [m[1]!, m[2]!], seen);
  };

  const open = (description?: unknown): JSONSchemaProps => ({ ...(typeof description === 'string' ? { description } : {}), 'x-kubernetes-preserve-unknown-fields': true });

  const convert = (input: Json, inPath: (string | number)[], above: Set<string>): JSONSchemaProps => {
    const seen = new Set(above);
    const r = resolve(input, inPath, seen);
    if (!r) return open(input.description);
    const { node, path } = r;
    const out: JSONSchemaProps = {};
    let type = node.type;
    if (Array.isArray(type)) {
      const nonNull = type.filter((t) => t !== 'null');
      if (nonNull.length !== type.length) out.nullable = true;
      if (nonNull.length === 2 && nonNull.includes('integer') && nonNull.includes('string')) {
        out['x-kubernetes-int-or-string'] = true;
        type = undefined;
      } else if (nonNull.length === 1) type = nonNull[0];
      else {
        warn([...path, 'type'], `type ${JSON.stringify(node.type)} has several types, which a CRD schema cannot express; the field is left open`);
        return { ...open(node.description), ...(out.nullable ? { nullable: true } : {}) };
      }
    }
    if ('const' in node) out.enum = [node.const];
    if (Array.isArray(node.enum)) out.enum = node.enum.filter((v) => v !== null);
    for (const k of scalarKeywords) if (node[k] !== undefined) (out as Json)[k] = node[k];
    if (out.format !== undefined && !formats.has(String(out.format))) {
      warn([...path, 'format'], `format "${String(out.format)}" is not one the API server knows; dropped (Helm still checks it)`);
      delete out.format;
    }
    // Draft 6+ spells exclusive bounds as numbers, OpenAPI v3 as booleans beside minimum/maximum.
    if (typeof node.exclusiveMinimum === 'number') Object.assign(out, { minimum: node.exclusiveMinimum, exclusiveMinimum: true });
    else if (node.exclusiveMinimum === true) out.exclusiveMinimum = true;
    if (typeof node.exclusiveMaximum === 'number') Object.assign(out, { maximum: node.exclusiveMaximum, exclusiveMaximum: true });
    else if (node.exclusiveMaximum === true) out.exclusiveMaximum = true;
    if (node.uniqueItems === true) warn([...path, 'uniqueItems'], 'uniqueItems: true is refused in CRD schemas; dropped (Helm still checks it)');
    if (node.default !== undefined) out.default = node.default;
    for (const k of ['anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else', 'patternProperties', 'dependencies', 'dependentRequired', 'dependentSchemas', 'propertyNames', 'contains', 'additionalItems', 'prefixItems', 'unevaluatedProperties']) {
      if (k in node) warn([...path, k], `${k} is not carried into the CRD schema; Helm still checks it at install`);
    }
    if (type === undefined && node.properties !== undefined) type = 'object';
    if (type === undefined) {
      if (!out['x-kubernetes-int-or-string']) out['x-kubernetes-preserve-unknown-fields'] = true;
      return out;
    }
    if (!['object', 'array', 'string', 'integer', 'number', 'boolean'].includes(String(type))) {
      warn([...path, 'type'], `type "${String(type)}" is not a JSON Schema type; the field is left open`);
      return open(node.description);
    }
    out.type = String(type);
    if (type === 'object') {
      if (isObject(node.properties)) {
        out.properties = {};
        for (const [name, child] of Object.entries(node.properties)) {
          out.properties[name] = isObject(child) ? convert(child, [...path, 'properties', name], seen) : open();
        }
      }
      if (Array.isArray(node.required) && node.required.length > 0) out.required = node.required.map(String);
      const ap = node.additionalProperties;
      if (isObject(ap)) out.additionalProperties = convert(ap, [...path, 'additionalProperties'], seen);
      // JSON Schema lets an object carry keys its properties do not name unless additionalProperties is
      // false; a CRD would prune them, so the values Helm gets would lose them. Keep them.
      else if (ap !== false) out['x-kubernetes-preserve-unknown-fields'] = true;
    } else if (type === 'array') {
      out.items = isObject(node.items) ? convert(node.items, [...path, 'items'], seen) : open();
    }
    return out;
  };

  const schema = convert(root, [], new Set());
  if (schema.type !== 'object') {
    diagnostics.push({ severity: 'error', text: `${at(['type'])}: the values schema must describe an object (the CR's spec), not ${schema.type ?? 'any value'}; set "type": "object"` });
    return { diagnostics };
  }
  const refusal = firstRefusalInside(schema);
  if (refusal) {
    // .a.b[*][key] → properties/a/properties/b/items/additionalProperties (a field behind a $ref: its use).
    const pointer = [...refusal.path.matchAll(/\.([^.[]+)|\[\*\]|\[key\]/g)].flatMap((m) => (m[1] !== undefined ? ['properties', m[1]] : m[0] === '[*]' ? ['items'] : ['additionalProperties']));
    diagnostics.push({ severity: 'error', text: `${at(pointer)}: the API server would refuse spec${refusal.path === '.' ? '' : refusal.path}: ${refusal.message}; fix that field of the schema` });
    return { diagnostics };
  }
  return { schema, diagnostics };
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
