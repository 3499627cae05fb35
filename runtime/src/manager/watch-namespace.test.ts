import { describe, expect, it } from 'vitest';
import { watchNamespaces } from './watch-namespace.js';

describe('watchNamespaces (WATCH_NAMESPACE)', () => {
  it('unset or empty means every namespace', () => {
    expect(watchNamespaces(undefined)).toBeUndefined();
    expect(watchNamespaces('')).toBeUndefined();
    expect(watchNamespaces('  ')).toBeUndefined();
  });

  it('splits at commas, trims, drops repeats, keeps the order', () => {
    expect(watchNamespaces('team-a')).toEqual(['team-a']);
    expect(watchNamespaces(' team-b , team-a,team-b ')).toEqual(['team-b', 'team-a']);
  });

  it('refuses what is not a namespace name, naming the entry', () => {
    expect(() => watchNamespaces('team-a,,team-b')).toThrow('WATCH_NAMESPACE="team-a,,team-b" has an empty entry; list namespaces separated by single commas, e.g. team-a,team-b');
    expect(() => watchNamespaces('team-a,Team-B')).toThrow(`WATCH_NAMESPACE="team-a,Team-B": "Team-B" is not a namespace name (lower-case letters, digits and '-', at most 63 characters)`);
    expect(() => watchNamespaces('team a')).toThrow(/"team a" is not a namespace name/);
    expect(() => watchNamespaces(`${'a'.repeat(64)}`)).toThrow(/is not a namespace name/);
    expect(watchNamespaces('a'.repeat(63))).toEqual(['a'.repeat(63)]);
  });
});
