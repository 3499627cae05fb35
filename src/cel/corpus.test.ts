// The CEL checker on rules nobody here wrote: every CRD of three public APIs (Gateway API's experimental
// channel, cluster-api, cert-manager; fetched from the Go module proxy by .ci/cel-corpus.sh) goes to a real
// kube-apiserver (envtest, server-side dry run) and through opgen's checker. The two must agree on every
// CRD: the checker must never refuse what the API server accepts (these rules run in real clusters).
import { readdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { JSONSchemaProps } from '../common/json-schema.js';
import { ciTool } from '../testdata/ci-tools.js';
import { checkCelRules } from './check.js';

interface Crd {
  kind: string;
  metadata: { name: string };
  spec: { versions: { name: string; schema?: { openAPIV3Schema: JSONSchemaProps } }[] };
}

const corpus = ciTool('OPGEN_CEL_CORPUS', 'cel-corpus.sh');
const crds: { file: string; crd: Crd }[] = readdirSync(corpus)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .flatMap((file) =>
    parseAllDocuments(readFileSync(join(corpus, file), 'utf8'))
      .map((d) => d.toJS({ maxAliasCount: -1 }) as Crd | null)
      .filter((d): d is Crd => d?.kind === 'CustomResourceDefinition')
      .map((crd) => ({ file, crd })),
  );

/** Every rule of a schema, with where it sits (for the count and the report). */
function rulesOf(schema: JSONSchemaProps | undefined): string[] {
  if (!schema) return [];
  const out = (schema['x-kubernetes-validations'] ?? []).map((r) => r.rule);
  for (const p of Object.values(schema.properties ?? {})) out.push(...rulesOf(p));
  if (schema.items && !Array.isArray(schema.items)) out.push(...rulesOf(schema.items as JSONSchemaProps));
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') out.push(...rulesOf(schema.additionalProperties));
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) for (const s of schema[k] ?? []) out.push(...rulesOf(s));
  return out;
}

let env: TestEnv;
let work: string;
/** CRD name → the API server's error line (absent: accepted). */
const refusedByServer = new Map<string, string>();

beforeAll(async () => {
  env = await startTestEnv();
  work = mkdtempSync(join(tmpdir(), 'opgen-cel-corpus-'));
  const file = join(work, 'crds.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: crds.map((c) => c.crd) }));
  const r = await execa('kubectl', ['--kubeconfig', env.kubeconfigPath, 'create', '--dry-run=server', '-o', 'name', '-f', file], { reject: false });
  const accepted = new Set(r.stdout.split('\n').map((l) => l.replace(/^customresourcedefinition\.apiextensions\.k8s\.io\//, '').trim()));
  for (const { crd } of crds) {
    if (accepted.has(crd.metadata.name)) continue;
    refusedByServer.set(crd.metadata.name, r.stderr.split('\n').find((l) => l.includes(`"${crd.metadata.name}"`)) ?? r.stderr.slice(0, 500));
  }
}, 180_000);

afterAll(async () => {
  await env?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('CEL rules of public CRDs: opgen agrees with the API server', () => {
  it('on every CRD, and says how many rules that is', () => {
    let rules = 0;
    let rulesRefused = 0;
    let agreed = 0;
    const disagreements: string[] = [];
    for (const { file, crd } of crds) {
      const found = crd.spec.versions.map((v) => ({ v, problems: checkCelRules(v.schema?.openAPIV3Schema ?? {}) }));
      const problems = found.flatMap(({ v, problems }) => problems.map((p) => `${file} ${v.name} ${p.schemaPath || '<root>'} rule ${p.index + 1} ${p.part}: ${p.message}`));
      rules += crd.spec.versions.reduce((n, v) => n + rulesOf(v.schema?.openAPIV3Schema).length, 0);
      rulesRefused += found.reduce((n, { problems }) => n + new Set(problems.map((p) => `${p.schemaPath}#${p.index}`)).size, 0);
      const server = refusedByServer.get(crd.metadata.name);
      if ((problems.length > 0) === (server !== undefined)) agreed++;
      else disagreements.push(`${crd.metadata.name}: API server ${server ?? 'accepts'}; opgen ${problems.join(' | ') || 'accepts'}`);
    }
    // A CRD the API server accepts has every rule in it accepted: opgen must accept each of them too.
    console.log(
      `CEL corpus: ${rules} x-kubernetes-validations rules in ${crds.length} CRDs of ${new Set(crds.map((c) => c.file.split('--')[0])).size} APIs; ` +
        `the API server refuses ${refusedByServer.size} CRDs, opgen and it agree on ${agreed} of ${crds.length}; opgen refuses ${rulesRefused} of the ${rules} rules`,
    );
    expect(crds.length).toBeGreaterThan(30);
    expect(rules).toBeGreaterThan(300);
    expect(disagreements).toEqual([]);
    expect(rulesRefused).toBe(0);
  });
});
