// Checks a default (or example) value against the schema it sits in, as the API server does when it
// admits a CRD: opgen refuses what would be rejected instead of writing it.
import type { JSONSchemaProps } from '../common/json-schema.js';

/** The first way `value` fails `schema`, as "at <path>: <reason>", or undefined when it validates. */
export function validateValue(value: unknown, schema: JSONSchemaProps, path = ''): string | undefined {
  const at = path === '' ? '' : ` at ${path}`;
  if (value === null) return schema.nullable ? undefined : `null is not allowed${at} (the schema is not nullable)`;
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.type) return undefined;
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value !== 'string' && !(typeof value === 'number' && Number.isInteger(value))) return `${JSON.stringify(value)}${at} is neither an integer nor a string`;
  } else if (schema.type) {
    const actual = Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;
    const ok = actual === schema.type || (schema.type === 'number' && actual === 'integer');
    if (!ok) return `${JSON.stringify(value)}${at} is not of type ${schema.type}`;
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    return `${JSON.stringify(value)}${at} is not one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`;
  }
  if (typeof value === 'number') {
    if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)) return `${value}${at} is above the maximum ${schema.maximum}`;
    if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)) return `${value}${at} is below the minimum ${schema.minimum}`;
    if (schema.multipleOf !== undefined && Math.abs(value / schema.multipleOf - Math.round(value / schema.multipleOf)) > 1e-9) return `${value}${at} is not a multiple of ${schema.multipleOf}`;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.maxLength !== undefined && length > schema.maxLength) return `${JSON.stringify(value)}${at} is longer than ${schema.maxLength}`;
    if (schema.minLength !== undefined && length < schema.minLength) return `${JSON.stringify(value)}${at} is shorter than ${schema.minLength}`;
    if (schema.pattern !== undefined) {
      let re: RegExp | undefined;
      try {
        re = new RegExp(schema.pattern, 'u');
      } catch {
        re = undefined; // a pattern JavaScript cannot read is the API server's to judge
      }
      if (re && !re.test(value)) return `${JSON.stringify(value)}${at} does not match ${schema.pattern}`;
    }
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return `${at.trim() || 'the list'} has more than ${schema.maxItems} items`;
    if (schema.minItems !== undefined && value.length < schema.minItems) return `${at.trim() || 'the list'} has fewer than ${schema.minItems} items`;
    if (schema.items) {
      for (const [i, item] of value.entries()) {
        const r = validateValue(item, schema.items, `${path}[${i}]`);
        if (r) return r;
      }
    }
  } else if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    for (const req of schema.required ?? []) {
      if (!(req in obj) && schema.properties?.[req]?.default === undefined) return `required field ${path === '' ? '' : `${path}.`}${req} is missing`;
    }
    for (const [k, v] of Object.entries(obj)) {
      const child = schema.properties?.[k] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (child) {
        const r = validateValue(v, child, path === '' ? k : `${path}.${k}`);
        if (r) return r;
      }
    }
  }
  return undefined;
}
