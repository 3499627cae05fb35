// Copies of cached objects for readers. Cached objects come from JSON.parse (then the cache's
// transform), so they hold plain objects, arrays and primitives; a recursive copy of those is several
// times cheaper than structuredClone, which serialises and deserialises every object. Anything else a
// transform may have put in (a Date, a Map) still goes through structuredClone.

export function cloneObject<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i]);
    return out;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = copy((value as Record<string, unknown>)[key]);
    // A "__proto__" key (JSON.parse makes it an own property, e.g. in a ConfigMap's data) must stay
    // data; assigning it would set the copy's prototype instead.
    if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out;
}
