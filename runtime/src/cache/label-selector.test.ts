import { describe, expect, it } from 'vitest';
import { LabelSelectorError, parseLabelSelector } from './label-selector.js';
import { Store } from './store.js';

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
