// The Kubernetes version each CEL library is accepted from (versions.ts), judged by a real kube-apiserver:
// envtest's 1.36 server started with --emulated-version=1.N compiles a new CRD's rules in the environment
// of 1.N-1, as a 1.N server does. It can only stand in for 1.34 and later: below that its compatibility
// version stops at 1.33 (the binary's floor), so those releases' lag cannot be shown here; the libraries
// that tell 1.34 and 1.35 apart (semver: 1.34, cel-go lists v3: 1.35) are what it checks.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestEnv } from '@opgen/runtime/envtest';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../common/json-schema.js';
import { checkCelRules } from './check.js';

const rules = [
  'isSemver(self.s)',
  'self.l.distinct().size() > 0',
  'self.l.sort() == self.l',
  'lists.range(3).size() == 3',
  'self.l.all(i, x, i < 3)',
  'format.dns1123Label().validate(self.s).hasValue()',
  'isIP(self.s) || isCIDR(self.s)',
  'sets.contains(self.l, ["a"])',
  'quantity(self.s).isInteger()',
  'self.?s.orValue("") != ""',
];
const spec = (rule: string): JSONSchemaProps => ({
  type: 'object',
  properties: { s: { type: 'string', maxLength: 10 }, l: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 5 } } },
  'x-kubernetes-validations': [{ rule }],
});

const work = mkdtempSync(join(tmpdir(), 'opgen-cel-floor-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Which rules an API server emulating `version` accepts in a new CRD (server-side dry run). */
async function acceptedBy(version: string): Promise<boolean[]> {
  const env = await startTestEnv({ apiServerFlags: { 'emulated-version': version } });
  try {
    const items = rules.map((rule, i) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `f${i}s.floor.opgen.dev` },
      spec: {
        group: 'floor.opgen.dev',
        names: { kind: `F${i}`, listKind: `F${i}List`, plural: `f${i}s`, singular: `f${i}` },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: spec(rule) } } } }],
      },
    }));
    const file = join(work, `crds-${version}.json`);
    writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    const r = await execa('kubectl', ['--kubeconfig', env.kubeconfigPath, 'create', '--dry-run=server', '-o', 'name', '-f', file], { reject: false });
    return rules.map((_, i) => r.stdout.includes(`/f${i}s.floor.opgen.dev`));
  } finally {
    await env.stop();
  }
}

describe('CEL libraries against the oldest Kubernetes supported: opgen agrees with an API server of that version', () => {
  it.each(['1.34', '1.35'])('Kubernetes %s', async (version) => {
    const server = await acceptedBy(version);
    const [major, minor] = version.split('.').map(Number) as [number, number];
    const ours = rules.map((rule) => checkCelRules({ type: 'object', properties: { spec: spec(rule) } }, { floor: { major, minor } }).length === 0);
    const table = rules.map((rule, i) => `${rule}: API server ${server[i] ? 'accepts' : 'refuses'}, opgen ${ours[i] ? 'accepts' : 'refuses'}`);
    expect(ours, table.join('\n')).toEqual(server);
    // Both sides of the line: the check can fail either way.
    expect(server.some((a) => !a) || version === '1.35', table.join('\n')).toBe(true);
    expect(server.some((a) => a)).toBe(true);
  }, 180_000);
});
