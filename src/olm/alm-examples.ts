// The CSV's alm-examples: config/samples as examples, an empty spec filled from the CRD schema.
import type { CrdSpec } from './bundle-model.js';
import { groupOf, nameOf, versionOf, type KubeObject } from './objects.js';

/**
 * A sample as an alm-example: without its namespace (examples are created in the namespace the user picks)
 * and, when its spec is empty (the scaffold's `spec:` with only a TODO comment is null), with a spec built
 * from the CRD schema's defaults and required fields, so OLM consoles do not offer `"spec": null`.
 */
export function exampleFor(o: KubeObject, crds: KubeObject[], notes: string[]): KubeObject {
  const copy = structuredClone(o);
  if (copy.metadata) delete copy.metadata.namespace;
  if (copy.spec !== null && copy.spec !== undefined) return copy;
  const crd = crds.find((c) => (c.spec as CrdSpec).group === groupOf(o.apiVersion) && (c.spec as CrdSpec).names?.kind === o.kind);
  const version = ((crd?.spec ?? {}) as { versions?: { name: string; schema?: { openAPIV3Schema?: SchemaNode } }[] }).versions?.find((v) => v.name === versionOf(o.apiVersion));
  const specSchema = version?.schema?.openAPIV3Schema?.properties?.spec;
  if (!specSchema) {
    if ('spec' in copy) delete copy.spec;
    return copy;
  }
  copy.spec = fromSchema(specSchema) ?? {};
  notes.push(`warning: the ${o.kind} sample ${nameOf(o)} has no spec; its alm-example uses ${JSON.stringify(copy.spec)} (the schema's defaults and required fields): fill in the sample in config/samples`);
  return copy;
}

interface SchemaNode { type?: string; properties?: Record<string, SchemaNode>; required?: string[]; default?: unknown; enum?: unknown[]; minimum?: number; minLength?: number; minItems?: number; items?: SchemaNode }

/** The smallest value the schema accepts that shows its defaults: required fields and defaulted ones. */
function fromSchema(s: SchemaNode): unknown {
  if (s.default !== undefined) return structuredClone(s.default);
  if (s.enum && s.enum.length > 0) return s.enum[0];
  switch (s.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, p] of Object.entries(s.properties ?? {})) {
        if (s.required?.includes(k) || p.default !== undefined) out[k] = fromSchema(p) ?? {};
      }
      return out;
    }
    case 'array': return s.minItems && s.items ? Array.from({ length: s.minItems }, () => fromSchema(s.items!)) : [];
    case 'string': return 'x'.repeat(s.minLength ?? 0);
    case 'integer': case 'number': return s.minimum ?? 0;
    case 'boolean': return false;
    default: return undefined;
  }
}

export function sortObjects(list: KubeObject[]): KubeObject[] {
  const key = (o: KubeObject): string => `${o.apiVersion}/${o.kind}/${nameOf(o)}`;
  return [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
