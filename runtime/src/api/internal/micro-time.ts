// Not in api/types.ts: the public index re-exports that module whole, and this helper is internal.
import type { MicroTime } from '../types.js';

/** metav1.MicroTime ("2006-01-02T15:04:05.000000Z"): Date has milliseconds, the API server wants six digits. */
export function microTime(d: Date): MicroTime {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
