// The oracle for the CEL checker: every fixture rule set is sent to a real kube-apiserver (envtest) as a
// CRD, and opgen must refuse exactly the CRDs the API server refuses, for the same rules.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { celCases, type CelCase } from './oracle-cases.js';
import type { JSONSchemaProps } from '../common/json-schema.js';
import { checkCelRules } from './check.js';

const GROUP = 'cel.opgen.dev';
let env: TestEnv;
let work: string;
/** CRD name → the API server's error text (absent: accepted). */
const refusedByServer = new Map<string, string>();

const plural = (i: number): string => `case${i}s`;
const rootSchema = (c: CelCase): JSONSchemaProps => ({
  type: 'object',
  properties: { spec: c.spec },
  ...(c.rootRules ? { 'x-kubernetes-validations': c.rootRules } : {}),
});

function crd(c: CelCase, i: number): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural(i)}.${GROUP}`, annotations: { 'opgen.dev/case': c.name } },
    spec: {
      group: GROUP,
      names: { kind: `Case${i}`, listKind: `Case${i}List`, plural: plural(i), singular: `case${i}` },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: rootSchema(c) } }],
    },
  };
}

beforeAll(async () => {
  env = await startTestEnv();
  work = mkdtempSync(join(tmpdir(), 'opgen-cel-oracle-'));
  // One kubectl call for every case: server-side dry run, each CRD judged on its own.
  const file = join(work, 'crds.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: celCases.map(crd) }));
  const r = await execa('kubectl', ['--kubeconfig', env.kubeconfigPath, 'create', '--dry-run=server', '-o', 'name', '-f', file], { reject: false });
  const accepted = new Set(r.stdout.split('\n').map((l) => l.replace(/^customresourcedefinition\.apiextensions\.k8s\.io\//, '').trim()));
  for (let i = 0; i < celCases.length; i++) {
    const name = `${plural(i)}.${GROUP}`;
    if (accepted.has(name)) continue;
    const line = r.stderr.split('\n').find((l) => l.includes(`"${name}"`));
    refusedByServer.set(name, line ?? `(not in kubectl's output: ${r.stderr.slice(0, 500)})`);
  }
}, 120_000);

afterAll(async () => {
  await env?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('CEL rules: opgen refuses exactly what the API server refuses', () => {
  it('the fixture set exercises both sides', () => {
    expect(refusedByServer.size).toBeGreaterThan(10);
    expect(celCases.length - refusedByServer.size).toBeGreaterThan(10);
  });

  it.each(celCases.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
    const c = celCases[i]!;
    const server = refusedByServer.get(`${plural(i)}.${GROUP}`);
    const problems = checkCelRules(rootSchema(c));
    const ours = problems.map((p) => `${p.schemaPath || '<root>'} rule ${p.index + 1} ${p.part}: ${p.message} (${p.fix})`).join('\n');
    expect(problems.length > 0, `opgen: ${ours || 'accepts'}\nAPI server: ${server ?? 'accepts'}`).toBe(server !== undefined);
  });
});
