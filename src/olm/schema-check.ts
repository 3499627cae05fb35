// Checks an object against a CRD version's structural schema the way the API server would on create
// (types, required, enum, bounds, lengths, patterns, item counts) and, as `kubectl create
// --validate=strict` does, reports fields the schema does not know. CEL rules are not evaluated.
import { isRecord } from './objects.js';

export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  anyOf?: Schema[];
  allOf?: Schema[];
  oneOf?: Schema[];
}

/** Problems as `path: message`, empty when the value fits. */
export function checkAgainstSchema(value: unknown, schema: Schema, path = ''): string[] {
  const out: string[] = [];
  walk(value, schema, path, out, true);
  return out;
}

function walk(value: unknown, s: Schema, path: string, out: string[], root = false): void {
  const at = path === '' ? '(root)' : path;
  // The API server prunes a null it may not keep (nullable unset) before validating, as if it were absent.
  if (value === null) return;
  if (s['x-kubernetes-int-or-string']) {
    if (!(typeof value === 'string' || Number.isInteger(value))) out.push(`${at}: must be an integer or a string`);
    return;
  }
  switch (s.type) {
    case 'object':
      if (!isRecord(value)) return void out.push(`${at}: must be an object`);
      break;
    case 'array':
      if (!Array.isArray(value)) return void out.push(`${at}: must be an array`);
      break;
    case 'string':
      if (typeof value !== 'string') return void out.push(`${at}: must be a string`);
      break;
    case 'integer':
      if (!Number.isInteger(value)) return void out.push(`${at}: must be an integer`);
      break;
    case 'number':
      if (typeof value !== 'number') return void out.push(`${at}: must be a number`);
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return void out.push(`${at}: must be true or false`);
      break;
  }
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) out.push(`${at}: must be one of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if (typeof value === 'number') {
    if (s.minimum !== undefined && (s.exclusiveMinimum ? value <= s.minimum : value < s.minimum)) out.push(`${at}: must be ${s.exclusiveMinimum ? '>' : '>='} ${s.minimum}`);
    if (s.maximum !== undefined && (s.exclusiveMaximum ? value >= s.maximum : value > s.maximum)) out.push(`${at}: must be ${s.exclusiveMaximum ? '<' : '<='} ${s.maximum}`);
  }
  if (typeof value === 'string') {
    const n = [...value].length;
    if (s.minLength !== undefined && n < s.minLength) out.push(`${at}: must be at least ${s.minLength} characters`);
    if (s.maxLength !== undefined && n > s.maxLength) out.push(`${at}: must be at most ${s.maxLength} characters`);
    if (s.pattern !== undefined && !safeRegExp(s.pattern)?.test(value)) out.push(`${at}: must match ${s.pattern}`);
  }
  if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems) out.push(`${at}: must have at least ${s.minItems} items`);
    if (s.maxItems !== undefined && value.length > s.maxItems) out.push(`${at}: must have at most ${s.maxItems} items`);
    if (s.items) value.forEach((v, i) => walk(v, s.items!, `${path}[${i}]`, out));
  }
  if (isRecord(value)) {
    const keys = Object.keys(value);
    if (s.minProperties !== undefined && keys.length < s.minProperties) out.push(`${at}: must have at least ${s.minProperties} fields`);
    if (s.maxProperties !== undefined && keys.length > s.maxProperties) out.push(`${at}: must have at most ${s.maxProperties} fields`);
    for (const r of s.required ?? []) if (value[r] === undefined || (value[r] === null && !s.properties?.[r]?.nullable)) out.push(`${path === '' ? r : `${path}.${r}`}: required`);
    for (const k of keys) {
      const child = path === '' ? k : `${path}.${k}`;
      // apiVersion, kind and metadata of the object itself are the API server's, not the schema's.
      if (root && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      const p = s.properties?.[k];
      if (p) walk(value[k], p, child, out);
      else if (isRecord(s.additionalProperties)) walk(value[k], s.additionalProperties, child, out);
      else if (s.additionalProperties === true || s['x-kubernetes-preserve-unknown-fields'] || s['x-kubernetes-embedded-resource']) continue;
      else if (s.properties !== undefined || s.type === 'object') out.push(`${child}: unknown field`);
    }
  }
  for (const sub of s.allOf ?? []) walk(value, sub, path, out);
  if (s.anyOf && !s.anyOf.some((sub) => checkAgainstSchema(value, sub, path).length === 0)) out.push(`${at}: matches none of anyOf`);
  if (s.oneOf && s.oneOf.filter((sub) => checkAgainstSchema(value, sub, path).length === 0).length !== 1) out.push(`${at}: must match exactly one of oneOf`);
}

function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}
