// watches.yaml as operator-sdk reads it (its keys and defaults), and refused where it would silently
// misbehave: each refusal names the line and column.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDuration, parseWatches } from './watches.js';

const dir = mkdtempSync(join(tmpdir(), 'opgen-watches-'));
mkdirSync(join(dir, 'roles', 'memcached', 'tasks'), { recursive: true });
writeFileSync(join(dir, 'site.yml'), '- hosts: localhost\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'watches.yaml');
const parse = (text: string) => parseWatches(text, file);
const error = (text: string): string => {
  try {
    parse(text);
  } catch (err) {
    return (err as Error).message.replace(`${dir}/`, '');
  }
  throw new Error('accepted');
};

describe('watches.yaml', () => {
  it('operator-sdk\'s defaults, the role found under roles/, durations in Go syntax', () => {
    const [w] = parse('- version: v1alpha1\n  group: cache.example.com\n  kind: Memcached\n  role: memcached\n');
    expect(w).toEqual({
      group: 'cache.example.com', version: 'v1alpha1', kind: 'Memcached', role: join(dir, 'roles', 'memcached'), vars: {},
      maxRunnerArtifacts: 20, reconcilePeriodMs: 0, manageStatus: true, watchDependentResources: true, watchClusterScopedResources: false,
      snakeCaseParameters: true, watchAnnotationsChanges: false, markUnsafe: false, blacklist: [], selector: {},
    });
    const [p] = parse('- {version: v1, group: g.io, kind: K, playbook: site.yml, reconcilePeriod: 1m30s, finalizer: {name: g.io/f, vars: {state: absent}}, selector: {matchLabels: {a: b}}}\n');
    expect(p).toMatchObject({ playbook: join(dir, 'site.yml'), reconcilePeriodMs: 90_000, finalizer: { name: 'g.io/f', vars: { state: 'absent' } }, selector: { matchLabels: { a: 'b' } } });
    expect([parseDuration('250ms'), parseDuration('1h'), parseDuration('5'), parseDuration('1x')]).toEqual([250, 3_600_000, undefined, undefined]);
  });

  it('refuses with file:line:col and the fix', () => {
    const entry = '- version: v1\n  group: g.io\n  kind: K\n';
    expect(error(`${entry}  role: memcached\n  playbook: site.yml\n`)).toBe('watches.yaml:5:13: role and playbook are both set; keep one of them');
    expect(error(entry)).toBe('watches.yaml:1:3: K names no role or playbook; add `role: <name>` or `playbook: <file>`');
    expect(error(`${entry}  role: memcached\n  reconcilePeriod: soon\n`)).toBe('watches.yaml:5:20: reconcilePeriod "soon" is not a duration; write a Go duration such as 30s, 5m or 1h30m');
    expect(error(`${entry}  role: memcached\n  finalizer: {role: memcached}\n`)).toBe('watches.yaml:5:14: finalizer has no name; add `name: <domain>/finalizer`, e.g. cache.example.com/finalizer');
    expect(error(`${entry}  role: memcached\n  manageStatus: "no"\n`)).toBe('watches.yaml:5:17: manageStatus must be true or false; write manageStatus: true');
    expect(error('- version: v1\n  kind: K\n  role: [x\n')).toMatch(/^watches\.yaml:\d+:\d+: not YAML: /);
  });
});
