// `opgen generate` end to end on fixture projects: what a user sees on disk and on the terminal.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OpgenError, OpgenErrors } from '../diag/diagnostic.js';
import { generateCommand, markersCommand, type GenerateOptions } from './command.js';
import { snapshot } from '../testdata/files.js';

const fixtures = join(import.meta.dirname, '../../test/fixtures');
const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function copyFixture(path: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'opgen-gen-'));
  temps.push(dir);
  cpSync(join(fixtures, path), dir, { recursive: true });
  return dir;
}

async function run(cwd: string, o: Partial<GenerateOptions> = {}): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await generateCommand({ cwd, targets: [], check: false, dryRun: false, ...o }, (l) => lines.push(l));
  return { code, lines };
}

type Schema = { properties: Record<string, Schema>; required?: string[]; [k: string]: unknown };

describe('opgen generate on a project', () => {
  it('warns when the kind\'s runtime declaration disagrees with its CRD\'s scope or plural (a marker changed alone)', async () => {
    const dir = copyFixture('generate/memcached');
    const types = join(dir, 'src/api/v1alpha1/memcached-types.ts');
    const declaration = "export const Memcached = groupVersion('cache.example.com', 'v1alpha1').kind<Memcached>('Memcached', { plural: 'memcacheds', namespaced: true });\n";
    writeFileSync(types, readFileSync(types, 'utf8') + declaration);
    const agreeing = await run(dir);
    expect(agreeing.code).toBe(0);
    expect(agreeing.lines.filter((l) => l.startsWith('warning'))).toEqual([]);

    // What a kubebuilder user does: make the kind cluster-scoped and rename its resource in the marker only.
    const text = readFileSync(types, 'utf8');
    writeFileSync(types, text.replace('// +kubebuilder:resource:shortName=mc;mcd,categories=all', '// +kubebuilder:resource:shortName=mc;mcd,categories=all,scope=Cluster,path=caches'));
    const line = text.split('\n').length - 1;
    const at = (prop: string) => `src/api/v1alpha1/memcached-types.ts:${line}:${declaration.indexOf(prop) + 1}`;
    const r = await run(dir);
    expect(r.code).toBe(0);
    expect(r.lines.filter((l) => l.startsWith('warning'))).toEqual([
      `warning: ${at('plural')}: Memcached is declared with plural 'memcacheds', but its CRD serves 'caches' (+kubebuilder:resource:path): the client would ask for a resource that does not exist (set plural: 'caches', or change the marker)`,
      `warning: ${at('namespaced')}: Memcached is declared namespaced: true, but its CRD is cluster-scoped (+kubebuilder:resource:scope=Cluster): the client would send requests the API server does not serve (set namespaced: false, or change the marker)`,
    ]);

    writeFileSync(types, readFileSync(types, 'utf8').replace("{ plural: 'memcacheds', namespaced: true }", "{ plural: 'caches', namespaced: false }"));
    expect((await run(dir)).lines.filter((l) => l.startsWith('warning'))).toEqual([]);
  });

  it('writes the CRD, role and webhook manifests, then finds nothing to do on a second run', async () => {
    const dir = copyFixture('generate/memcached');
    const first = await run(dir);
    expect(first).toEqual({
      code: 0,
      lines: ['CREATE config/crd/bases/cache.example.com_memcacheds.yaml', 'CREATE config/rbac/role.yaml', 'CREATE config/webhook/manifests.yaml'],
    });
    const before = snapshot(join(dir, 'config'));
    expect(await run(dir)).toEqual({ code: 0, lines: [] });
    expect(snapshot(join(dir, 'config'))).toEqual(before);

    const crd = parse(before['crd/bases/cache.example.com_memcacheds.yaml']!);
    expect(crd.metadata.name).toBe('memcacheds.cache.example.com');
    expect(crd.spec.names).toEqual({ categories: ['all'], kind: 'Memcached', listKind: 'MemcachedList', plural: 'memcacheds', shortNames: ['mc', 'mcd'], singular: 'memcached' });
    const [version] = crd.spec.versions;
    expect(version.subresources).toEqual({ scale: { labelSelectorPath: '.status.selector', specReplicasPath: '.spec.size', statusReplicasPath: '.status.replicas' }, status: {} });
    const root: Schema = version.schema.openAPIV3Schema;
    expect(root.description).toBe('Memcached is the Schema for the memcacheds API');
    expect(root.properties.metadata).toEqual({ type: 'object' });
    const spec = root.properties.spec!;
    expect(spec.required).toEqual(['image']);
    // JSDoc text without its marker and TODO lines; markers applied; int32 from @opgen/runtime.
    expect(spec.properties.size).toEqual({ description: 'Size is the size of the memcached deployment.\nIt has two lines.', format: 'int32', maximum: 10, minimum: 0, type: 'integer' });
    expect(spec.properties.mode).toEqual({ description: 'Mode picks a mode.', enum: ['fast', 'safe'], type: 'string' });
    expect(spec.properties.primary!.description).toBe('Endpoint is a host and port.');
    expect(spec.properties.note).toEqual({ nullable: true, type: 'string' });
    const conditions = root.properties.status!.properties.conditions!;
    expect(conditions['x-kubernetes-list-type']).toBe('map');
    expect(conditions['x-kubernetes-list-map-keys']).toEqual(['type']);

    const role = parse(before['rbac/role.yaml']!);
    expect(role.kind).toBe('ClusterRole');
    expect(role.metadata.name).toBe('manager-role');
    expect(role.rules[0]).toEqual({ apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] });

    const hooks = before['webhook/manifests.yaml']!.split(/^---\n/m).filter(Boolean).map((d) => parse(d));
    expect(hooks.map((h) => h.kind)).toEqual(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);
    expect(hooks[0].webhooks[0].clientConfig.service).toEqual({ name: 'webhook-service', namespace: 'system', path: '/mutate-cache-example-com-v1alpha1-memcached' });
  });

  it('--check writes nothing and lists missing and stale files with exit 1', async () => {
    const dir = copyFixture('generate/memcached');
    expect(await run(dir, { check: true })).toEqual({
      code: 1,
      lines: [
        'missing: config/crd/bases/cache.example.com_memcacheds.yaml (run opgen generate)',
        'missing: config/rbac/role.yaml (run opgen generate)',
        'missing: config/webhook/manifests.yaml (run opgen generate)',
        '3 generated files are out of date: run opgen generate',
      ],
    });
    expect(existsSync(join(dir, 'config'))).toBe(false);
    await run(dir);
    expect(await run(dir, { check: true })).toEqual({ code: 0, lines: [] });
    writeFileSync(join(dir, 'config/rbac/role.yaml'), 'edited\n');
    expect(await run(dir, { check: true })).toEqual({ code: 1, lines: ['stale: config/rbac/role.yaml (run opgen generate)', '1 generated file is out of date: run opgen generate'] });
    expect(readFileSync(join(dir, 'config/rbac/role.yaml'), 'utf8')).toBe('edited\n');
  });

  it('--check trusts the record of the last run only while the sources are unchanged', async () => {
    const dir = copyFixture('generate/memcached');
    mkdirSync(join(dir, 'node_modules'));
    await run(dir);
    expect(existsSync(join(dir, 'node_modules/.cache/opgen/generate.json'))).toBe(true);
    expect(await run(dir, { check: true })).toEqual({ code: 0, lines: [] });
    writeFileSync(join(dir, 'config/webhook/manifests.yaml'), 'edited\n');
    rmSync(join(dir, 'config/rbac/role.yaml'));
    expect(await run(dir, { check: true })).toEqual({
      code: 1,
      lines: ['missing: config/rbac/role.yaml (run opgen generate)', 'stale: config/webhook/manifests.yaml (run opgen generate)', '2 generated files are out of date: run opgen generate'],
    });
    // A changed source means the record proves nothing: the full run sees the new field.
    await run(dir);
    const types = join(dir, 'src/api/v1alpha1/memcached-types.ts');
    writeFileSync(types, readFileSync(types, 'utf8').replace('  enabled?: boolean;', '  enabled?: boolean;\n  added?: string;'));
    expect(await run(dir, { check: true })).toEqual({
      code: 1,
      lines: ['stale: config/crd/bases/cache.example.com_memcacheds.yaml (run opgen generate)', '1 generated file is out of date: run opgen generate'],
    });
  });

  it('--dry-run names the files and writes none; one target writes only its own file', async () => {
    const dir = copyFixture('generate/memcached');
    expect(await run(dir, { dryRun: true, targets: ['rbac'] })).toEqual({ code: 0, lines: ['CREATE config/rbac/role.yaml'] });
    expect(existsSync(join(dir, 'config'))).toBe(false);
    expect(await run(dir, { targets: ['webhook'] })).toEqual({ code: 0, lines: ['CREATE config/webhook/manifests.yaml'] });
  });

  it('merges the versions of a kind: sorted by name, one storage version, per-version deprecation', async () => {
    const dir = copyFixture('generate/multi-version');
    await run(dir, { targets: ['crd'] });
    const crd = parse(readFileSync(join(dir, 'config/crd/bases/ships.example.com_frigates.yaml'), 'utf8'));
    expect(crd.spec.scope).toBe('Cluster');
    expect(crd.spec.versions.map((v: Record<string, unknown>) => [v.name, v.served, v.storage, v.deprecated ?? false])).toEqual([
      ['v1', true, false, true],
      ['v2', true, true, false],
    ]);
    expect(crd.spec.versions[0].deprecationWarning).toBe('use v2');
    expect(crd.spec.versions[1].schema.openAPIV3Schema.properties.spec.required).toEqual(['crew']);
  });

  it('works outside a project with --paths and --output-dir, and refuses to guess without them', async () => {
    const dir = copyFixture('generate/memcached');
    rmSync(join(dir, 'PROJECT'));
    const err = await run(dir).catch((e: unknown) => e);
    expect((err as OpgenError).format()).toBe(
      '--paths: error: no PROJECT file here, so opgen does not know where the sources are (run inside an opgen project, or pass --paths <dir|glob> (and --output-dir))',
    );
    const res = await run(dir, { targets: ['crd'], paths: 'src/api/...', outputDir: 'out' });
    expect(res).toEqual({ code: 0, lines: ['CREATE out/cache.example.com_memcacheds.yaml'] });
    const glob = await run(dir, { targets: ['rbac'], paths: 'src/**/*-controller.ts', outputDir: 'out' });
    expect(glob).toEqual({ code: 0, lines: ['CREATE out/role.yaml'] });
    const nothing = await run(dir, { targets: ['rbac'], paths: 'src/**/*-reconciler.ts' }).catch((e: unknown) => e);
    expect((nothing as OpgenError).format()).toBe("--paths: error: src/**/*-reconciler.ts matches no TypeScript sources (check the pattern; quote it so the shell does not expand it)");
    const missing = await run(dir, { targets: ['crd'], paths: 'api' }).catch((e: unknown) => e);
    expect((missing as OpgenError).format()).toBe('--paths: error: api does not exist (pass a folder, file or glob of TypeScript sources)');
  });
});

describe('opgen generate refuses bad input with one line per problem and writes nothing', () => {
  const cases: [string, string][] = [
    ['unknown-marker', 'src/api/v1/types.ts:4:6: error: WidgetSpec.size: unknown marker +kubebuilder:validation:Minimun (did you mean +kubebuilder:validation:Minimum?)'],
    ['misspelled-nullable', 'src/api/v1/types.ts:4:6: error: WidgetSpec.note: unknown marker +kubebuilder:validation:nullable (did you mean +nullable?)'],
    ['bad-argument', 'src/api/v1/types.ts:4:40: error: WidgetSpec.name: +kubebuilder:validation:MaxLength: expected an integer, got "ten"'],
    ['marker-on-wrong-target', 'src/api/v1/types.ts:4:6: error: WidgetSpec.size: +kubebuilder:subresource:status cannot stand on a field (move it directly above a type)'],
    [
      'minimum-on-string',
      'src/api/v1/types.ts:5:6: error: Widget.spec.name: +kubebuilder:validation:Minimum applies to integer or number schemas, not a string (use MinLength for strings, MinItems for arrays)',
    ],
    [
      'min-items-on-object',
      'src/api/v1/types.ts:8:6: error: Widget.spec.part: +kubebuilder:validation:MinItems applies to array schemas, not an object (use MinProperties for objects, MinLength for strings)',
    ],
    [
      'unique-items',
      'src/api/v1/types.ts:4:6: error: Widget.spec.tags: +kubebuilder:validation:UniqueItems=true is rejected by the API server (uniqueItems cannot be true in a CRD) (use +listType=set instead)',
    ],
    [
      'list-map-key-optional',
      'src/api/v1/types.ts:10:6: error: Widget.spec.ports: list map key "name" is optional, and the API server requires map keys to be required or defaulted (make name required (no ?) or give it a +kubebuilder:default)',
    ],
    [
      'default-invalid',
      "src/api/v1/types.ts:5:6: error: Widget.spec.size: the default does not validate against the field's own schema: 20 is above the maximum 10 (change the default or the field's validation markers)",
    ],
    [
      'recursive-type',
      'src/api/v1/types.ts:5:14: error: Widget.spec.root.children[]: recursive type (Node → Node) cannot be expressed in a CRD schema (break the cycle: type the field as JSON from @opgen/runtime, or give it +kubebuilder:validation:Schemaless with +kubebuilder:pruning:PreserveUnknownFields)',
    ],
    [
      'any-type',
      'src/api/v1/types.ts:4:12: error: Widget.spec.config: type any cannot be expressed in a CRD schema (use JSON or RawExtension from @opgen/runtime, or a Record<string, T> with +kubebuilder:pruning:PreserveUnknownFields)',
    ],
    ['function-type', 'src/api/v1/types.ts:4:14: error: Widget.spec.onChange: functions cannot be stored in a Kubernetes object (remove the field, or store data instead)'],
    ['bigint-type', 'src/api/v1/types.ts:4:11: error: Widget.spec.count: bigint cannot be expressed in JSON (use int64 from @opgen/runtime, or a string)'],
    [
      'object-union',
      'src/api/v1/types.ts:7:12: error: Widget.spec.choice: the union A | B cannot be expressed in a CRD schema (use one interface with optional fields and +kubebuilder:validation:ExactlyOneOf, or a string literal union)',
    ],
    [
      'unresolved-import',
      'src/api/v1/types.ts:5:11: error: Widget.spec.thing: cannot read type Thing from some-lib (opgen reads only relative imports, @opgen/runtime, @opgen/runtime/kubernetes and @kubernetes/client-node; declare the type in your API folder)',
    ],
    ['scale-path', 'src/api/v1/types.ts:8:4: error: Widget: scale specpath ".replicas" is not under .spec (use a path such as .spec.replicas)'],
    [
      'multi-version-no-storage',
      'src/api/v1/types.ts:8:18: error: Widget: has 2 versions (v1, v2) and none is the storage version (add +kubebuilder:storageversion to exactly one of them)',
    ],
    [
      'embedded-map',
      'src/api/v1/types.ts:4:6: error: Widget.spec.object: an embedded resource cannot be a map (the API server forbids additionalProperties with x-kubernetes-embedded-resource) (type the field as RawExtension from @opgen/runtime, or as an interface with apiVersion, kind and metadata)',
    ],
    ['webhook-side-effects', 'src/controller/widget-webhook.ts:1:4: error: webhook vwidget.kb.io: sideEffects is required (add sideEffects=None (or NoneOnDryRun))'],
    ['rbac-typo', 'src/controller/widget-controller.ts:1:66: error: +kubebuilder:rbac has no argument "verb" (did you mean verbs?)'],
    // One root error: MaxProperties on the refused map is not reported again as "applies to object schemas".
    ['record-number-key', 'src/api/v1/types.ts:5:19: error: Widget.spec.counts: Record keys must be strings (use Record<string, T> (or a string alias), or an interface for fixed keys)'],
    ['bad-field-path', 'src/api/v1/types.ts:8:6: error: Widget.spec.limits: fieldPath ".maximum" does not name a field: there is no maximum here (name a field below this one, e.g. .max)'],
  ];

  it.each(cases)('%s', async (name, expected) => {
    const dir = copyFixture(`generate-errors/${name}`);
    // A manifest from an earlier run must survive a failed run untouched.
    mkdirSync(join(dir, 'config/crd/bases'), { recursive: true });
    writeFileSync(join(dir, 'config/crd/bases/errors.example.com_widgets.yaml'), 'earlier output\n');
    const before = snapshot(join(dir, 'config'));
    const err = await run(dir).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpgenErrors);
    expect((err as OpgenErrors).message).toBe(expected);
    expect(snapshot(join(dir, 'config'))).toEqual(before);
  });
});

describe('opgen markers', () => {
  it('prints every marker from the registry the parser uses, with where it may stand and its arguments', async () => {
    const lines: string[] = [];
    await markersCommand((l) => lines.push(l));
    const text = lines.join('\n');
    expect(text).toContain('+kubebuilder:validation:Minimum=<number>\n    on: field, type\n');
    expect(text).toContain('+groupName=<string>\n    on: folder (any file of the API version)\n');
    expect(text).toContain('+kubebuilder:printcolumn:name=…,type=…,JSONPath=…,[description=…],[format=…],[priority=…]\n    on: type\n');
    expect(text).toContain('    verbs: list of string ({a,b} or a;b) — get, list, watch, create, update, patch, delete, deletecollection or *');
    expect(lines.filter((l) => l.startsWith('+')).length).toBeGreaterThan(80);
  });
});
