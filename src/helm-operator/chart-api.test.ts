// values.schema.json → CRD spec schema, the kinds a chart creates → RBAC rules, with the real helm
// binary rendering the test chart (the same chart test/helm-operator serves on a simulated cluster).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ciTool } from '../testdata/ci-tools.js';
import { chartCrd, chartRbacRules, renderedKinds, watchesEntry } from './chart-api.js';
import { valuesSchemaToCrd } from './values-schema.js';

const chart = fileURLToPath(new URL('../../test/helm-operator/testdata/webapp', import.meta.url));
const gvk = { group: 'apps.example.com', version: 'v1alpha1', kind: 'WebApp' };
const temps: string[] = [];
afterAll(() => { for (const t of temps) rmSync(t, { recursive: true, force: true }); });

const convert = (schema: unknown) => valuesSchemaToCrd(JSON.stringify(schema, null, 2), 'values.schema.json');

describe('values.schema.json → CRD spec schema', () => {
  it('types the test chart\'s spec: required, enums, ranges, maps of strings; objects that allow more keys keep them', () => {
    const { crd, diagnostics } = chartCrd(gvk, chart);
    expect(diagnostics).toEqual([]);
    const spec = (crd as any).spec.versions[0].schema.openAPIV3Schema.properties.spec;
    expect(spec.type).toBe('object');
    expect(spec.properties.replicaCount).toEqual({ type: 'integer', minimum: 0, description: 'Pods of the Deployment.' });
    expect(spec.properties.service.required).toEqual(['port']);
    expect(spec.properties.service.properties.port).toEqual({ type: 'integer', minimum: 1, maximum: 65535 });
    expect(spec.properties.image.properties.pullPolicy.enum).toEqual(['Always', 'IfNotPresent', 'Never']);
    expect(spec.properties.config.additionalProperties).toEqual({ type: 'string' });
    expect(spec.properties.config['x-kubernetes-preserve-unknown-fields']).toBeUndefined();
    // JSON Schema allows keys an object's properties do not name; the CRD must not prune what Helm accepts.
    expect(spec.properties.image['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect((crd as any).metadata.name).toBe('webapps.apps.example.com');
    expect((crd as any).spec.versions[0].subresources).toEqual({ status: {} });
  });

  it('a chart without values.schema.json gets an open spec, as operator-sdk\'s', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opgen-chart-'));
    temps.push(dir);
    cpSync(chart, dir, { recursive: true, filter: (src) => !src.endsWith('values.schema.json') });
    const { crd, diagnostics } = chartCrd(gvk, dir);
    expect(diagnostics).toEqual([]);
    const spec = (crd as any).spec.versions[0].schema.openAPIV3Schema.properties.spec;
    expect(spec).toMatchObject({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(spec.properties).toBeUndefined();
  });

  it('translates draft-6+ keywords: numeric exclusive bounds, const, nullable and int-or-string type lists, local $ref', () => {
    const { schema, diagnostics } = convert({
      type: 'object',
      additionalProperties: false,
      definitions: { port: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 65536 } },
      properties: {
        port: { $ref: '#/definitions/port' },
        mode: { const: 'fast' },
        tag: { type: ['string', 'null'] },
        maxSurge: { type: ['integer', 'string'] },
      },
    });
    expect(diagnostics).toEqual([]);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        port: { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 65536, exclusiveMaximum: true },
        mode: { enum: ['fast'], 'x-kubernetes-preserve-unknown-fields': true },
        tag: { type: 'string', nullable: true },
        maxSurge: { 'x-kubernetes-int-or-string': true },
      },
    });
  });

  it('what a CRD cannot say is left open and reported with file:line:column; Helm still checks it', () => {
    const text = '{\n  "type": "object",\n  "properties": {\n    "either": { "anyOf": [{ "type": "string" }, { "type": "integer" }] },\n    "tree": { "$ref": "#/$defs/node" },\n    "ids": { "type": "array", "uniqueItems": true, "items": { "type": "string" } }\n  },\n  "$defs": { "node": { "type": "object", "properties": { "child": { "$ref": "#/$defs/node" } } } }\n}\n';
    const { schema, diagnostics } = valuesSchemaToCrd(text, 'charts/x/values.schema.json');
    expect(diagnostics.map((d) => `${d.severity} ${d.text}`)).toEqual([
      'warning charts/x/values.schema.json:4:17: anyOf is not carried into the CRD schema; Helm still checks it at install',
      'warning charts/x/values.schema.json:8:69: $ref #/$defs/node is recursive, which a CRD schema cannot express; the field is left open',
      'warning charts/x/values.schema.json:6:31: uniqueItems: true is refused in CRD schemas; dropped (Helm still checks it)',
    ]);
    expect(schema!.properties!.either).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    expect(schema!.properties!.tree!.properties!.child).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    expect(schema!.properties!.ids).toEqual({ type: 'array', items: { type: 'string' } });
  });

  it('refuses, with a position and a fix: not JSON, a schema that is not an object, a default the API server would refuse', () => {
    expect(valuesSchemaToCrd('{\n  "type": "object",\n  "properties": {\n', 'v.json').diagnostics[0]!.text).toMatch(/^v\.json:4:1: not valid JSON: .*; fix the file/);
    expect(convert({ type: 'string' }).diagnostics.map((d) => d.text)).toEqual(['values.schema.json:2:3: the values schema must describe an object (the CR\'s spec), not string; set "type": "object"']);
    const refused = convert({ type: 'object', properties: { port: { type: 'integer', minimum: 1, default: 0 } } });
    expect(refused.schema).toBeUndefined();
    expect(refused.diagnostics[0]!.text).toMatch(/^values\.schema\.json:4:5: the API server would refuse spec\.port: the default does not validate against the field's own schema/);
  });
});

describe('RBAC and watches from the chart\'s rendered resources', () => {
  const helm = ciTool('OPGEN_HELM', 'helm.sh');

  it('lists what helm template renders with the defaults, plus the kinds behind a value (the Ingress)', () => {
    const kinds = renderedKinds(chart, helm);
    expect(kinds.map((k) => `${k.apiVersion} ${k.kind}: ${k.sources.join(', ')}`)).toEqual([
      'apps/v1 Deployment: templates/deployment.yaml',
      'networking.k8s.io/v1 Ingress: templates/ingress.yaml (when enabled)',
      'v1 ConfigMap: templates/configmap.yaml',
      'v1 Service: templates/service.yaml',
      'v1 ServiceAccount: templates/serviceaccount.yaml',
    ]);
  });

  it('grants each kind Helm\'s verbs, never *, with a comment naming the template', () => {
    const rules = chartRbacRules(gvk, renderedKinds(chart, helm));
    expect(rules.flatMap((r) => [...r.resources, ...r.verbs, ...r.apiGroups])).not.toContain('*');
    expect(rules.map((r) => `${r.apiGroups[0]}/${r.resources[0]}: ${r.verbs.join(',')} # ${r.comment}`)).toEqual([
      'apps.example.com/webapps: get,list,patch,update,watch # WebApp: the releases to reconcile',
      'apps.example.com/webapps/status: get,patch,update # WebApp status: conditions and the deployed release',
      'apps.example.com/webapps/finalizers: update # WebApp finalizer: uninstall on delete',
      '/secrets: create,delete,get,list,patch,update,watch # Helm release storage (Secrets sh.helm.release.v1.<name>.v<N>)',
      'apps/deployments: create,delete,get,list,patch,update,watch # Deployment (apps/v1) from templates/deployment.yaml',
      'networking.k8s.io/ingresses: create,delete,get,list,patch,update,watch # Ingress (networking.k8s.io/v1) from templates/ingress.yaml (when enabled)',
      '/configmaps: create,delete,get,list,patch,update,watch # ConfigMap (v1) from templates/configmap.yaml',
      '/services: create,delete,get,list,patch,update,watch # Service (v1) from templates/service.yaml',
      '/serviceaccounts: create,delete,get,list,patch,update,watch # ServiceAccount (v1) from templates/serviceaccount.yaml',
    ]);
  });

  it('records the GVK → chart mapping with the dependent kinds to watch', () => {
    expect(watchesEntry(gvk, 'helm-charts/webapp', renderedKinds(chart, helm))).toMatchObject({
      group: 'apps.example.com', version: 'v1alpha1', kind: 'WebApp', chart: 'helm-charts/webapp',
      dependentKinds: expect.arrayContaining([{ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', plural: 'ingresses', namespaced: true }]),
    });
  });
});
