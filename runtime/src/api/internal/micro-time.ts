// Not in api/types.ts: the public index re-exports that module whole, and these helpers are internal.
import type { MicroTime, Time } from '../types.js';

/** metav1.MicroTime ("2006-01-02T15:04:05.000000Z"): Date has milliseconds, the API server wants six digits. */
export function microTime(d: Date): MicroTime {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** metav1.Time ("2006-01-02T15:04:05Z"): RFC 3339 with second precision. */
export function metaTime(d: Date): Time {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
