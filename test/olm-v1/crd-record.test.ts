// The recorded release and the automatic upgrade check: the tutorial operator scaffolded with the real
// commands, its CRDs recorded with `opgen crd record`, then its types edited as a user would. An unsafe
// edit makes `opgen generate` and `opgen generate bundle` fail with one line per finding and leaves the
// project byte for byte as it was; each finding's verdict is operator-controller v1.5.1's preflight's (the
// oracle of test/olm-v1, run on the recorded CRD and the CRD generate would write).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { opgen, opgenOk, scaffoldTutorial, snapshot, tempDir } from '../olm/helpers.js';
import { olmV1Oracle, oracleBinary } from './oracle.js';
import { diffCrd, type Crd } from '../../src/crd-upgrade/diff.js';

const CRD_FILE = 'config/crd/bases/cache.example.com_memcacheds.yaml';
const RELEASED_FILE = 'config/crd/released/cache.example.com_memcacheds.yaml';
const TYPES = 'src/api/v1alpha1/memcached-types.ts';

let root: ReturnType<typeof tempDir>;
let project: string;
let released: string;
const typesPath = (): string => join(project, TYPES);

/** The release's types: the tutorial's, plus an enum field with a default (so that narrowing it can be tried). */
function releasedTypes(text: string): string {
  return text.replace('  /** image overrides the memcached image. */', [
    '  /**',
    '   * tier is the size class of the cache.',
    '   * +kubebuilder:validation:Enum=small;medium;large',
    '   * +kubebuilder:default=small',
    '   */',
    '  tier?: string;',
    '',
    '  /** image overrides the memcached image. */',
  ].join('\n'));
}

beforeAll(async () => {
  oracleBinary(); // built or found before the timed tests
  root = tempDir('opgen-crd-record-');
  project = await scaffoldTutorial(root.dir);
  writeFileSync(typesPath(), releasedTypes(readFileSync(typesPath(), 'utf8')));
  await opgenOk(project, 'generate');
  await opgenOk(project, 'generate', 'bundle', '--version', '0.1.0', '--channels', 'stable');
  released = readFileSync(typesPath(), 'utf8');
}, 600_000);

afterAll(() => root?.cleanup());

/** Every file of the project but the check cache generate keeps (it is not in the tree a user commits). */
const tree = (): Record<string, string> => snapshot(project);

describe('opgen crd record', () => {
  it('a project with no recorded release is not checked (as before)', async () => {
    writeFileSync(typesPath(), released.replace('  image?: string;\n', ''));
    const r = await opgen(project, 'generate', '--dry-run');
    expect(r.code, r.stderr).toBe(0);
    writeFileSync(typesPath(), released);
  });

  it('copies config/crd/bases under a comment naming the release, the same bytes every run', async () => {
    const r = await opgenOk(project, 'crd', 'record', '--version', '0.1.0');
    expect(r.stdout).toContain('CREATE config/crd/released/cache.example.com_memcacheds.yaml');
    expect(r.stdout).toContain('config/crd/released: 1 CRD file of release 0.1.0; opgen generate and generate bundle check upgrades against them');
    const text = readFileSync(join(project, RELEASED_FILE), 'utf8');
    expect(text.startsWith('# The CRDs of release 0.1.0, recorded by `opgen crd record --version 0.1.0`.')).toBe(true);
    expect(text.endsWith(readFileSync(join(project, CRD_FILE), 'utf8'))).toBe(true);
    const before = tree();
    const again = await opgenOk(project, 'crd', 'record', '--version', '0.1.0');
    expect(again.stdout).not.toMatch(/CREATE|UPDATE|DELETE/);
    expect(tree()).toEqual(before);
    // An unchanged project generates and bundles as before.
    expect((await opgen(project, 'generate')).code).toBe(0);
    expect(tree()).toEqual(before);
  });

  it('bad input is one line naming the flag, and writes nothing', async () => {
    const before = tree();
    expect(await opgen(project, 'crd', 'record')).toMatchObject({ code: 1, stderr: '--version: error: the record needs the release it is of (pass --version 0.2.0 (the version of the bundle or image you release))\n' });
    expect(await opgen(project, 'crd', 'record', '--version', 'a b')).toMatchObject({ code: 1, stderr: "--version: error: 'a b' is not a release name (write the version you release, e.g. 0.2.0 or v0.2.0)\n" });
    expect(await opgen(project, 'crd', 'record', '--version', '0.2.0', '--from', 'nowhere')).toMatchObject({ code: 1, stderr: '--from: error: nowhere: no such folder (run opgen generate first, or pass the folder holding the CRDs you release)\n' });
    expect((await opgen(project, 'generate', '--allow-unsafe-crd-changes', ' ')).stderr).toBe("--allow-unsafe-crd-changes: error: the override needs a reason (say why the break is intended, e.g. --allow-unsafe-crd-changes 'v1alpha1 has no users yet')\n");
    expect(tree()).toEqual(before);
  });
});

interface Edit {
  name: string;
  edit: (types: string) => string;
  /** The preflight's rules expected on spec fields (the oracle must agree). */
  rules: string[];
}

const unsafe: Edit[] = [
  { name: 'a field removed', edit: (t) => t.replace('  image?: string;\n', ''), rules: ['existingFieldRemoval', 'type'] },
  { name: 'an enum narrowed', edit: (t) => t.replace('Enum=small;medium;large', 'Enum=small;medium'), rules: ['enum'] },
  { name: 'a required field added without a default', edit: (t) => t.replace('  image?: string;\n', '  image?: string;\n\n  /** replicas of the cache. */\n  replicas: number;\n'), rules: ['required'] },
  { name: 'a bound tightened', edit: (t) => t.replace('+kubebuilder:validation:Maximum=3', '+kubebuilder:validation:Maximum=2'), rules: ['maximum'] },
];

/** The preflight findings between the recorded CRD and `file`, in the oracle's terms. */
const key = (f: { where: string; path?: string; rule: string }): string => `${f.where} ${f.path ?? ''} ${f.rule}`;

describe('opgen generate and generate bundle against the recorded release', () => {
  it.each(unsafe)('$name: generate fails with the findings, the tree byte-identical; the oracle agrees; the override writes; generate bundle then fails alike', async (c) => {
    writeFileSync(typesPath(), c.edit(released));
    const before = tree();

    const gen = await opgen(project, 'generate');
    expect(gen.code).toBe(1);
    const lines = gen.stderr.trimEnd().split('\n');
    for (const l of lines) {
      expect(l).toMatch(/^config\/crd\/bases\/cache\.example\.com_memcacheds\.yaml:\d+:\d+: error: memcacheds\.cache\.example\.com v1alpha1 (\S+ )?spec(\.\S+)?: .+; .+ \[(preflight|guide) [A-Za-z-]+; release 0\.1\.0, config\/crd\/released\] \(.+; or, to release the break on purpose, pass --allow-unsafe-crd-changes '<reason>'\)$/);
    }
    expect(tree()).toEqual(before);

    // The CRD generate would write, beside the preflight's verdict: written with the override, which says
    // what it let through and why.
    const allowed = await opgen(project, 'generate', '--allow-unsafe-crd-changes', 'test: compare with the oracle');
    expect(allowed.code, allowed.stderr).toBe(0);
    const oracle = olmV1Oracle('crd', join(project, RELEASED_FILE), join(project, CRD_FILE));
    const findings = diffCrd(parse(readFileSync(join(project, RELEASED_FILE), 'utf8')) as Crd, parse(readFileSync(join(project, CRD_FILE), 'utf8')) as Crd);
    const preflight = findings.filter((f) => f.origin === 'preflight');
    expect(oracle.verdict).toBe('fail');
    expect(new Set(preflight.map(key))).toEqual(new Set((oracle.findings ?? []).map(key)));
    expect([...new Set(preflight.map((f) => f.rule))].sort()).toEqual([...c.rules].sort());
    // One line per error finding, each naming its rule.
    const errors = findings.filter((f) => f.level === 'error');
    expect(lines).toHaveLength(errors.length);
    for (const f of errors) expect(lines.some((l) => l.includes(`[${f.origin} ${f.rule}; `))).toBe(true);
    expect(allowed.stdout).toContain(`--allow-unsafe-crd-changes: ${errors.length} unsafe CRD change${errors.length === 1 ? '' : 's'} against release 0.1.0, config/crd/released allowed: test: compare with the oracle`);

    // generate bundle bundles config/crd/bases as written: it refuses the same findings, at the bundle's CRD.
    const written = tree();
    const bundle = await opgen(project, 'generate', 'bundle', '--version', '0.2.0');
    expect(bundle.code).toBe(1);
    const bundleErrors = bundle.stderr.split('\n').filter((l) => / error: /.test(l));
    expect(bundleErrors.map((l) => l.replace(/^[^ ]+ /, ''))).toEqual(lines.map((l) => l.replace(/^[^ ]+ /, '')));
    for (const l of bundleErrors) expect(l).toMatch(/^bundle\/manifests\/cache\.example\.com_memcacheds\.yaml:\d+:\d+: error: /);
    expect(tree()).toEqual(written);
    expect((await opgen(project, 'generate', 'bundle', '--version', '0.2.0', '--dry-run', '--allow-unsafe-crd-changes', 'test')).code).toBe(0);

    // Back to the release's types: nothing to refuse.
    writeFileSync(typesPath(), released);
    await opgenOk(project, 'generate');
  }, 600_000);

  it('a new optional field passes (with the guide\'s warning), and the oracle passes it too', async () => {
    writeFileSync(typesPath(), released.replace('  image?: string;\n', '  image?: string;\n\n  /** note for operators. */\n  note?: string;\n'));
    const gen = await opgen(project, 'generate');
    expect(gen.code, gen.stderr).toBe(0);
    expect(gen.stdout).toMatch(/^config\/crd\/bases\/cache\.example\.com_memcacheds\.yaml:\d+:\d+: warning: memcacheds\.cache\.example\.com v1alpha1 spec\.note: new field without a default; .+ \[guide new-field-without-default; release 0\.1\.0, config\/crd\/released\]$/m);
    expect(readFileSync(join(project, CRD_FILE), 'utf8')).toContain('note:');
    expect(olmV1Oracle('crd', join(project, RELEASED_FILE), join(project, CRD_FILE)).verdict).toBe('pass');
    const bundle = await opgen(project, 'generate', 'bundle', '--version', '0.2.0');
    expect(bundle.code, bundle.stderr).toBe(0);
    const bundled = parseAllDocuments(readFileSync(join(project, 'bundle/manifests/cache.example.com_memcacheds.yaml'), 'utf8'))[0]!.toJS() as Crd;
    expect(JSON.stringify(bundled.spec?.versions?.[0]?.schema)).toContain('"note"');
  }, 600_000);

  it('a kind whose CRD is gone is refused (its objects would be deleted); --paths over part of the project does not count as removal', async () => {
    writeFileSync(typesPath(), released);
    const before = tree();
    // The kind renamed: memcacheds.cache.example.com is no longer generated (memcaches is, a new CRD).
    writeFileSync(typesPath(), released.replace(/\bMemcached(List)?\b/g, 'Memcache$1'));
    const gone = await opgen(project, 'generate', 'crd', '--dry-run');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^config\/crd\/released\/cache\.example\.com_memcacheds\.yaml:\d+:\d+: error: memcacheds\.cache\.example\.com: the CRD is gone from the new manifests; an upgrade that deletes a CRD deletes every stored object of it \[guide crd-removed; release 0\.1\.0, config\/crd\/released\] \(.+--allow-unsafe-crd-changes '<reason>'\)\n$/);
    writeFileSync(typesPath(), released);
    const part = await opgen(project, 'generate', 'crd', '--paths', 'src/controller', '--dry-run');
    expect(part.code, part.stderr).toBe(0);
    expect(part.stdout + part.stderr).not.toContain('crd-removed');
    expect(tree()).toEqual(before);
  }, 600_000);

  it('crd record refuses a release that breaks the recorded one unless allowed, then checks against the new one', async () => {
    writeFileSync(typesPath(), released.replace('Enum=small;medium;large', 'Enum=small;medium'));
    expect((await opgen(project, 'generate', '--allow-unsafe-crd-changes', 'large was never used')).code).toBe(0);
    const before = tree();
    const refused = await opgen(project, 'crd', 'record', '--version', '0.2.0');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^config\/crd\/bases\/cache\.example\.com_memcacheds\.yaml:\d+:\d+: error: memcacheds\.cache\.example\.com v1alpha1 spec\.tier: enum values \["large"\] removed; .+ \[preflight enum; release 0\.1\.0, config\/crd\/released\]/);
    expect(tree()).toEqual(before);
    await opgenOk(project, 'crd', 'record', '--version', '0.2.0', '--allow-unsafe-crd-changes', 'large was never used');
    expect(readFileSync(join(project, RELEASED_FILE), 'utf8')).toMatch(/^# The CRDs of release 0\.2\.0,/);
    // 0.2.0 is the baseline now: generate passes without the override.
    expect((await opgen(project, 'generate')).code).toBe(0);
    rmSync(join(project, 'config/crd/released'), { recursive: true });
  }, 600_000);
});
