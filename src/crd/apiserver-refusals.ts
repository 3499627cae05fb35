// What the API server would refuse in a CRD schema, refused here first with the marker to change: list
// types and map keys, embedded resources that are maps, CEL fieldPaths that name no field, and defaults
// that do not validate against their own field.
import type { CollectedMarker } from '../markers/index.js';
import { validateValue } from './default-check.js';
import type { JSONSchemaProps } from '../common/json-schema.js';

/** Records one refusal; `marker` is the marker to point at (undefined: the field itself). */
export type ReportRefusal = (marker: CollectedMarker | undefined, message: string, fix: string) => void;

/** Checks one field's final (flattened) schema against the rules the API server enforces on CRDs. */
export function checkFieldSchema(schema: JSONSchemaProps, markers: CollectedMarker[], report: ReportRefusal): void {
  const at = (names: string[]): CollectedMarker | undefined => markers.find((m) => names.includes(m.definition.name));
  const listType = schema['x-kubernetes-list-type'];
  if ((listType === 'set' || listType === 'map') && schema.items?.nullable) {
    report(at(['listType', 'k8s:listType']), `the items of a +listType=${listType} list cannot be nullable`, 'remove null from the item type, or use +listType=atomic');
  }
  if (listType === 'map') {
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    const items = schema.items;
    const marker = at(['listType', 'k8s:listType']);
    if (keys.length === 0) report(marker, '+listType=map needs at least one +listMapKey', 'add +listMapKey=<field of the items>');
    else if (!items || items.type !== 'object') report(marker, '+listType=map needs items that are objects', 'use +listType=set or atomic');
    else {
      for (const key of keys) {
        const keySchema = items.properties?.[key];
        const keyMarker = markers.find((m) => ['listMapKey', 'k8s:listMapKey'].includes(m.definition.name) && m.value === key);
        if (!keySchema) report(keyMarker, `list map key "${key}" is not a field of the items`, `use one of ${Object.keys(items.properties ?? {}).join(', ')}`);
        else if (!items.required?.includes(key) && keySchema.default === undefined) {
          report(keyMarker, `list map key "${key}" is optional, and the API server requires map keys to be required or defaulted`, `make ${key} required (no ?) or give it a +kubebuilder:default`);
        } else if (keySchema.nullable) report(keyMarker, `list map key "${key}" is nullable`, `remove null from the type of ${key}`);
      }
    }
  }
  if (schema['x-kubernetes-embedded-resource'] && schema.additionalProperties !== undefined) {
    report(
      at(['kubebuilder:validation:XEmbeddedResource', 'kubebuilder:validation:EmbeddedResource']),
      'an embedded resource cannot be a map (the API server forbids additionalProperties with x-kubernetes-embedded-resource)',
      'type the field as RawExtension from @opgen/runtime, or as an interface with apiVersion, kind and metadata',
    );
  }
  checkRulePaths(schema, markers, report);
  if (schema.default !== undefined) {
    const probe = { ...schema };
    delete probe.default;
    const problem = validateValue(schema.default, probe);
    if (problem) report(at(['kubebuilder:default', 'default']), `the default does not validate against the field's own schema: ${problem}`, "change the default or the field's validation markers");
  }
}

/** Each CEL rule's fieldPath must name a field of the schema the rule sits on, as the API server requires. */
export function checkRulePaths(schema: JSONSchemaProps, markers: CollectedMarker[], report: ReportRefusal): void {
  for (const m of markers) {
    if (m.definition.name !== 'kubebuilder:validation:XValidation') continue;
    const fieldPath = (m.value as { fieldPath?: string }).fieldPath;
    if (fieldPath === undefined || fieldPath === '') continue;
    const problem = fieldPathProblem(schema, fieldPath);
    if (problem) report(m, `fieldPath "${fieldPath}" ${problem}`, `name a field below this one, e.g. ${Object.keys(schema.properties ?? {}).slice(0, 1).map((k) => `.${k}`)[0] ?? '.field'}`);
  }
}

/** Why `fieldPath` (`.a.b`, `['a']`, `[0]`) does not name a field of `schema`, or undefined when it does. */
function fieldPathProblem(schema: JSONSchemaProps, fieldPath: string): string | undefined {
  let node: JSONSchemaProps | undefined = schema;
  let rest = fieldPath;
  if (!rest.startsWith('.') && !rest.startsWith('[')) return 'must start with . or [';
  while (rest !== '') {
    const m = /^\.([A-Za-z_][A-Za-z0-9_]*)|^\['((?:[^'\\]|\\.)*)'\]|^\[([0-9]+)\]/.exec(rest);
    if (!m || !node) return 'is not a valid path';
    rest = rest.slice(m[0].length);
    if (m[3] !== undefined) {
      if (node.type !== 'array' || !node.items) return `indexes into ${node.type ?? 'an untyped value'}, not an array`;
      node = node.items;
      continue;
    }
    const name = m[1] ?? m[2]!;
    const next: JSONSchemaProps | undefined = node.properties?.[name] ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
    if (!next) return `does not name a field: there is no ${name} here`;
    node = next;
  }
  return undefined;
}

/**
 * The first thing the API server would refuse anywhere inside a schema opgen did not build from the user's
 * markers (a shipped Kubernetes model: corev1.ServiceAccount's secrets list is keyed by an optional name),
 * with the path to it; undefined when there is none.
 */
export function firstRefusalInside(schema: JSONSchemaProps, path = ''): { path: string; message: string } | undefined {
  let found: { path: string; message: string } | undefined;
  checkFieldSchema(schema, [], (_m, message) => {
    found ??= { path: path || '.', message };
  });
  if (found) return found;
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const inner = firstRefusalInside(child, `${path}.${name}`);
    if (inner) return inner;
  }
  if (schema.items && !Array.isArray(schema.items)) {
    const inner = firstRefusalInside(schema.items as JSONSchemaProps, `${path}[*]`);
    if (inner) return inner;
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') return firstRefusalInside(schema.additionalProperties, `${path}[key]`);
  return undefined;
}
