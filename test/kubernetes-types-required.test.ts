// Every generated built-in type (runtime/src/kubernetes) against the Kubernetes OpenAPI document's own
// `required` lists, read here straight from api/openapi-spec/v3 of the release data/kubernetes-models.json
// targets, independently of the generator: a property is optional (`?:`) exactly when its schema does not
// require it, at the top level of each interface and in inline objects.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { KUBERNETES_VERSION, openApiDir } from '../tools/kubernetes-types/generate.js';

interface Schema { properties?: Record<string, Schema>; required?: string[]; $ref?: string; allOf?: Schema[] }

/** File (without .ts) → the OpenAPI definition-name prefix of its group-version. */
const PREFIXES: Record<string, string> = {
  corev1: 'io.k8s.api.core.v1.', appsv1: 'io.k8s.api.apps.v1.', batchv1: 'io.k8s.api.batch.v1.', networkingv1: 'io.k8s.api.networking.v1.',
  policyv1: 'io.k8s.api.policy.v1.', rbacv1: 'io.k8s.api.rbac.v1.', coordinationv1: 'io.k8s.api.coordination.v1.', eventsv1: 'io.k8s.api.events.v1.',
  autoscalingv2: 'io.k8s.api.autoscaling.v2.', admissionregistrationv1: 'io.k8s.api.admissionregistration.v1.',
  apiextensionsv1: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.', metav1: 'io.k8s.apimachinery.pkg.apis.meta.v1.',
};

function definitions(): Map<string, Schema> {
  const dir = openApiDir(KUBERNETES_VERSION);
  const defs = new Map<string, Schema>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const doc = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { components?: { schemas?: Record<string, Schema> } };
    for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) if (!defs.has(name)) defs.set(name, s);
  }
  return defs;
}

/** Optionality mismatches of a type literal / interface's members against `schema`, as path: message. */
function compare(members: ts.NodeArray<ts.TypeElement>, schema: Schema, path: string, out: string[]): number {
  let checked = 0;
  const required = new Set(schema.required ?? []);
  for (const m of members) {
    if (!ts.isPropertySignature(m) || !m.name) continue;
    const name = ts.isIdentifier(m.name) || ts.isStringLiteral(m.name) ? m.name.text : m.name.getText();
    const prop = schema.properties?.[name];
    if (!prop) {
      out.push(`${path}.${name}: not in the OpenAPI schema`);
      continue;
    }
    checked++;
    const optional = m.questionToken !== undefined;
    if (optional === required.has(name)) out.push(`${path}.${name}: ${optional ? 'optional' : 'required'} in TypeScript, ${required.has(name) ? 'required' : 'optional'} in the OpenAPI schema`);
    // Inline objects (no $ref) are written inline: check their members too.
    if (m.type && ts.isTypeLiteralNode(m.type) && prop.properties) checked += compare(m.type.members, prop, `${path}.${name}`, out);
  }
  for (const r of required) {
    if (!members.some((m) => ts.isPropertySignature(m) && (m.name as ts.Identifier | ts.StringLiteral).text === r)) out.push(`${path}.${r}: required in the OpenAPI schema, missing in TypeScript`);
  }
  return checked;
}

it("every generated built-in type marks exactly the OpenAPI schema's required properties as required", () => {
  const defs = definitions();
  const dir = join(process.cwd(), 'runtime', 'src', 'kubernetes');
  const problems: string[] = [];
  let interfaces = 0;
  let properties = 0;
  for (const [file, prefix] of Object.entries(PREFIXES)) {
    const source = ts.createSourceFile(`${file}.ts`, readFileSync(join(dir, `${file}.ts`), 'utf8'), ts.ScriptTarget.ES2022, true);
    for (const st of source.statements) {
      if (!ts.isInterfaceDeclaration(st) || !st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      const schema = defs.get(`${prefix}${st.name.text}`);
      if (!schema) {
        problems.push(`${file}.${st.name.text}: no OpenAPI definition ${prefix}${st.name.text}`);
        continue;
      }
      interfaces++;
      properties += compare(st.members, schema, `${file}.${st.name.text}`, problems);
    }
  }
  expect(problems).toEqual([]);
  // Not vacuous: hundreds of interfaces and ~1,900 properties were compared.
  expect(interfaces).toBeGreaterThan(300);
  expect(properties).toBeGreaterThan(1500);
}, 120_000);

it('follows the document, not a guess: appsv1.Deployment.spec is optional and batchv1.CronJob.spec required (+required since Kubernetes 1.3x)', () => {
  const defs = definitions();
  expect(defs.get('io.k8s.api.apps.v1.Deployment')?.required ?? []).not.toContain('spec');
  expect(defs.get('io.k8s.api.batch.v1.CronJob')?.required).toContain('spec');
  const batch = readFileSync(join(process.cwd(), 'runtime', 'src', 'kubernetes', 'batchv1.ts'), 'utf8');
  const apps = readFileSync(join(process.cwd(), 'runtime', 'src', 'kubernetes', 'appsv1.ts'), 'utf8');
  expect(/export interface CronJob \{[^}]*\n {2}spec: CronJobSpec;/.test(batch)).toBe(true);
  expect(/export interface Deployment \{[^}]*\n {2}spec\?: DeploymentSpec;/.test(apps)).toBe(true);
});
