// What `opgen create api --helm-chart` derives from a chart: the CRD (spec from values.schema.json, else
// open), the RBAC rules of the kinds the chart creates, and the watches entry (GVK → chart, dependent kinds).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { JSONSchemaProps } from '../common/json-schema.js';
import { pluralize } from '../naming/pluralize.js';
import { clusterScopedResource } from '../common/kubernetes-builtins.js';
import { valuesSchemaToCrd, type SchemaDiagnostic } from './values-schema.js';

export interface Gvk { group: string; version: string; kind: string; /** Default: pluralize(kind). */ plural?: string }

/** Status written by @opgen/runtime/helm's reconciler (operator-sdk's conditions + release digest). */
const statusSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    conditions: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      items: {
        type: 'object',
        required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
        properties: {
          lastTransitionTime: { type: 'string', format: 'date-time' },
          message: { type: 'string', maxLength: 32768 },
          observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
          reason: { type: 'string', maxLength: 1024 },
          status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
          type: { type: 'string', maxLength: 316 },
        },
      },
    },
    deployedRelease: {
      type: 'object',
      properties: { name: { type: 'string' }, revision: { type: 'integer' }, manifestDigest: { type: 'string' } },
    },
    observedDigest: { type: 'string' },
  },
};

/** The CRD of a chart's kind: namespaced, status subresource, spec typed from values.schema.json when the chart has one. */
export function chartCrd(gvk: Gvk, chartDir: string): { crd: Record<string, unknown>; diagnostics: SchemaDiagnostic[] } {
  const schemaFile = join(chartDir, 'values.schema.json');
  let spec: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, description: 'The chart\'s values (no values.schema.json: not validated until Helm renders them).' };
  const diagnostics: SchemaDiagnostic[] = [];
  if (existsSync(schemaFile)) {
    const converted = valuesSchemaToCrd(readFileSync(schemaFile, 'utf8'), schemaFile);
    diagnostics.push(...converted.diagnostics);
    if (!converted.schema) return { crd: {}, diagnostics };
    spec = { description: 'The chart\'s values, typed from its values.schema.json.', ...converted.schema };
  }
  const plural = gvk.plural ?? pluralize(gvk.kind);
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${gvk.group}` },
    spec: {
      group: gvk.group,
      names: { kind: gvk.kind, listKind: `${gvk.kind}List`, plural, singular: gvk.kind.toLowerCase() },
      scope: 'Namespaced',
      versions: [{
        name: gvk.version,
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec, status: statusSchema } } },
      }],
    },
  };
  return { crd, diagnostics };
}

export interface RenderedKind {
  apiVersion: string;
  kind: string;
  /** Where it comes from: `templates/x.yaml` (rendered with the default values) or `templates/x.yaml (when enabled)`. */
  sources: string[];
}

/**
 * The kinds a chart creates: what `helm template` renders with the default values for Kubernetes
 * `kubeVersion` (a chart's `kubeVersion:` constraint is checked against it), plus the apiVersion/kind
 * pairs written in templates that the defaults leave out (an Ingress behind `ingress.enabled`), so
 * enabling one later does not fail on RBAC. Test hooks (templates/tests/, `helm test`) are left out:
 * an install never creates them.
 */
export function renderedKinds(chartDir: string, helmBinary: string, kubeVersion?: string): RenderedKind[] {
  const out = execFileSync(helmBinary, ['template', 'release', chartDir, '--skip-tests', ...(kubeVersion ? ['--kube-version', kubeVersion] : [])], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const kinds = new Map<string, RenderedKind>();
  const add = (apiVersion: string, kind: string, source: string) => {
    const key = `${apiVersion} ${kind}`;
    const k = kinds.get(key) ?? { apiVersion, kind, sources: [] };
    if (!k.sources.includes(source)) k.sources.push(source);
    kinds.set(key, k);
  };
  // helm template heads each object with `# Source: <chart>/templates/<file>`.
  for (const chunk of out.split(/^---\s*$/m)) {
    const source = /^# Source: [^/]+\/(.+)$/m.exec(chunk)?.[1]?.trim() ?? 'templates';
    for (const doc of parseAllDocuments(chunk)) {
      const obj = doc.toJS() as { apiVersion?: string; kind?: string } | null;
      if (obj?.apiVersion && obj.kind) add(obj.apiVersion, obj.kind, source);
    }
  }
  const templates = join(chartDir, 'templates');
  for (const file of existsSync(templates) ? walk(templates) : []) {
    if (!/\.(ya?ml|tpl)$/.test(file) || isTestHook(relative(templates, file))) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^apiVersion:\s*(\S+)\s*\n(?:.*\n)*?kind:\s*(\S+)\s*$/gm)) {
      const [apiVersion, kind] = [m[1]!, m[2]!];
      if (apiVersion.includes('{{') || kind.includes('{{')) continue;
      const rel = relative(chartDir, file);
      if (![...kinds.values()].some((k) => k.apiVersion === apiVersion && k.kind === kind)) add(apiVersion, kind, `${rel} (when enabled)`);
    }
  }
  return [...kinds.values()].sort((a, b) => `${a.apiVersion} ${a.kind}`.localeCompare(`${b.apiVersion} ${b.kind}`));
}

export interface RbacRule { apiGroups: string[]; resources: string[]; verbs: string[]; comment: string }

/** Helm creates, reads, patches and deletes every object of a release. */
const releaseVerbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** The operator's rules: its CR kind, Helm's release Secrets, events, and each kind the chart creates. */
export function chartRbacRules(gvk: Gvk, kinds: readonly RenderedKind[]): RbacRule[] {
  const plural = gvk.plural ?? pluralize(gvk.kind);
  const rules: RbacRule[] = [
    { apiGroups: [gvk.group], resources: [plural], verbs: ['get', 'list', 'patch', 'update', 'watch'], comment: `${gvk.kind}: the releases to reconcile` },
    { apiGroups: [gvk.group], resources: [`${plural}/status`], verbs: ['get', 'patch', 'update'], comment: `${gvk.kind} status: conditions and the deployed release` },
    { apiGroups: [gvk.group], resources: [`${plural}/finalizers`], verbs: ['update'], comment: `${gvk.kind} finalizer: uninstall on delete` },
    { apiGroups: [''], resources: ['secrets'], verbs: releaseVerbs, comment: 'Helm release storage (Secrets sh.helm.release.v1.<name>.v<N>)' },
  ];
  for (const k of kinds) {
    const group = k.apiVersion.includes('/') ? k.apiVersion.split('/')[0]! : '';
    const resource = pluralize(k.kind);
    if (group === '' && resource === 'secrets') {
      rules[3]!.comment += `; also ${k.sources.join(', ')}`;
      continue;
    }
    rules.push({ apiGroups: [group], resources: [resource], verbs: releaseVerbs, comment: `${k.kind} (${k.apiVersion}) from ${k.sources.join(', ')}` });
  }
  return rules;
}

/** operator-sdk's watches.yaml entry: which chart serves which GVK, and the kinds to watch for drift. */
export function watchesEntry(gvk: Gvk, chartPath: string, kinds: readonly RenderedKind[]): Record<string, unknown> {
  return { group: gvk.group, version: gvk.version, kind: gvk.kind, chart: chartPath, dependentKinds: kinds.map((k) => ({ apiVersion: k.apiVersion, kind: k.kind, plural: pluralize(k.kind), namespaced: !clusterScopedResource(k.apiVersion.includes('/') ? k.apiVersion.split('/')[0]! : '', pluralize(k.kind)) })) };
}

/** Helm's convention for `helm test` hooks: templates/tests/ (including a subchart's). */
function isTestHook(templatePath: string): boolean {
  return templatePath.split(/[\\/]/).includes('tests');
}

function walk(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
}
