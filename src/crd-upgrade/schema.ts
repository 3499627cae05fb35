// OpenAPI schemas as operator-controller's CRD upgrade-safety preflight (sigs.k8s.io/crdify) sees them:
// flattened to one entry per field path (`^.spec.items[*].name`), compared without their children, and
// equal when Go's semantic equality on JSONSchemaProps says so (an absent list, map, string or plain bool
// equals an empty or false one; an absent pointer field does not equal a present zero).

export type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Field path → schema, in crdify's walk order (SchemaHas): a field's subschemas under allOf, anyOf,
 * oneOf, not, patternProperties, additionalItems, definitions and dependencies share its path, so the
 * last one walked is what is compared there.
 */
export function flattenSchema(root: Schema | undefined): Map<string, Schema> {
  const out = new Map<string, Schema>();
  const walk = (s: unknown, path: string): void => {
    if (!isObject(s)) return;
    out.set(path, s);
    const items = s.items;
    if (isObject(items)) walk(items, `${path}[*]`);
    else if (Array.isArray(items)) items.forEach((x, i) => walk(x, `${path}[${i}]`));
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) if (Array.isArray(s[k])) for (const x of s[k] as unknown[]) walk(x, path);
    walk(s.not, path);
    if (isObject(s.properties)) for (const [name, x] of Object.entries(s.properties)) walk(x, `${path}.${name}`);
    if (isObject(s.additionalProperties)) walk(s.additionalProperties, `${path}[*]`);
    if (isObject(s.patternProperties)) for (const x of Object.values(s.patternProperties)) walk(x, path);
    if (isObject(s.additionalItems)) walk(s.additionalItems, path);
    if (isObject(s.definitions)) for (const x of Object.values(s.definitions)) walk(x, path);
    if (isObject(s.dependencies)) for (const x of Object.values(s.dependencies)) if (isObject(x)) walk(x, path);
  };
  walk(root, '^');
  return out;
}

/** The schema without its child fields (properties, items), as crdify compares one path. */
export function withoutChildren(s: Schema): Schema {
  const { properties: _p, items: _i, ...rest } = s;
  return rest;
}

// JSONSchemaProps fields that are plain (non-pointer) strings, bools, lists or maps in Go: their zero
// value and absence are the same.
const PLAIN_STRINGS = new Set(['id', '$schema', 'description', 'type', 'format', 'title', 'pattern']);
const PLAIN_BOOLS = new Set(['nullable', 'exclusiveMaximum', 'exclusiveMinimum', 'uniqueItems', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions']);
const PLAIN_LISTS = new Set(['required', 'enum', 'x-kubernetes-list-map-keys']);

/** A canonical form: equal for two schemas exactly when Go's semantic equality holds. */
export function normalize(s: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (v === undefined) continue;
    if (PLAIN_STRINGS.has(k)) {
      if (v !== '' && v !== null) out[k] = v;
    } else if (PLAIN_BOOLS.has(k)) {
      if (v === true) out[k] = true;
    } else if (SCHEMA_LISTS.has(k)) {
      if (Array.isArray(v) && v.length > 0) out[k] = v.map((x) => (isObject(x) ? normalize(x) : x));
    } else if (SCHEMA_MAPS.has(k)) {
      if (isObject(v) && Object.keys(v).length > 0) out[k] = Object.fromEntries(Object.entries(v).map(([n, x]) => [n, isObject(x) ? normalize(x) : x]));
    } else if (k === 'dependencies') {
      if (isObject(v) && Object.keys(v).length > 0) out[k] = Object.fromEntries(Object.entries(v).map(([n, x]) => [n, isObject(x) ? normalize(x) : x]));
    } else if (PLAIN_LISTS.has(k)) {
      if (Array.isArray(v) && v.length > 0) out[k] = v;
    } else if (k === 'x-kubernetes-validations') {
      if (Array.isArray(v) && v.length > 0) out[k] = v.map((r) => (isObject(r) ? Object.fromEntries(Object.entries(r).filter(([, x]) => x !== '' && x !== undefined)) : r));
    } else if (k === 'default' || k === 'example') {
      if (v !== null) out[k] = v;
    } else if (k === 'additionalProperties' || k === 'additionalItems') {
      // JSONSchemaPropsOrBool: `true`, `false`, or a schema (which allows).
      out[k] = isObject(v) ? { allows: true, schema: normalize(v) } : { allows: v === true };
    } else if (k === 'items') {
      out[k] = isObject(v) ? normalize(v) : Array.isArray(v) ? v.map((x) => (isObject(x) ? normalize(x) : x)) : v;
    } else if (k === 'not') {
      out[k] = isObject(v) ? normalize(v) : v;
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** JSON with object keys sorted: the bytes Go's JSON encoder writes for a decoded YAML value. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

export function semanticEqual(a: Schema, b: Schema): boolean {
  return canonicalJson(normalize(a)) === canonicalJson(normalize(b));
}

/** Kubernetes' version order (apimachinery CompareKubeAwareVersionStrings): v1alpha1 < v1beta1 < v1 < v2. */
export function compareKubeVersions(a: string, b: string): number {
  if (a === b) return 0;
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return [m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2, Number(m[1]), m[2] ? Number(m[3]) : 0];
  };
  const x = parse(a);
  const y = parse(b);
  if (!x && !y) return b < a ? -1 : 1;
  if (!x) return -1;
  if (!y) return 1;
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}
