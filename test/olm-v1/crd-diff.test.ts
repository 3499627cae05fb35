// `opgen crd diff` side by side with operator-controller's CRD upgrade-safety preflight (its
// crdupgradesafety package, run by our oracle main on an "installed" old CRD and a release manifest
// holding the new one): the same verdict on every case and the same (version, field path, rule) findings.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { diffCrd, type Crd } from '../../src/crd-upgrade/diff.js';
import { opgen, opgenOk, scaffoldTutorial, snapshot, tempDir } from '../olm/helpers.js';
import { olmV1Oracle, oracleBinary, tally } from './oracle.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const spec = (): Obj => ({
  type: 'object',
  description: 'MemcachedSpec defines the desired state of Memcached',
  properties: {
    size: { type: 'integer', format: 'int32', minimum: 0, maximum: 10, description: 'Size is the number of replicas' },
    mode: { type: 'string', enum: ['fast', 'safe'] },
    name: { type: 'string', maxLength: 20, minLength: 1, pattern: '^[a-z]+$' },
    image: { type: 'string', default: 'memcached:1.6' },
    ports: { type: 'array', maxItems: 4, items: { type: 'object', properties: { port: { type: 'integer' }, name: { type: 'string' } }, required: ['port'] } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['size'],
});

const schema = (): Obj => ({
  type: 'object',
  description: 'Memcached is the Schema for the memcacheds API',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: spec(),
    status: { type: 'object', properties: { conditions: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
  },
});

function crd(versions: Obj[] = [{ name: 'v1alpha1', served: true, storage: true, schema: { openAPIV3Schema: schema() } }], extra: Obj = {}): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'memcacheds.cache.example.com' },
    spec: { group: 'cache.example.com', names: { kind: 'Memcached', listKind: 'MemcachedList', plural: 'memcacheds', singular: 'memcached' }, scope: 'Namespaced', versions, ...extra.spec },
    ...(extra.status ? { status: extra.status } : {}),
  };
}

/** The base CRD with one edit to its v1alpha1 spec schema. */
function editSpec(edit: (s: Obj) => void): Obj {
  const c = crd();
  edit(c.spec.versions[0].schema.openAPIV3Schema.properties.spec);
  return c;
}

const version = (name: string, served: boolean, storage: boolean, s: Obj = schema(), more: Obj = {}): Obj => ({ name, served, storage, schema: { openAPIV3Schema: s }, ...more });
const withoutSize = (): Obj => {
  const s = schema();
  delete s.properties.spec.properties.size;
  s.properties.spec.required = [];
  return s;
};
const stored = (...v: string[]): Obj => ({ status: { storedVersions: v, acceptedNames: { kind: '', plural: '' }, conditions: [] } });

interface Case {
  name: string;
  old?: Obj;
  new: Obj;
  /** Rules of the preflight expected ([] = the upgrade is safe). */
  preflight: string[];
  /** opgen's own (guide) rules expected. */
  guide?: string[];
}

const cases: Case[] = [
  { name: 'unchanged', new: crd(), preflight: [] },
  { name: 'description changed', new: editSpec((s) => void (s.properties.size.description = 'How many')), preflight: [] },
  { name: 'optional field added without default', new: editSpec((s) => void (s.properties.tier = { type: 'string' })), preflight: [], guide: ['new-field-without-default'] },
  { name: 'optional field added with default', new: editSpec((s) => void (s.properties.tier = { type: 'string', default: 'gold' })), preflight: [] },
  { name: 'field added under preserve-unknown-fields', new: editSpec((s) => void (s['x-kubernetes-preserve-unknown-fields'] = true, s.properties.tier = { type: 'string' })), preflight: ['unhandled'] },
  { name: 'required field added', new: editSpec((s) => void (s.properties.tier = { type: 'string' }, s.required = ['size', 'tier'])), preflight: ['required'], guide: ['new-field-without-default'] },
  { name: 'required field added with a default', new: editSpec((s) => void (s.properties.tier = { type: 'string', default: 'gold' }, s.required = ['size', 'tier'])), preflight: ['required'] },
  { name: 'existing field made required', new: editSpec((s) => void (s.required = ['size', 'mode'])), preflight: ['required'] },
  { name: 'required dropped', new: editSpec((s) => void (s.required = [])), preflight: [] },
  { name: 'field removed', new: editSpec((s) => void delete s.properties.mode), preflight: ['existingFieldRemoval', 'enum', 'type'] },
  { name: 'nested field removed', new: editSpec((s) => void delete s.properties.ports.items.properties.name), preflight: ['existingFieldRemoval', 'type'] },
  { name: 'type changed', new: editSpec((s) => void (s.properties.size = { type: 'string' })), preflight: ['type', 'unhandled'] },
  { name: 'type changed (keeping the rest)', new: editSpec((s) => void (s.properties.image.type = 'integer', s.properties.image.default = 3)), preflight: ['type', 'default'] },
  { name: 'enum value removed', new: editSpec((s) => void (s.properties.mode.enum = ['fast'])), preflight: ['enum'] },
  { name: 'enum value added', new: editSpec((s) => void (s.properties.mode.enum = ['fast', 'safe', 'turbo'])), preflight: [] },
  { name: 'enum added where there was none', new: editSpec((s) => void (s.properties.image.enum = ['memcached:1.6'])), preflight: ['enum'] },
  { name: 'enum dropped', new: editSpec((s) => void delete s.properties.mode.enum), preflight: ['enum'] },
  { name: 'maximum lowered', new: editSpec((s) => void (s.properties.size.maximum = 5)), preflight: ['maximum'] },
  { name: 'maximum raised', new: editSpec((s) => void (s.properties.size.maximum = 50)), preflight: [] },
  { name: 'maximum dropped', new: editSpec((s) => void delete s.properties.size.maximum), preflight: [] },
  { name: 'minimum raised', new: editSpec((s) => void (s.properties.size.minimum = 1)), preflight: ['minimum'] },
  { name: 'minimum added', new: editSpec((s) => void (s.properties.ports.items.properties.port.minimum = 1)), preflight: ['minimum'] },
  { name: 'maxLength lowered', new: editSpec((s) => void (s.properties.name.maxLength = 10)), preflight: ['maxLength'] },
  { name: 'maxLength added', new: editSpec((s) => void (s.properties.image.maxLength = 100)), preflight: ['maxLength'] },
  { name: 'minLength raised', new: editSpec((s) => void (s.properties.name.minLength = 3)), preflight: ['minLength'] },
  { name: 'minLength lowered', new: editSpec((s) => void (s.properties.name.minLength = 0)), preflight: [] },
  { name: 'maxItems lowered', new: editSpec((s) => void (s.properties.ports.maxItems = 2)), preflight: ['maxItems'] },
  { name: 'minItems added', new: editSpec((s) => void (s.properties.ports.minItems = 1)), preflight: ['minItems'] },
  { name: 'maxProperties added', new: editSpec((s) => void (s.properties.labels.maxProperties = 8)), preflight: ['maxProperties'] },
  { name: 'minProperties added', new: editSpec((s) => void (s.properties.labels.minProperties = 1)), preflight: ['minProperties'] },
  { name: 'pattern tightened', new: editSpec((s) => void (s.properties.name.pattern = '^[a-z]{2,}$')), preflight: ['unhandled'] },
  { name: 'pattern loosened', new: editSpec((s) => void (s.properties.name.pattern = '^[a-z0-9]+$')), preflight: ['unhandled'] },
  { name: 'pattern added', new: editSpec((s) => void (s.properties.image.pattern = '^.+:.+$')), preflight: ['unhandled'] },
  { name: 'format changed', new: editSpec((s) => void (s.properties.size.format = 'int64')), preflight: ['unhandled'] },
  { name: 'nullable added', new: editSpec((s) => void (s.properties.image.nullable = true)), preflight: ['unhandled'] },
  { name: 'nullable: false written out', new: editSpec((s) => void (s.properties.image.nullable = false)), preflight: [] },
  { name: 'CEL rule added', new: editSpec((s) => void (s['x-kubernetes-validations'] = [{ rule: 'self.size <= 5', message: 'too big' }])), preflight: ['unhandled'] },
  { name: 'x-kubernetes-preserve-unknown-fields: false written out', new: editSpec((s) => void (s.properties.labels['x-kubernetes-preserve-unknown-fields'] = false)), preflight: ['unhandled'] },
  { name: 'default changed', new: editSpec((s) => void (s.properties.image.default = 'memcached:1.7')), preflight: ['default'] },
  { name: 'default added', new: editSpec((s) => void (s.properties.mode.default = 'safe')), preflight: ['default'] },
  { name: 'default removed', new: editSpec((s) => void delete s.properties.image.default), preflight: ['default'] },
  { name: 'map value type changed', new: editSpec((s) => void (s.properties.labels.additionalProperties = { type: 'integer' })), preflight: ['type', 'unhandled'] },
  { name: 'list item field type changed', new: editSpec((s) => void (s.properties.ports.items.properties.port = { type: 'string' })), preflight: ['type'] },
  { name: 'scope changed', new: crd(undefined, { spec: { scope: 'Cluster' } }), preflight: ['scope'] },
  {
    name: 'stored version removed',
    old: crd([version('v1alpha1', true, false), version('v1', true, true)], stored('v1alpha1', 'v1')),
    new: crd([version('v1', true, true)]),
    preflight: ['storedVersionRemoval'],
  },
  {
    name: 'unstored, deprecated version removed',
    old: crd([version('v1alpha1', true, false, schema(), { deprecated: true }), version('v1', true, true)], stored('v1')),
    new: crd([version('v1', true, true)]),
    preflight: [],
  },
  {
    name: 'unstored version removed without deprecation',
    old: crd([version('v1alpha1', true, false), version('v1', true, true)], stored('v1')),
    new: crd([version('v1', true, true)]),
    preflight: [],
    guide: ['version-removed'],
  },
  {
    name: 'old storage version removed, old file without status',
    new: crd([version('v1', true, true)]),
    preflight: [],
    guide: ['storage-version-removed'],
  },
  { name: 'version added with the same schema', new: crd([version('v1alpha1', true, false), version('v1', true, true)]), preflight: [] },
  { name: 'version added without a field, no conversion webhook', new: crd([version('v1alpha1', true, false), version('v1', true, true, withoutSize())]), preflight: ['type', 'unhandled'] },
  {
    name: 'version added without a field, conversion webhook',
    new: crd([version('v1alpha1', true, false), version('v1', true, true, withoutSize())], { spec: { conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/convert' } } } } } }),
    preflight: [],
  },
  {
    name: 'served versions already differing, unchanged',
    old: crd([version('v1alpha1', true, false), version('v1', true, true, withoutSize())], stored('v1')),
    new: crd([version('v1alpha1', true, false), version('v1', true, true, withoutSize())]),
    preflight: [],
  },
  {
    name: 'version no longer served, not deprecated',
    old: crd([version('v1alpha1', true, false), version('v1', true, true)], stored('v1')),
    new: crd([version('v1alpha1', false, false), version('v1', true, true)]),
    preflight: [],
    guide: ['version-unserved'],
  },
  { name: 'two storage versions', new: crd([version('v1alpha1', true, true), version('v1', true, true)]), preflight: [], guide: ['one-storage-version'] },
];

let root: { dir: string; cleanup: () => void };
const verdicts: string[] = [];

beforeAll(() => {
  oracleBinary();
  root = tempDir('opgen-crd-diff-');
}, 900_000);
afterAll(() => {
  // eslint-disable-next-line no-console
  console.log(`CRD upgrade cases per verdict (opgen = operator-controller's preflight): ${tally(verdicts)}`);
  root?.cleanup();
});

const key = (f: { where: string; path?: string; rule: string }): string => `${f.where} ${f.path ?? ''} ${f.rule}`;

describe('crd diff against operator-controller v1.5.1\'s crdupgradesafety preflight', () => {
  it.each(cases)('$name', async (c) => {
    const dir = join(root.dir, c.name.replace(/[^a-z0-9]+/gi, '-'));
    mkdirSync(dir, { recursive: true });
    const oldCrd = c.old ?? crd();
    writeFileSync(join(dir, 'old.yaml'), stringify(oldCrd));
    writeFileSync(join(dir, 'new.yaml'), stringify(c.new));

    const oracle = olmV1Oracle('crd', join(dir, 'old.yaml'), join(dir, 'new.yaml'));
    const findings = diffCrd(oldCrd as Crd, c.new as Crd);
    const preflight = findings.filter((f) => f.origin === 'preflight');
    expect(new Set(preflight.map(key)), oracle.message ?? '').toEqual(new Set((oracle.findings ?? []).map(key)));
    expect(preflight.length === 0 ? 'pass' : 'fail').toBe(oracle.verdict);
    verdicts.push(oracle.verdict);
    expect([...new Set(preflight.map((f) => f.rule))].sort()).toEqual([...c.preflight].sort());
    expect([...new Set(findings.filter((f) => f.origin === 'guide').map((f) => f.rule))].sort()).toEqual([...(c.guide ?? [])].sort());

    const before = snapshot(dir);
    const r = await opgen(dir, 'crd', 'diff', 'old.yaml', 'new.yaml');
    const errors = findings.filter((f) => f.level === 'error').length;
    expect(r.code).toBe(errors > 0 ? 1 : 0);
    const lines = (r.stderr + r.stdout).split('\n').filter((l) => / \[(preflight|guide) [A-Za-z-]+\]$/.test(l));
    expect(lines).toHaveLength(findings.length);
    // Each names new.yaml:line:column (old.yaml for a CRD that is gone), the CRD, the field and why.
    for (const l of lines) expect(l).toMatch(/^(new|old)\.yaml:\d+:\d+: (error|warning): memcacheds\.cache\.example\.com\b.*: .+; .+ \(.+\) \[(preflight|guide) [A-Za-z-]+\]$/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('points at the field in the new file', async () => {
    const dir = join(root.dir, 'position');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'old.yaml'), stringify(crd()));
    const text = stringify(editSpec((s) => void (s.properties.size.maximum = 5)));
    writeFileSync(join(dir, 'new.yaml'), text);
    const r = await opgen(dir, 'crd', 'diff', 'old.yaml', 'new.yaml');
    // The field (spec.size), where the maximum that changed sits.
    const lineNo = text.split('\n').findIndex((l) => /^\s+size:$/.test(l)) + 1;
    const col = text.split('\n')[lineNo - 1]!.indexOf('size') + 1;
    expect(r.stderr).toMatch(new RegExp(`^new\\.yaml:${lineNo}:${col}: error: memcacheds\\.cache\\.example\\.com v1alpha1 spec\\.size: maximum lowered from 10 to 5; `));
    expect(r.stdout).toBe('1 CRD compared: 1 error, 0 warnings\n');
  });

  it('reports a CRD dropped from the new manifests, and bad input in one line', async () => {
    const dir = join(root.dir, 'inputs');
    mkdirSync(join(dir, 'new'), { recursive: true });
    writeFileSync(join(dir, 'old.yaml'), stringify(crd()) + '---\n' + stringify({ ...crd(), metadata: { name: 'others.cache.example.com' } }));
    writeFileSync(join(dir, 'new', 'crd.yaml'), stringify(crd()));
    const r = await opgen(dir, 'crd', 'diff', 'old.yaml', 'new');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^old\.yaml:\d+:\d+: error: others\.cache\.example\.com: the CRD is gone from the new manifests; an upgrade that deletes a CRD deletes every stored object of it \(.+\) \[guide crd-removed\]\n$/);
    expect(await opgen(dir, 'crd', 'diff', 'missing.yaml', 'new')).toMatchObject({ code: 1, stderr: "crd diff <old>: error: missing.yaml: no such file or folder (pass the old CRD file or the folder holding the released CRDs)\n" });
    writeFileSync(join(dir, 'bad.yaml'), 'kind: [\n');
    expect(await opgen(dir, 'crd', 'diff', 'old.yaml')).toMatchObject({ code: 1, stderr: 'crd diff: error: expected two arguments, got 1 (run opgen crd diff <old CRDs> <new CRDs>, or opgen crd diff --since <release tag> <CRDs> (files or folders))\n' });
    const bad = await opgen(dir, 'crd', 'diff', 'old.yaml', 'bad.yaml');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^bad\.yaml:\d+:\d+: error: not valid YAML: .+ \(fix the YAML\)\n$/);
    expect(readFileSync(join(dir, 'bad.yaml'), 'utf8')).toBe('kind: [\n');
  });
});

describe('crd diff --since <git ref>', () => {
  it('compares with the CRDs as committed at the release tag', async () => {
    const repo = join(root.dir, 'repo');
    const project = join(repo, 'operator'); // a project below the repository root
    mkdirSync(join(project, 'crds'), { recursive: true });
    const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    writeFileSync(join(project, 'crds', 'memcacheds.yaml'), stringify(crd()));
    writeFileSync(join(project, 'crds', 'README.md'), 'not a CRD\n');
    git('add', '.');
    git('commit', '-q', '-m', 'release');
    git('tag', 'v0.1.0');
    writeFileSync(join(project, 'crds', 'memcacheds.yaml'), stringify(editSpec((s) => void (s.properties.mode.enum = ['fast']))));

    const r = await opgen(project, 'crd', 'diff', '--since', 'v0.1.0', 'crds');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^crds\/memcacheds\.yaml:\d+:\d+: error: memcacheds\.cache\.example\.com v1alpha1 spec\.mode: enum values \["safe"\] removed; .+ \[preflight enum\]\n$/);
    expect(r.stdout).toBe('1 CRD compared: 1 error, 0 warnings\n');
    // The same file alone works too; an unknown ref is one line.
    expect((await opgen(project, 'crd', 'diff', '--since', 'v0.1.0', 'crds/memcacheds.yaml')).code).toBe(1);
    expect(await opgen(project, 'crd', 'diff', '--since', 'v9.9.9', 'crds')).toMatchObject({ code: 1, stderr: "--since: error: 'v9.9.9' is not a commit of a git repository here (name a tag or commit of the last release, e.g. --since v0.1.0)\n" });
    git('commit', '-q', '-am', 'next');
    expect(await opgen(project, 'crd', 'diff', '--since', 'HEAD', 'crds')).toMatchObject({ code: 0, stdout: '1 CRD compared: safe to upgrade (0 errors, 0 warnings)\n' });
  });
});

describe('crd diff on the tutorial operator\'s API as it evolves', () => {
  it('finds what the preflight finds between the released CRD and the regenerated one', async () => {
    const project = await scaffoldTutorial(join(root.dir));
    cpSync(join(project, 'config/crd/bases'), join(project, 'released'), { recursive: true });
    const types = join(project, 'src/api/v1alpha1/memcached-types.ts');
    const source = readFileSync(types, 'utf8');
    const edited = source
      .replace('+kubebuilder:validation:Maximum=3', '+kubebuilder:validation:Maximum=2')
      .replace('  /** image overrides the memcached image. */\n  image?: string;\n', '  /** tier of the memcached service. */\n  tier?: string;\n');
    expect(edited).not.toBe(source);
    writeFileSync(types, edited);
    await opgenOk(project, 'generate');

    const r = await opgen(project, 'crd', 'diff', 'released', 'config/crd/bases');
    expect(r.code).toBe(1);
    const file = 'config/crd/bases/cache.example.com_memcacheds.yaml';
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.map((l) => / \[([a-z]+ [A-Za-z-]+)\]$/.exec(l)?.[1]).sort()).toEqual(['preflight existingFieldRemoval', 'preflight maximum', 'preflight type']);
    expect(lines.find((l) => l.endsWith('[preflight maximum]'))).toMatch(new RegExp(`^${file.replaceAll('.', '\\.')}:\\d+:\\d+: error: memcacheds\\.cache\\.example\\.com v1alpha1 spec\\.size: maximum lowered from 3 to 2; `));
    expect(r.stdout).toMatch(/^config\/crd\/bases\/cache\.example\.com_memcacheds\.yaml:\d+:\d+: warning: memcacheds\.cache\.example\.com v1alpha1 spec\.tier: new field without a default; .+ \[guide new-field-without-default\]\n1 CRD compared: 3 errors, 1 warning\n$/);

    const oracle = olmV1Oracle('crd', join(project, 'released/cache.example.com_memcacheds.yaml'), join(project, file));
    const ours = diffCrd(parse(readFileSync(join(project, 'released/cache.example.com_memcacheds.yaml'), 'utf8')) as Crd, parse(readFileSync(join(project, file), 'utf8')) as Crd);
    expect(new Set(ours.filter((f) => f.origin === 'preflight').map(key))).toEqual(new Set((oracle.findings ?? []).map(key)));
    // eslint-disable-next-line no-console
    console.log(r.stderr + r.stdout);
  }, 600_000);
});
