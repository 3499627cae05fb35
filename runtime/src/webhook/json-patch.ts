// RFC 6902 operations that turn one JSON document into another: what a mutating webhook answers after
// default() edited a copy of the object. Objects are compared key by key and arrays of equal length
// element by element; an array whose length changed is replaced whole (simple and always correct).
import type { JsonPatchOp } from '../client/index.js';

/** RFC 6901: '~' → '~0', '/' → '~1'. */
function pointer(parent: string, key: string | number): string {
  return `${parent}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function diffInto(ops: JsonPatchOp[], path: string, before: unknown, after: unknown): void {
  if (before === after) return;
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) {
      if (!(key in after) || after[key] === undefined) {
        if (before[key] !== undefined) ops.push({ op: 'remove', path: pointer(path, key) });
      }
    }
    for (const [key, value] of Object.entries(after)) {
      if (value === undefined) continue;
      if (!(key in before) || before[key] === undefined) ops.push({ op: 'add', path: pointer(path, key), value });
      else diffInto(ops, pointer(path, key), before[key], value);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    for (let i = 0; i < before.length; i++) diffInto(ops, pointer(path, i), before[i], after[i]);
    return;
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  ops.push({ op: 'replace', path, value: after });
}

/** The operations that make `before` equal to `after` (both plain JSON values). */
export function jsonPatchDiff(before: unknown, after: unknown): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [];
  diffInto(ops, '', before, JSON.parse(JSON.stringify(after ?? null)) as unknown);
  return ops;
}
