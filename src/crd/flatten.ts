// controller-gen's flattening (pkg/crd/flatten.go, flattenAllOfInto): a CRD may not use $ref or leave
// embedded structs in allOf, so schemas are merged. One rule set serves three merges:
// - a field's own markers (a layer) onto its named type's schema: allOf[type, layer];
// - an interface's `extends` bases into the interface (Go's embedded structs): allOf[base...] into it;
// - the parts of an intersection `A & B`: allOf[A, B] into an empty object.
// Per key: absent in dst → taken from src; equal → kept once; properties merged (recursively);
// required united and sorted; x-kubernetes-validations src's first; list/map types and
// preserve-unknown-fields src wins; enum dst wins; a different type is a conflict; any other difference is
// hoisted into allOf as [dst's value, src's value]. Documentation keys are the caller's business.
import { byteCompare } from '../common/go-order.js';
import { cloneJson, type JSONSchemaProps } from '../common/json-schema.js';

/** Told when src's `type` differs from dst's (dst's is kept). */
export type TypeConflict = (srcType: string, dstType: string) => void;

const DOC_KEYS = new Set(['description', 'title', 'example', 'externalDocs']);
const SRC_WINS = new Set(['x-kubernetes-preserve-unknown-fields', 'x-kubernetes-map-type', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys']);

/** Go's zero values (absent, false, '') are not copied: controller-gen never sees them. */
function isZero(value: unknown): boolean {
  return value === undefined || value === null || value === false || value === '';
}

/** Merges `src` into `dst` (mutated) as controller-gen flattens one allOf branch into its parent. */
export function flattenInto(dst: JSONSchemaProps, src: JSONSchemaProps, onTypeConflict: TypeConflict): void {
  for (const embedded of src.allOf ?? []) flattenInto(dst, embedded, onTypeConflict);
  const out = dst as Record<string, unknown>;
  const hoistDst: Record<string, unknown> = {};
  const hoistSrc: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(src)) {
    if (key === 'allOf' || DOC_KEYS.has(key)) continue;
    if (key === 'enum') {
      if (out.enum === undefined) out.enum = value;
      continue;
    }
    // A default is JSON (Go's *JSON): "" and false are values, not zero values.
    const zero = key === 'default' ? (v: unknown): boolean => v === undefined : isZero;
    if (zero(value)) continue;
    const current = out[key];
    if (zero(current)) {
      // A fresh properties map: later merges add to it, and src's may be a cached type's.
      out[key] = key === 'properties' ? { ...(value as object) } : value;
      continue;
    }
    if (JSON.stringify(current) === JSON.stringify(value)) continue;
    if (SRC_WINS.has(key)) {
      out[key] = value;
      continue;
    }
    switch (key) {
      case 'properties': {
        const merged = current as Record<string, JSONSchemaProps>;
        for (const [name, prop] of Object.entries(value as Record<string, JSONSchemaProps>)) {
          if (merged[name] === undefined) merged[name] = prop;
          else {
            merged[name] = cloneJson(merged[name]);
            flattenInto(merged[name], prop, onTypeConflict);
          }
        }
        continue;
      }
      case 'additionalProperties':
        if (typeof value === 'object' && typeof current === 'object') {
          const merged = cloneJson(current as JSONSchemaProps);
          flattenInto(merged, value as JSONSchemaProps, onTypeConflict);
          out[key] = merged;
        }
        continue;
      case 'required':
        out.required = [...(current as string[]), ...(value as string[])];
        continue;
      case 'x-kubernetes-validations':
        out[key] = [...(value as unknown[]), ...(current as unknown[])];
        continue;
      case 'type':
        onTypeConflict(String(value), String(current));
        continue;
    }
    hoistDst[key] = current;
    hoistSrc[key] = value;
    delete out[key];
  }
  if (Object.keys(hoistSrc).length > 0) dst.allOf = [...(dst.allOf ?? []), hoistDst as JSONSchemaProps, hoistSrc as JSONSchemaProps];
  if (dst.required) dst.required = [...new Set(dst.required)].sort(byteCompare);
}

/**
 * A field's markers (`layer`) merged onto its named type's schema: allOf[type, layer] flattened. The
 * field's documentation wins; the type's shows where the field has none.
 */
export function flattenLayer(type: JSONSchemaProps, layer: JSONSchemaProps, onTypeConflict: TypeConflict): JSONSchemaProps {
  const out: JSONSchemaProps = {};
  const docs = out as Record<string, unknown>;
  for (const key of DOC_KEYS) {
    const value = (layer as Record<string, unknown>)[key] ?? (type as Record<string, unknown>)[key];
    if (value !== undefined) docs[key] = value;
  }
  flattenInto(out, type, () => {});
  flattenInto(out, layer, onTypeConflict);
  return out;
}
