// Regenerates data/kubernetes-models.json: for every @kubernetes/client-node model of the targeted
// Kubernetes release, the fully inlined schema controller-gen emits for a field of the equivalent Go type.
//
// Why controller-gen and not the OpenAPI document alone: the published OpenAPI (api/openapi-spec/v3 of
// k8s.io/kubernetes) re-flows every doc comment into paragraphs, types Quantity as `oneOf: [string, number]`
// and IntOrString as `format: int-or-string`, carries `default: {}` on every non-pointer struct and appends
// "Possible enum values" to descriptions; controller-gen reads the Go source instead (line breaks kept,
// int-or-string `anyOf` with a pattern, only marker defaults). Parity with controller-gen needs its bytes,
// so the OpenAPI is used for the model list and the client-node names, and controller-gen v0.23.0 (the one
// .ci/controller-gen.sh installs) is run once over k8s.io/api at the matching version for the schemas.
//
// Usage: npm run data:kubernetes   (needs go and the Go module proxy; deterministic output)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';

const KUBERNETES_VERSION = '1.36.3';
const STAGING_VERSION = `v0.${KUBERNETES_VERSION.slice(2)}`;
// Run from the repository root (npm scripts and vitest do); the compiled copy lives elsewhere.
const repoRoot = process.cwd();
/** Where the data ships. */
export const kubernetesDataFile = join(repoRoot, 'data', 'kubernetes-models.json');

type Schema = Record<string, unknown>;

interface GoModel {
  /** client-node's class name, e.g. V1Container, CoreV1Event. */
  modelName: string;
  goImport: string;
  goAlias: string;
  goType: string;
}

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
}

function pascal(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Reads every component schema of the release's OpenAPI v3 documents. */
function openApiDefinitions(): Map<string, Schema> {
  const info = JSON.parse(run('go', ['mod', 'download', '-json', `k8s.io/kubernetes@v${KUBERNETES_VERSION}`], tmpdir())) as { Dir: string };
  const dir = join(info.Dir, 'api', 'openapi-spec', 'v3');
  const defs = new Map<string, Schema>();
  for (const file of readdirSync(dir).sort()) {
    const doc = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { components?: { schemas?: Record<string, Schema> } };
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) defs.set(name, schema);
  }
  return defs;
}

/** `io.k8s.api.core.v1.Container` → group `core`, version `v1`, kind `Container`, and its Go package. */
function splitDefinition(name: string): { group: string; version: string; kind: string; goImport?: string } | undefined {
  let m = /^io\.k8s\.api\.([a-z0-9]+)\.(v[0-9a-z]+)\.([A-Za-z0-9]+)$/.exec(name);
  if (m) return { group: m[1]!, version: m[2]!, kind: m[3]!, goImport: `k8s.io/api/${m[1]}/${m[2]}` };
  m = /^io\.k8s\.apimachinery\.pkg\.apis\.meta\.(v1)\.([A-Za-z0-9]+)$/.exec(name);
  if (m) return { group: 'meta', version: m[1]!, kind: m[2]!, goImport: 'k8s.io/apimachinery/pkg/apis/meta/v1' };
  // Named only to detect client-node's name clashes (ServiceReference, ...); their Go modules are not loaded.
  m = /^io\.k8s\.[a-z-]+\.pkg\.apis\.([a-z0-9]+)\.(v[0-9a-z]+)\.([A-Za-z0-9]+)$/.exec(name);
  if (m) return { group: m[1]!, version: m[2]!, kind: m[3]! };
  return undefined;
}

/**
 * client-node names a model `<Version><Kind>` (V1Container), and `<Group><Version><Kind>` for every
 * definition whose version and kind clash with another group's (CoreV1Event / EventsV1Event).
 */
function goModels(defs: Map<string, Schema>): GoModel[] {
  const parts = [...defs.keys()].map((name) => ({ name, ...splitDefinition(name) })).filter((p) => p.kind !== undefined);
  const clashes = new Map<string, number>();
  for (const p of parts) clashes.set(`${p.version}.${p.kind}`, (clashes.get(`${p.version}.${p.kind}`) ?? 0) + 1);
  const models: GoModel[] = [];
  for (const p of parts) {
    const schema = defs.get(p.name)!;
    // Only struct types are client-node models; Time, MicroTime, FieldsV1 and Patch are plain values there.
    if (!p.goImport || schema.properties === undefined) continue;
    const clash = (clashes.get(`${p.version}.${p.kind}`) ?? 0) > 1;
    models.push({
      modelName: `${clash ? pascal(p.group!) : ''}${pascal(p.version!)}${p.kind}`,
      goImport: p.goImport,
      goAlias: `${p.group}${p.version}`.replace(/[^a-z0-9]/g, ''),
      goType: p.kind!,
    });
  }
  return models.sort((a, b) => (a.modelName < b.modelName ? -1 : a.modelName > b.modelName ? 1 : 0));
}

/** One kind per Go package of k8s.io/api, each field of one model's type: controller-gen inlines them all. */
function writeGoModule(dir: string, models: GoModel[]): Map<string, GoModel[]> {
  const byImport = new Map<string, GoModel[]>();
  for (const m of models) byImport.set(m.goImport, [...(byImport.get(m.goImport) ?? []), m]);
  writeFileSync(
    join(dir, 'go.mod'),
    `module opgen.dev/kubernetes-models\n\ngo 1.25\n\nrequire (\n\tk8s.io/api ${STAGING_VERSION}\n\tk8s.io/apimachinery ${STAGING_VERSION}\n)\n`,
  );
  const pkgDir = join(dir, 'models');
  mkdirSync(pkgDir);
  const imports = [...byImport.keys()].sort();
  const alias = (imp: string): string => byImport.get(imp)![0]!.goAlias;
  let src = '// +groupName=models.opgen.dev\n// +versionName=v1\npackage models\n\nimport (\n';
  for (const imp of imports) src += `\t${alias(imp)} "${imp}"\n`;
  if (!imports.includes('k8s.io/apimachinery/pkg/apis/meta/v1')) src += '\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"\n';
  src += ')\n';
  const metaAlias = imports.includes('k8s.io/apimachinery/pkg/apis/meta/v1') ? alias('k8s.io/apimachinery/pkg/apis/meta/v1') : 'metav1';
  imports.forEach((imp, i) => {
    src += `\ntype Spec${i} struct {\n`;
    for (const m of byImport.get(imp)!) src += `\t${m.modelName} ${m.goAlias}.${m.goType} \`json:"${m.modelName}"\`\n`;
    src += `}\n\ntype Models${i} struct {\n\t${metaAlias}.TypeMeta \`json:",inline"\`\n\t${metaAlias}.ObjectMeta \`json:"metadata"\`\n\tSpec Spec${i} \`json:"spec"\`\n}\n`;
  });
  writeFileSync(join(pkgDir, 'models.go'), src);
  return byImport;
}

/** Content-addressed table: every schema node once, child schemas replaced by their index. */
class SchemaTable {
  readonly nodes: string[] = [];
  private readonly index = new Map<string, number>();

  add(schema: Schema): number {
    const node: Schema = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties') {
        node[key] = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, this.add(v)]));
      } else if (key === 'items' || (key === 'additionalProperties' && typeof value === 'object')) {
        node[key] = this.add(value as Schema);
      } else if (key === 'anyOf' || key === 'allOf' || key === 'oneOf') {
        node[key] = (value as Schema[]).map((v) => this.add(v));
      } else {
        node[key] = value;
      }
    }
    const text = JSON.stringify(node);
    let i = this.index.get(text);
    if (i === undefined) {
      i = this.nodes.length;
      this.nodes.push(text);
      this.index.set(text, i);
    }
    return i;
  }
}

/** Writes the data file to `outFile` (by default the shipped one); test/parity checks it is current. */
export function generateKubernetesData(outFile = kubernetesDataFile): void {
  const controllerGen = process.env.OPGEN_CONTROLLER_GEN ?? run('bash', [join(repoRoot, '.ci', 'controller-gen.sh')], repoRoot).trim();
  const models = goModels(openApiDefinitions());
  const work = mkdtempSync(join(tmpdir(), 'opgen-kubernetes-models-'));
  try {
    const byImport = writeGoModule(work, models);
    process.stderr.write(`kubernetes-data: ${models.length} models from ${byImport.size} Go packages; running controller-gen\n`);
    run('go', ['mod', 'tidy'], work);
    run(controllerGen, ['crd', 'paths=./...', 'output:crd:dir=out'], work);
    const table = new SchemaTable();
    const index: Record<string, number> = {};
    const schemas = new Map<string, Schema>();
    for (const file of readdirSync(join(work, 'out')).sort()) {
      const crd = parse(readFileSync(join(work, 'out', file), 'utf8'), { maxAliasCount: -1 }) as {
        spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, Schema> } } } } }[] };
      };
      for (const [name, schema] of Object.entries(crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties)) schemas.set(name, schema);
    }
    for (const m of models) {
      const schema = schemas.get(m.modelName);
      if (!schema) throw new Error(`controller-gen emitted no schema for ${m.modelName}`);
      index[m.modelName] = table.add(schema);
    }
    const body =
      `{"kubernetes":"v${KUBERNETES_VERSION}","controllerGen":"${run(controllerGen, ['--version'], work).trim().replace(/^Version: /, '')}",\n` +
      `"models":${JSON.stringify(index)},\n"schemas":[\n${table.nodes.join(',\n')}\n]}\n`;
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, body);
    process.stderr.write(`kubernetes-data: wrote ${outFile} (${models.length} models, ${table.nodes.length} schema nodes, ${body.length} bytes)\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) generateKubernetesData();
