import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../common/json-schema.js';
import { kubernetesModelNames, kubernetesModelSchema, kubernetesModelsVersion } from './index.js';

/** Every schema node with its path, depth first. */
function* walk(schema: JSONSchemaProps, path = ''): Generator<[string, JSONSchemaProps]> {
  yield [path, schema];
  for (const [k, v] of Object.entries(schema.properties ?? {})) yield* walk(v, `${path}.${k}`);
  if (schema.items) yield* walk(schema.items, `${path}[]`);
  if (typeof schema.additionalProperties === 'object') yield* walk(schema.additionalProperties, `${path}{}`);
}

describe('kubernetesModelSchema', () => {
  it('describes the targeted Kubernetes release', () => {
    expect(kubernetesModelsVersion()).toBe('v1.36.3');
  });

  it('returns the issue-listed client-node models, fully inlined and structural', () => {
    for (const name of [
      'V1PodTemplateSpec', 'V1ResourceRequirements', 'V1Container', 'V1EnvVar', 'V1Toleration',
      'V1Affinity', 'V1LabelSelector', 'V1LocalObjectReference', 'V1SecretKeySelector',
    ]) {
      const schema = kubernetesModelSchema(name);
      expect(schema, name).toBeDefined();
      expect(schema!.type, name).toBe('object');
      expect(JSON.stringify(schema), name).not.toContain('$ref');
      for (const [path, node] of walk(schema!)) {
        const typed = node.type !== undefined || node['x-kubernetes-int-or-string'] || node['x-kubernetes-preserve-unknown-fields'];
        expect(typed, `${name}${path} has no type`).toBeTruthy();
      }
    }
  });

  it('gives every model a structural schema (a type, or int-or-string, or preserved unknown fields, on every node)', () => {
    const names = kubernetesModelNames();
    expect(names.length).toBeGreaterThan(700);
    const untyped: string[] = [];
    for (const name of names) {
      for (const [path, node] of walk(kubernetesModelSchema(name)!)) {
        if (node.type === undefined && !node['x-kubernetes-int-or-string'] && !node['x-kubernetes-preserve-unknown-fields']) untyped.push(`${name}${path}`);
      }
    }
    expect(untyped).toEqual([]);
  });

  it('keeps controller-gen descriptions (Go line breaks) and its int-or-string form for Quantity', () => {
    const resources = kubernetesModelSchema('V1ResourceRequirements')!;
    expect(resources.description).toBe('ResourceRequirements describes the compute resource requirements.');
    expect(resources.properties!.limits!.description).toBe(
      'Limits describes the maximum amount of compute resources allowed.\nMore info: https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/',
    );
    const quantity = resources.properties!.limits!.additionalProperties as JSONSchemaProps;
    expect(quantity.anyOf).toEqual([{ type: 'integer' }, { type: 'string' }]);
    expect(quantity['x-kubernetes-int-or-string']).toBe(true);
    expect(quantity.pattern).toMatch(/^\^\(\\\+\|-\)\?/);
    expect(resources.properties!.claims!['x-kubernetes-list-type']).toBe('map');
    expect(resources.properties!.claims!['x-kubernetes-list-map-keys']).toEqual(['name']);
  });

  it('gives embedded ObjectMeta as controller-gen does: type object with the field description', () => {
    const template = kubernetesModelSchema('V1PodTemplateSpec')!;
    expect(Object.keys(template.properties!)).toEqual(['metadata', 'spec']);
    expect(template.properties!.metadata!.type).toBe('object');
    expect(template.properties!.metadata!.properties).toBeUndefined();
    expect(template.properties!.metadata!.description).toMatch(/^Standard object's metadata\./);
    const port = template.properties!.spec!.properties!.containers!.items!.properties!.ports!.items!.properties!.containerPort!;
    expect(port).toMatchObject({ type: 'integer', format: 'int32' });
  });

  it('names clashing kinds with their group, as client-node does', () => {
    expect(kubernetesModelSchema('CoreV1Event')?.properties?.involvedObject).toBeDefined();
    expect(kubernetesModelSchema('EventsV1Event')?.properties?.regarding).toBeDefined();
    expect(kubernetesModelSchema('V1Event')).toBeUndefined();
    expect(kubernetesModelNames()).toContain('V1Deployment');
  });

  it('returns undefined for names that are not models, including Object.prototype keys', () => {
    for (const name of ['V1Nonsense', 'Container', 'toString', '__proto__', 'constructor']) {
      expect(kubernetesModelSchema(name), name).toBeUndefined();
    }
  });

  it('returns a fresh object each call', () => {
    const a = kubernetesModelSchema('V1Toleration')!;
    a.properties!.key!.description = 'changed';
    a.required = ['x'];
    const b = kubernetesModelSchema('V1Toleration')!;
    expect(b.properties!.key!.description).not.toBe('changed');
    expect(b.required).toBeUndefined();
  });
});
