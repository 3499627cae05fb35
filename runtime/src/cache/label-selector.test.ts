import { describe, expect, it } from 'vitest';
import { LabelSelectorError, parseLabelSelector } from './label-selector.js';
import { MemoryStore as Store } from './store.js';

describe('parseLabelSelector', () => {
  const labels = { app: 'web', tier: 'front', 'example.com/team': 'a' };

  it.each([
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (db, web)', true],
    ['app notin (db,web)', false],
    ['missing notin (x)', true],
    ['tier', true],
    ['!tier', false],
    ['!missing', true],
    ['app=web,tier=front,example.com/team=a', true],
    ['app=web,tier=back', false],
  ])('%s → %s', (selector, expected) => {
    expect(parseLabelSelector(selector)(labels)).toBe(expected);
  });

  it('takes an equality map', () => {
    expect(parseLabelSelector({ app: 'web' })(labels)).toBe(true);
    expect(parseLabelSelector({ app: 'web', tier: 'x' })(labels)).toBe(false);
    expect(parseLabelSelector({ app: 'web' })(undefined)).toBe(false);
  });

  it('rejects malformed selectors with the reason', () => {
    expect(() => parseLabelSelector('app in (a')).toThrow(LabelSelectorError);
    expect(() => parseLabelSelector('app=web,,tier')).toThrow(/empty requirement/);
    expect(() => parseLabelSelector('a=b c')).toThrow(/cannot read/);
    expect(() => parseLabelSelector('-bad=x')).toThrow(/not a valid label key/);
  });
});

describe('Store', () => {
  it('lists by namespace and label selector and forgets deleted objects', () => {
    const s = new Store();
    s.upsert({ metadata: { namespace: 'a', name: 'x', labels: { app: 'web' } } });
    s.upsert({ metadata: { namespace: 'a', name: 'y', labels: { app: 'db' } } });
    s.upsert({ metadata: { namespace: 'b', name: 'x', labels: { app: 'web' } } });
    expect(s.list({ namespace: 'a' }).map((o) => o.metadata?.name)).toEqual(['x', 'y']);
    expect(s.list({ labelSelector: 'app=web' }).map((o) => o.metadata?.namespace)).toEqual(['a', 'b']);
    expect(s.get('b', 'x')?.metadata?.labels).toEqual({ app: 'web' });
    s.delete('a/x');
    expect(s.list({ namespace: 'a' }).map((o) => o.metadata?.name)).toEqual(['y']);
    expect(s.list({ namespace: 'nowhere' })).toEqual([]);
    expect(s.size).toBe(2);
  });
});

describe('Store field indexes', () => {
  it('lists by an indexed value and keeps the index current on update and delete', () => {
    const s = new Store();
    s.upsert({ metadata: { namespace: 'a', name: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'o1', uid: '1' }] } });
    s.addIndex('owner', (o) => o.metadata?.ownerReferences?.map((r) => r.name));
    s.upsert({ metadata: { namespace: 'a', name: 'y', ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'o1', uid: '1' }] } });
    s.upsert({ metadata: { namespace: 'b', name: 'z', labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'o1', uid: '1' }] } });
    const names = (opts: Parameters<Store['list']>[0]) => s.list(opts).map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();
    expect(names({ fields: { owner: 'o1' } })).toEqual(['a/x', 'a/y', 'b/z']);
    expect(names({ fields: { owner: 'o1' }, namespace: 'a' })).toEqual(['a/x', 'a/y']);
    expect(names({ fields: { owner: 'o1' }, labelSelector: 'app=web' })).toEqual(['b/z']);
    s.upsert({ metadata: { namespace: 'a', name: 'y', ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'o2', uid: '2' }] } });
    expect(names({ fields: { owner: 'o1' } })).toEqual(['a/x', 'b/z']);
    expect(names({ fields: { owner: 'o2' } })).toEqual(['a/y']);
    s.delete('a/x');
    expect(names({ fields: { owner: 'o1' } })).toEqual(['b/z']);
    expect(() => s.list({ fields: { nope: 'x' } })).toThrow(/no index for field "nope"/);
    expect(() => s.addIndex('owner', () => undefined)).toThrow(/already exists/);
  });
});
