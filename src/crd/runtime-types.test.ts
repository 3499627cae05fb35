// Every data type a user can import from @opgen/runtime into a spec generates, or its error names the type
// to use instead: the types are enumerated from the runtime's sources (runtime/src/kubernetes/<gv>.ts and
// the root module's api/types.ts and api/builtins.ts), not listed by hand, so a type added there is covered.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ts } from 'ts-morph';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OpgenErrors } from '../diag/diagnostic.js';
import { generateCommand } from '../gen/command.js';
import { startTestEnv } from '@opgen/runtime/envtest';
import { execa } from 'execa';

const runtimeSrc = fileURLToPath(new URL('../../runtime/src/', import.meta.url));

/** Exported type names of a module: interfaces, type aliases and `export type { … } from` re-exports. */
function exportedTypes(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const names: string[] = [];
  const exported = (n: ts.Node): boolean => !!(ts.canHaveModifiers(n) && ts.getModifiers(n)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword));
  for (const st of sf.statements) {
    if ((ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) && exported(st)) names.push(st.name.text);
    if (ts.isExportDeclaration(st) && st.isTypeOnly && st.exportClause && ts.isNamedExports(st.exportClause)) {
      for (const el of st.exportClause.elements) names.push(el.name.text);
    }
  }
  return [...new Set(names)].sort();
}

interface Field {
  name: string;
  type: string;
}

const groupVersions = readdirSync(join(runtimeSrc, 'kubernetes'))
  .filter((f) => /^[a-z0-9]+\.ts$/.test(f) && f !== 'index.ts')
  .map((f) => f.replace(/\.ts$/, ''));
const fields: Field[] = [
  ...groupVersions.flatMap((gv) => exportedTypes(join(runtimeSrc, 'kubernetes', `${gv}.ts`)).map((t) => ({ name: `${gv}_${t}`, type: `${gv}.${t}` }))),
  ...['types.ts', 'builtins.ts'].flatMap((f) => exportedTypes(join(runtimeSrc, 'api', f)).map((t) => ({ name: `runtime_${t}`, type: `R.${t}` }))),
];

const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

async function generate(list: Field[], maxDescLen?: number): Promise<{ errors: string[]; spec?: any; file?: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'opgen-runtime-types-'));
  temps.push(dir);
  writeFileSync(join(dir, 'PROJECT'), '');
  mkdirSync(join(dir, 'src/api/v1'), { recursive: true });
  writeFileSync(join(dir, 'src/api/v1/gv.ts'), '// +groupName=test.example.com\nexport {};\n');
  writeFileSync(
    join(dir, 'src/api/v1/types.ts'),
    `import type * as R from '@opgen/runtime';
import type { ${groupVersions.join(', ')} } from '@opgen/runtime/kubernetes';
export interface WidgetSpec {
${list.map((f) => `  ${f.name}?: ${f.type};`).join('\n')}
}
export interface Widget { apiVersion?: string; kind?: string; metadata?: R.ObjectMeta; spec?: WidgetSpec }
`,
  );
  try {
    await generateCommand({ cwd: dir, targets: ['crd'], check: false, dryRun: false, ...(maxDescLen !== undefined ? { crd: { maxDescLen } } : {}) }, () => {});
  } catch (err) {
    if (!(err instanceof OpgenErrors)) throw err;
    return { errors: err.message.split('\n') };
  }
  const file = join(dir, 'config/crd/bases/test.example.com_widgets.yaml');
  const crd = parse(readFileSync(file, 'utf8'));
  return { errors: [], spec: crd.spec.versions[0].schema.openAPIV3Schema.properties.spec, file };
}

/** The CRD the first test wrote with every type that generates, for the API server's judgement. */
let generatedFile: string | undefined;

describe('@opgen/runtime data types in a spec', () => {
  it('each generates, or its one error names what to use instead', async () => {
    expect(fields.length).toBeGreaterThan(400);
    // Without descriptions (the types' schemas are megabytes of text otherwise): the types are what is judged.
    const first = await generate(fields, 0);
    const refused = new Map<string, string>();
    for (const line of first.errors) {
      const m = /error: Widget\.spec\.(\w+): /.exec(line);
      expect(m, `an error not about one field: ${line}`).not.toBeNull();
      refused.set(m![1]!, line);
    }
    for (const [field, line] of refused) {
      // "(use …)": the fix names a type or module to write instead.
      expect(line, field).toMatch(/\((?:declare the fields you keep in an interface of your own, or )?use [^)]*(RawExtension|JSON|\[\]|\.[A-Z]\w+|@opgen\/runtime)/);
    }
    const accepted = fields.filter((f) => !refused.has(f.name));
    const second = await generate(accepted, 0);
    expect(second.errors).toEqual([]);
    for (const f of accepted) {
      const schema = second.spec.properties[f.name];
      expect(schema, f.name).toBeDefined();
      expect(schema.type ?? (schema['x-kubernetes-int-or-string'] || schema['x-kubernetes-preserve-unknown-fields']), f.name).toBeTruthy();
    }
    console.log(`@opgen/runtime data types in a spec: ${accepted.length} of ${fields.length} generate; ${refused.size} refused naming a replacement: ${[...refused.keys()].join(', ')}`);
    // The refusals are classes with a reason, not gaps: apiextensions (recursive JSONSchemaProps), admission
    // (webhook messages), the runtime's object and list base types, and models whose schema the API server
    // refuses in a CRD (ServiceAccount: its secrets list is keyed by an optional name).
    for (const [field, line] of refused) {
      if (!/the API server refuses its schema in a CRD/.test(line)) expect(field).toMatch(/^(apiextensionsv1_|admissionv1_|runtime_Kube(Object|List)$)/);
    }
    generatedFile = second.file;
  }, 300_000);

  it('metav1.LabelSelector is the schema controller-gen writes for metav1.LabelSelector', async () => {
    const { spec, errors } = await generate([
      { name: 'a', type: 'metav1.LabelSelector' },
      { name: 'b', type: 'R.LabelSelector' },
    ]);
    expect(errors).toEqual([]);
    expect(spec.properties.a.properties.matchExpressions.items.required).toEqual(['key', 'operator']);
    expect(spec.properties.a['x-kubernetes-map-type']).toBe('atomic');
    expect(spec.properties.b).toEqual(spec.properties.a);
  });
});

describe('@opgen/runtime data types in a spec, on a real API server', () => {
  it('the CRD with every type that generates is accepted (server-side dry run)', async () => {
    expect(generatedFile, 'the test above wrote it').toBeDefined();
    const file = generatedFile;
    const env = await startTestEnv();
    try {
      const r = await execa('kubectl', ['--kubeconfig', env.kubeconfigPath, 'create', '--dry-run=server', '-o', 'name', '-f', file!], { reject: false });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/widgets.test.example.com');
    } finally {
      await env.stop();
    }
  }, 180_000);
});
