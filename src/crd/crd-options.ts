// controller-gen's crd generator options, spelt as controller-gen users pass them:
// `opgen generate crd:maxDescLen=0,crdVersions=v1`. Options that mean nothing for TypeScript sources
// (allowDangerousTypes: a TypeScript number is already a float; ignoreUnexportedFields: interfaces have
// no unexported fields) are accepted and have no effect, so a Makefile line can be copied as it is.
import { OpgenError } from '../diag/diagnostic.js';
import type { JSONSchemaProps } from '../common/json-schema.js';

export interface CrdOptions {
  /** Descriptions longer than this are cut at a sentence (or word) boundary; 0 drops them. */
  maxDescLen?: number;
  /** ObjectMeta below the root gets name, namespace, labels, annotations and finalizers. */
  generateEmbeddedObjectMeta?: boolean;
}

const NO_EFFECT = new Set(['allowDangerousTypes', 'ignoreUnexportedFields']);

/** Parses the text after `crd:` (`maxDescLen=0,crdVersions=v1`). */
export function parseCrdOptions(text: string): CrdOptions {
  const out: CrdOptions = {};
  const flag = { flag: `crd:${text}` };
  for (const part of text.split(',').filter((p) => p !== '')) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? 'true' : part.slice(eq + 1);
    if (name === 'maxDescLen') {
      if (!/^\d+$/.test(value)) throw new OpgenError(`maxDescLen=${value} is not a whole number`, flag, 'write e.g. crd:maxDescLen=0 (drop descriptions) or crd:maxDescLen=200');
      out.maxDescLen = Number(value);
    } else if (name === 'crdVersions') {
      const versions = value.replace(/^\{|\}$/g, '').split(/[;,]/).map((v) => v.trim()).filter(Boolean);
      if (versions.some((v) => v !== 'v1')) throw new OpgenError(`crdVersions=${value}: only v1 CRDs exist`, flag, 'write crd:crdVersions=v1 or leave it out');
    } else if (name === 'generateEmbeddedObjectMeta') {
      if (value !== 'true' && value !== 'false') throw new OpgenError(`${name}=${value} is not true or false`, flag, `write ${name}=true`);
      out.generateEmbeddedObjectMeta = value === 'true';
    } else if (NO_EFFECT.has(name)) {
      if (value !== 'true' && value !== 'false') throw new OpgenError(`${name}=${value} is not true or false`, flag, `write ${name}=true`);
    } else {
      throw new OpgenError(`unknown crd option "${name}"`, flag, 'use maxDescLen=<n>, generateEmbeddedObjectMeta=true or crdVersions=v1 (allowDangerousTypes and ignoreUnexportedFields are accepted and have no effect)');
    }
  }
  return out;
}

/** controller-gen's TruncateDescription over every schema in the tree (desc_visitor.go). */
export function truncateDescriptions(schema: JSONSchemaProps, maxLen: number): void {
  if (schema.description !== undefined) {
    if (maxLen === 0) delete schema.description;
    else schema.description = truncate(schema.description, maxLen);
  }
  for (const child of Object.values(schema.properties ?? {})) truncateDescriptions(child, maxLen);
  if (schema.items) truncateDescriptions(schema.items, maxLen);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') truncateDescriptions(schema.additionalProperties, maxLen);
  for (const list of [schema.allOf, schema.anyOf, schema.oneOf]) for (const s of list ?? []) truncateDescriptions(s, maxLen);
  if (schema.not) truncateDescriptions(schema.not, maxLen);
}

/** Go's truncateString: lengths in UTF-8 bytes; cut after the last sentence terminal, else at the last space with "...". */
function truncate(desc: string, maxLen: number): string {
  const bytes = Buffer.from(desc, 'utf8');
  if (bytes.length <= maxLen) return desc;
  const cut = bytes.subarray(0, maxLen).toString('utf8').replace(/\uFFFD$/, '');
  const chars = [...cut];
  for (let i = chars.length - 1; i > 0; i--) if (/\p{Sentence_Terminal}/u.test(chars[i]!)) return chars.slice(0, i + 1).join('');
  for (let i = chars.length - 1; i > 0; i--) if (/\p{White_Space}/u.test(chars[i]!)) return `${chars.slice(0, i).join('')}...`;
  return `${cut}...`;
}
