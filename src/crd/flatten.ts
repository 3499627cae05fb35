// controller-gen's flattening (pkg/crd/flatten.go): a CRD may not use $ref, so a field's own markers form
// a layer merged onto its named type's schema as allOf[typeSchema, fieldLayer] would be flattened — the
// field's description wins, equal validations merge, conflicting ones are hoisted into allOf.
import { byteCompare } from '../common/go-order.js';
import type { JSONSchemaProps } from './json-schema.js';

/**
 * Merges `layer` onto `type`. `onTypeConflict` is told when the layer's `type` differs from the
 * type's (a +kubebuilder:validation:Type that contradicts the TypeScript type).
 */
export function flattenLayer(type: JSONSchemaProps, layer: JSONSchemaProps, onTypeConflict: (layerType: string, typeType: string) => void): JSONSchemaProps {
  const out: Record<string, unknown> = { ...type };
  const hoistType: Record<string, unknown> = {};
  const hoistField: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(layer) as [keyof JSONSchemaProps, unknown][]) {
    const current = out[key];
    switch (key) {
      case 'description':
      case 'title':
      case 'example':
      case 'externalDocs':
      case 'x-kubernetes-preserve-unknown-fields':
      case 'x-kubernetes-map-type':
      case 'nullable':
        out[key] = value;
        continue;
      case 'properties':
        out[key] = { ...(current as object), ...(value as object) };
        continue;
      case 'required':
        out[key] = [...new Set([...((current as string[]) ?? []), ...(value as string[])])].sort(byteCompare);
        continue;
      case 'x-kubernetes-validations':
        out[key] = [...(value as unknown[]), ...((current as unknown[]) ?? [])];
        continue;
      case 'enum':
        if (current === undefined) out[key] = value;
        continue;
      case 'type':
        if (current !== undefined && current !== value) onTypeConflict(String(value), String(current));
        out[key] = value;
        continue;
    }
    if (current === undefined || JSON.stringify(current) === JSON.stringify(value)) {
      out[key] = value;
    } else {
      hoistType[key] = current;
      hoistField[key] = value;
      delete out[key];
    }
  }
  if (Object.keys(hoistField).length > 0) out.allOf = [...((out.allOf as unknown[]) ?? []), hoistType, hoistField];
  return out as JSONSchemaProps;
}
