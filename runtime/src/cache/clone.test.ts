import { describe, expect, it } from 'vitest';
import { cloneObject } from './clone.js';

describe('cloneObject (what the cache hands readers)', () => {
  it('copies a parsed object deeply: editing the copy leaves the original as it was', () => {
    const text = '{"metadata":{"name":"a","labels":{"x":"1"},"ownerReferences":[{"uid":"u","controller":true}]},"data":{"k":"v"},"n":1.5,"b":false,"z":null}';
    const original = JSON.parse(text) as Record<string, any>;
    const copy = cloneObject(original);
    expect(copy).toEqual(original);
    copy.metadata.labels.x = '2';
    copy.metadata.ownerReferences[0].uid = 'other';
    copy.metadata.ownerReferences.push({ uid: 'v' });
    delete copy.data.k;
    expect(JSON.stringify(original)).toBe(text);
  });

  it('keeps a "__proto__" key as data, as JSON.parse does, without touching the prototype', () => {
    const original = JSON.parse('{"data":{"__proto__":{"polluted":"yes"},"b":"2"}}') as { data: Record<string, unknown> };
    const copy = cloneObject(original);
    expect(Object.getPrototypeOf(copy.data)).toBe(Object.prototype);
    expect(Object.keys(copy.data)).toEqual(['__proto__', 'b']);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(original));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('copies what a transform may add beyond JSON (a Date, a Map) with structuredClone', () => {
    const when = new Date(0);
    const original = { metadata: { name: 'a' }, extra: { when, seen: new Map([['k', 1]]) } };
    const copy = cloneObject(original);
    expect(copy.extra.when).toEqual(when);
    expect(copy.extra.when).not.toBe(when);
    expect(copy.extra.seen.get('k')).toBe(1);
    expect(copy.extra.seen).not.toBe(original.extra.seen);
  });
});
