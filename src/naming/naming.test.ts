import { describe, expect, it } from 'vitest';
import { checkApiVersion, checkDns1035Label, checkDns1123Label, checkDns1123Subdomain, checkKind, pluralize } from './index.js';

describe('pluralize (kubebuilder/flect rules on the lower-cased kind)', () => {
  it.each([
    ['Memcached', 'memcacheds'], ['Policy', 'policies'], ['Redis', 'redis'], ['Index', 'indices'],
    ['Captain', 'captains'], ['Ingress', 'ingresses'], ['Proxy', 'proxies'], ['Gateway', 'gateways'],
    ['Matrix', 'matrices'], ['Status', 'statuses'], ['Leaf', 'leaves'], ['Knife', 'knives'], ['Hero', 'heroes'],
    ['Photo', 'photos'], ['Person', 'people'], ['Child', 'children'], ['Sheep', 'sheep'], ['Analysis', 'analyses'],
    ['Datum', 'data'], ['Box', 'boxes'], ['Bus', 'buses'], ['Quiz', 'quizzes'], ['Series', 'series'],
    ['Api', 'apis'], ['Ssh', 'sshs'], ['Cookie', 'cookies'], ['Mouse', 'mice'], ['Ox', 'oxen'], ['BigOx', 'bigoxes'],
    ['Criterion', 'criteria'], ['Backup', 'backups'], ['CronJob', 'cronjobs'],
  ])('%s → %s', (kind, plural) => {
    expect(pluralize(kind)).toBe(plural);
    expect(pluralize(plural)).toBe(plural); // a plural stays as it is
  });
});

describe('validators', () => {
  it('DNS-1123 label', () => {
    for (const ok of ['a', 'my-project', 'p1', '1p', 'a'.repeat(63)]) expect(checkDns1123Label(ok)).toBeUndefined();
    for (const bad of ['', 'My', 'a_b', '-a', 'a-', 'a.b', 'a'.repeat(64)]) expect(checkDns1123Label(bad)).toBeDefined();
  });
  it('DNS-1123 subdomain', () => {
    for (const ok of ['my.domain', 'example.com', 'a', 'cache.example-1.io']) expect(checkDns1123Subdomain(ok)).toBeUndefined();
    for (const bad of ['', 'Example.com', 'a..b', '.a', 'a.', 'a_b.com', `${'a'.repeat(63)}.`.repeat(4) + 'com']) {
      expect(checkDns1123Subdomain(bad)).toBeDefined();
    }
  });
  it('DNS-1035 label', () => {
    for (const ok of ['memcacheds', 'a-b', 'a1']) expect(checkDns1035Label(ok)).toBeUndefined();
    for (const bad of ['1a', 'A', 'a-', 'a_b', '']) expect(checkDns1035Label(bad)).toBeDefined();
  });
  it('API version', () => {
    for (const ok of ['v1', 'v2beta3', 'v1alpha1', 'v10']) expect(checkApiVersion(ok)).toBeUndefined();
    for (const bad of ['1', 'v0', 'V1', 'v1beta', 'v01', 'v1gamma1', 'version1', 'v1alpha0']) expect(checkApiVersion(bad)).toBeDefined();
  });
  it('kind', () => {
    for (const ok of ['Memcached', 'CronJob', 'V2Thing', 'CAPTAIN']) expect(checkKind(ok)).toBeUndefined();
    for (const bad of ['memcached', 'Cron_Job', 'Cron-Job', '1Kind', 'Kïnd', '']) expect(checkKind(bad)).toMatch(/PascalCase/);
    expect(checkKind('A'.repeat(64))).toMatch(/63/);
  });
});
