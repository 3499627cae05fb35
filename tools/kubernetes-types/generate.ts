// Regenerates runtime/src/kubernetes/: plain-JSON TypeScript interfaces for the built-in kinds operators
// use, with a ResourceKind constant per served kind, from the OpenAPI v3 documents of the Kubernetes
// release data/kubernetes-models.json targets (api/openapi-spec/v3 in the k8s.io/kubernetes module).
// The types describe the JSON the API server serves: times are RFC 3339 strings, quantities and
// int-or-string fields the runtime's Quantity and IntOrString (string | number: "500m", "1Gi", 2), and fields
// the schema requires are required.
//
// Usage: npm run data:kubernetes-types   (needs go; reads the module from the Go module cache or proxy)
//        ... generate.js --check <dir>    (writes into <dir> instead, for the up-to-date test)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The CLI's reading of the data file this writes, so writer and reader share one shape.
import type { BuiltinKind } from '../../src/common/kubernetes-builtins.js';

type Schema = {
  type?: string; format?: string; description?: string; $ref?: string; allOf?: Schema[]; oneOf?: Schema[];
  items?: Schema; additionalProperties?: Schema | boolean; properties?: Record<string, Schema>; required?: string[];
  enum?: unknown[]; 'x-kubernetes-group-version-kind'?: Array<{ group: string; version: string; kind: string }>;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
};

/** Go import alias → definition-name prefix and API group, for every group-version generated. */
const GROUPS: Array<{ alias: string; prefix: string; group: string; version: string }> = [
  { alias: 'corev1', prefix: 'io.k8s.api.core.v1.', group: '', version: 'v1' },
  { alias: 'appsv1', prefix: 'io.k8s.api.apps.v1.', group: 'apps', version: 'v1' },
  { alias: 'batchv1', prefix: 'io.k8s.api.batch.v1.', group: 'batch', version: 'v1' },
  { alias: 'networkingv1', prefix: 'io.k8s.api.networking.v1.', group: 'networking.k8s.io', version: 'v1' },
  { alias: 'policyv1', prefix: 'io.k8s.api.policy.v1.', group: 'policy', version: 'v1' },
  { alias: 'rbacv1', prefix: 'io.k8s.api.rbac.v1.', group: 'rbac.authorization.k8s.io', version: 'v1' },
  { alias: 'coordinationv1', prefix: 'io.k8s.api.coordination.v1.', group: 'coordination.k8s.io', version: 'v1' },
  { alias: 'eventsv1', prefix: 'io.k8s.api.events.v1.', group: 'events.k8s.io', version: 'v1' },
  { alias: 'autoscalingv2', prefix: 'io.k8s.api.autoscaling.v2.', group: 'autoscaling', version: 'v2' },
  { alias: 'admissionregistrationv1', prefix: 'io.k8s.api.admissionregistration.v1.', group: 'admissionregistration.k8s.io', version: 'v1' },
  { alias: 'apiextensionsv1', prefix: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.', group: 'apiextensions.k8s.io', version: 'v1' },
  { alias: 'metav1', prefix: 'io.k8s.apimachinery.pkg.apis.meta.v1.', group: 'meta.k8s.io', version: 'v1' },
];

/** Definitions written as a TypeScript type rather than an interface (the JSON they serialise to). */
const SCALARS: Record<string, string> = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 'Time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 'MicroTime',
  // The runtime's int-or-string types (string | number): the API server takes 2 as well as "2" or "500m".
  'io.k8s.apimachinery.pkg.api.resource.Quantity': 'Quantity',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'IntOrString',
  'io.k8s.apimachinery.pkg.runtime.RawExtension': 'RawExtension',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': 'unknown',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': 'JSONSchemaProps | JSONSchemaProps[]',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': 'JSONSchemaProps | boolean',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': 'JSONSchemaProps | string[]',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': 'Record<string, unknown>',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Patch': 'unknown',
};
/** meta/v1 types the runtime already defines (client and helpers use them): re-exported, not generated. */
const FROM_RUNTIME: Record<string, string> = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': 'ObjectMeta',
  'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta': 'ListMeta',
  'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference': 'OwnerReference',
  'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry': 'ManagedFieldsEntry',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Condition': 'Condition',
};

export function openApiDir(kubernetesVersion: string): string {
  const info = JSON.parse(execFileSync('go', ['mod', 'download', '-json', `k8s.io/kubernetes@v${kubernetesVersion}`], { cwd: tmpdir(), encoding: 'utf8' })) as { Dir: string };
  return join(info.Dir, 'api', 'openapi-spec', 'v3');
}

interface Served { plural: string; namespaced: boolean }

function readOpenApi(dir: string): { defs: Map<string, Schema>; served: Map<string, Served> } {
  const defs = new Map<string, Schema>();
  const served = new Map<string, Served>();
  for (const file of readdirSync(dir).sort()) {
    const doc = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      components?: { schemas?: Record<string, Schema> };
      paths?: Record<string, Record<string, { 'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string } }>>;
    };
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) defs.set(name, schema);
    // The collection paths give each kind's plural and scope: /api/v1/namespaces/{namespace}/pods.
    for (const [path, ops] of Object.entries(doc.paths ?? {})) {
      const m = /^\/apis?\/(?:([^/]+)\/)?(v[0-9a-z]+)\/(namespaces\/\{namespace\}\/)?([a-z0-9]+)$/.exec(path);
      if (!m || (m[1] === undefined && !path.startsWith('/api/'))) continue;
      const gvk = Object.values(ops).map((op) => op?.['x-kubernetes-group-version-kind']).find((g) => g);
      if (!gvk || gvk.kind.endsWith('List')) continue;
      const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
      const namespaced = m[3] !== undefined || (served.get(key)?.namespaced ?? false);
      if (m[4] === 'namespaces' && !m[3] && gvk.kind !== 'Namespace') continue;
      served.set(key, { plural: m[4]!, namespaced });
    }
  }
  return { defs, served };
}

function doc(text: string | undefined, indent: string): string {
  if (!text) return '';
  // The first paragraph: enough for an editor's hover, without the release notes some fields carry.
  let first = text.split(/\n\s*\n/)[0]!.replace(/\s+/g, ' ').trim();
  if (first.length > 400) first = `${first.slice(0, first.lastIndexOf(' ', 400))} …`;
  return `${indent}/** ${first.replace(/\*\//g, '*\\/')} */\n`;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** A single-quoted string literal (the repository's style). */
const q = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export function generate(openApi: string, outDir: string, kubernetesVersion: string): string[] {
  const { defs, served } = readOpenApi(openApi);
  const groupOf = (name: string) => GROUPS.find((g) => name.startsWith(g.prefix));
  const files: string[] = [];
  for (const g of GROUPS) {
    const names = [...defs.keys()].filter((n) => n.startsWith(g.prefix) && !SCALARS[n] && !FROM_RUNTIME[n]).sort((a, b) => (a < b ? -1 : 1));
    const typeImports = new Map<string, Set<string>>(); // module → names
    const need = (mod: string, name: string) => {
      const set = typeImports.get(mod) ?? new Set<string>();
      set.add(name);
      typeImports.set(mod, set);
    };
    const local = (n: string) => n.slice(n.lastIndexOf('.') + 1);

    const ref = (target: string): string => {
      const scalar = SCALARS[target];
      if (scalar) {
        for (const t of ['Time', 'MicroTime', 'RawExtension', 'Quantity', 'IntOrString']) if (scalar === t) need('../api/types.js', t);
        return scalar;
      }
      const runtimeName = FROM_RUNTIME[target];
      if (runtimeName) { need('../api/types.js', runtimeName); return runtimeName; }
      const owner = groupOf(target);
      if (!owner) throw new Error(`${target} (referenced from ${g.alias}) is in no generated group; add its group to GROUPS`);
      if (owner !== g) need(`./${owner.alias}.js`, local(target));
      return local(target);
    };

    const typeOf = (s: Schema, indent: string): string => {
      const target = s.$ref ?? (s.allOf?.length === 1 ? s.allOf[0]!.$ref : undefined);
      if (target) return ref(target.replace('#/components/schemas/', ''));
      if (s.enum && s.enum.every((v) => typeof v === 'string')) return s.enum.map((v) => q(v as string)).join(' | ');
      switch (s.type) {
        case 'string': return 'string';
        case 'integer': case 'number': return 'number';
        case 'boolean': return 'boolean';
        case 'array': {
          const item = typeOf(s.items ?? {}, indent);
          return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
        }
        case 'object':
          if (s.properties) return objectBody(s, indent);
          if (s.additionalProperties && typeof s.additionalProperties === 'object') return `Record<string, ${typeOf(s.additionalProperties, indent)}>`;
          return 'Record<string, unknown>';
        default:
          return 'unknown';
      }
    };

    const objectBody = (s: Schema, indent: string): string => {
      const required = new Set(s.required ?? []);
      const inner = `${indent}  `;
      const lines = Object.keys(s.properties ?? {}).sort().map((p) => {
        const prop = s.properties![p]!;
        const key = IDENT.test(p) ? p : q(p);
        return `${doc(prop.description, inner)}${inner}${key}${required.has(p) ? '' : '?'}: ${typeOf(prop, inner)};`;
      });
      return `{\n${lines.join('\n')}\n${indent}}`;
    };

    const body: string[] = [];
    const kinds: string[] = [];
    for (const name of names) {
      const s = defs.get(name)!;
      const id = local(name);
      const gvk = s['x-kubernetes-group-version-kind']?.find((k) => k.group === g.group && k.version === g.version);
      const isObject = s.type === 'object' || s.properties !== undefined;
      if (isObject && s.properties) body.push(`${doc(s.description, '')}export interface ${id} ${objectBody(s, '')}\n`);
      else body.push(`${doc(s.description, '')}export type ${id} = ${typeOf(s, '')};\n`);
      const where = gvk && served.get(`${gvk.group}/${gvk.version}/${gvk.kind}`);
      if (where && g.group !== 'meta.k8s.io') kinds.push(`export const ${id} = gv.kind<${id}>(${q(gvk.kind)}, { plural: ${q(where.plural)}, namespaced: ${where.namespaced} });`);
    }
    if (g.alias === 'metav1') {
      for (const n of Object.values(FROM_RUNTIME)) need('../api/types.js', n);
    }
    const imports = [...typeImports].sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([mod, set]) => `import type { ${[...set].sort().join(', ')} } from '${mod}';`);
    const reexport = g.alias === 'metav1' ? [`export type { ${Object.values(FROM_RUNTIME).sort().join(', ')} } from '../api/types.js';`] : [];
    const header = [
      `// ${g.group === '' ? 'core' : g.group}/${g.version} types of Kubernetes v${kubernetesVersion}, generated from its OpenAPI by`,
      '// tools/kubernetes-types/generate.ts (npm run data:kubernetes-types). Do not edit.',
      ...(kinds.length ? ["import { groupVersion } from '../api/kind.js';"] : []),
      ...imports,
      ...reexport,
      '',
      ...(kinds.length ? [`const gv = groupVersion(${q(g.group)}, ${q(g.version)});`, '', ...kinds, ''] : []),
    ];
    const file = `${g.alias}.ts`;
    writeFileSync(join(outDir, file), `${header.join('\n')}\n${body.join('\n')}`);
    files.push(file);
  }
  // admission.k8s.io/v1 is not served, so it is in no OpenAPI document: the webhook runtime defines
  // AdmissionReview and friends; re-exported as types only (erased, the module loads nothing).
  writeFileSync(join(outDir, 'admissionv1.ts'), [
    '// admission.k8s.io/v1 types (AdmissionReview is not in the served OpenAPI; the webhook runtime defines it).',
    '// Generated by tools/kubernetes-types/generate.ts. Do not edit.',
    "export type { AdmissionRequest, AdmissionResponse, AdmissionReview, GroupVersionKind, GroupVersionResource, Operation, UserInfo } from '../webhook/types.js';",
    '',
  ].join('\n'));
  files.push('admissionv1.ts');
  const index = [
    '// Typed built-in kinds, one namespace per group-version as Go code names them: `appsv1.Deployment` is',
    '// both the object type and its ResourceKind. Generated by tools/kubernetes-types/generate.ts. Do not edit.',
    ...[...GROUPS.map((g) => g.alias), 'admissionv1'].sort().map((alias) => `export * as ${alias} from './${alias}.js';`),
    '',
  ].join('\n');
  writeFileSync(join(outDir, 'index.ts'), index);
  return [...files, 'index.ts'];
}


/**
 * data/kubernetes-builtins.json: every kind the release serves (from the same OpenAPI collection paths
 * as the typed kinds), one per line, sorted by group, version and kind.
 */
export function builtinsData(openApi: string, kubernetesVersion: string): string {
  const { served } = readOpenApi(openApi);
  const kinds: BuiltinKind[] = [...served].map(([key, where]) => {
    const [group, version, kind] = key.split('/') as [string, string, string];
    const typed = GROUPS.find((g) => g.group === group && g.version === version && g.alias !== 'metav1');
    return { group, version, kind, plural: where.plural, namespaced: where.namespaced, ...(typed ? { module: typed.alias } : {}) };
  });
  const order = (k: BuiltinKind) => `${k.group}\u0000${k.version}\u0000${k.kind}`;
  kinds.sort((a, b) => (order(a) < order(b) ? -1 : 1));
  return `{"kubernetes":"v${kubernetesVersion}","kinds":[\n${kinds.map((k) => JSON.stringify(k)).join(',\n')}\n]}\n`;
}

/** The release data/kubernetes-models.json targets, so both generators read the same OpenAPI. */
export const KUBERNETES_VERSION = /"kubernetes":"v([\d.]+)"/.exec(readFileSync(join(process.cwd(), 'data', 'kubernetes-models.json'), 'utf8').slice(0, 200))![1]!;

if (process.argv[1]?.endsWith('kubernetes-types/generate.js')) {
  const check = process.argv.indexOf('--out');
  const out = check > 0 ? process.argv[check + 1]! : join(process.cwd(), 'runtime', 'src', 'kubernetes');
  mkdirSync(out, { recursive: true });
  // Start from a clean folder, keeping the tests that live next to the generated files.
  for (const f of readdirSync(out)) if (!f.endsWith('.test.ts')) rmSync(join(out, f), { recursive: true, force: true });
  const written = generate(openApiDir(KUBERNETES_VERSION), out, KUBERNETES_VERSION);
  console.log(`wrote ${written.length} files into ${out}`);
  if (check < 0) {
    writeFileSync(join(process.cwd(), 'data', 'kubernetes-builtins.json'), builtinsData(openApiDir(KUBERNETES_VERSION), KUBERNETES_VERSION));
    console.log('wrote data/kubernetes-builtins.json');
  }
}
