// `opgen catalog render` and `opgen catalog validate` side by side with operator-registry (the version
// operator-controller v1.5.1 builds with, v1.57.0): its semver template renders the same package, channels,
// upgrade edges and default channel from the same bundles, its validation passes what opgen renders, and
// on broken catalogs both give the same verdict for the same reason.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { opgen, opgenOk, scaffoldTutorial, snapshot, tempDir } from '../olm/helpers.js';
import { olmV1Oracle, oracleBinary, tally } from './oracle.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PKG = 'memcached-operator';
const IMAGE = 'quay.io/example/memcached-operator-bundle:v{version}';
const imageOf = (v: string): string => IMAGE.replace('{version}', v);
// Versions and the channels each bundle ships in.
const BUNDLES: [string, string][] = [
  ['0.1.0', 'stable'],
  ['0.1.1', 'stable'],
  ['0.1.2', 'candidate,fast'],
  ['0.2.0', 'candidate,fast,stable'],
  ['0.2.1', 'candidate'],
  ['1.0.0', 'candidate,fast'],
  ['1.1.0-rc.1', 'candidate'],
];

let root: { dir: string; cleanup: () => void };
let project: string;
const renderVerdicts: string[] = [];
const validateVerdicts: string[] = [];

beforeAll(async () => {
  oracleBinary();
  root = tempDir('opgen-catalog-');
  project = await scaffoldTutorial(root.dir);
  for (const [v, channels] of BUNDLES) await opgenOk(project, 'generate', 'bundle', '--version', v, '--channels', channels, '--output-dir', `bundles/${v}`);
}, 900_000);
afterAll(() => {
  // eslint-disable-next-line no-console
  console.log(`catalog cases per verdict (opgen = operator-registry): render ${tally(renderVerdicts)}; validate ${tally(validateVerdicts)}`);
  root?.cleanup();
});

const bundleArgs = (versions = BUNDLES.map(([v]) => v)): string[] => ['--bundles', versions.map((v) => `bundles/${v}`).join(','), '--bundle-image', IMAGE];
const oracleArgs = (versions = BUNDLES.map(([v]) => v)): string[] => versions.map((v) => `${imageOf(v)}=${join(project, 'bundles', v)}`);

function readFbc(file: string): Obj[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as Obj);
}

/** The upgrade graph of an FBC: what the tests compare (Go leaves empty fields out). */
function graph(c: { packages: Obj[]; channels: Obj[]; bundles: Obj[] }): Obj {
  return {
    packages: c.packages.map((p) => ({ name: p.name, defaultChannel: p.defaultChannel })),
    channels: c.channels
      .map((ch) => ({ name: ch.name, package: ch.package, entries: (ch.entries as Obj[]).map((e) => ({ name: e.name, ...(e.replaces ? { replaces: e.replaces } : {}), ...(e.skips?.length ? { skips: e.skips } : {}) })).sort((a, b) => (a.name < b.name ? -1 : 1)) }))
      .sort((a, b) => (a.name < b.name ? -1 : 1)),
    bundles: c.bundles.map((b) => ({ name: b.name, package: b.package, image: b.image })).sort((a, b) => (a.name < b.name ? -1 : 1)),
  };
}

const fromOracle = (cat: Obj): Obj => graph({
  packages: (cat.packages as Obj[]).map((p) => ({ name: p.name, defaultChannel: p.defaultChannel })),
  channels: cat.channels as Obj[],
  bundles: (cat.bundles as Obj[]).map((b) => ({ name: b.Name, package: b.Package, image: b.Image })),
});

interface RenderCase {
  name: string;
  /** A template to write (else opgen writes one from the bundles' channels). */
  template?: Obj;
  flags?: string[];
  versions?: string[];
}

const renderCases: RenderCase[] = [
  { name: 'template written from the bundles (minor channels)' },
  { name: 'template written with --major-channels', flags: ['--major-channels'] },
  { name: 'major channels only', template: { schema: 'olm.semver', generateMajorChannels: true, generateMinorChannels: false, candidate: { bundles: BUNDLES.filter(([, c]) => c.includes('candidate')).map(([v]) => ({ image: imageOf(v) })) }, stable: { bundles: BUNDLES.filter(([, c]) => c.includes('stable')).map(([v]) => ({ image: imageOf(v) })) } } },
  {
    name: 'both kinds, major preferred for the default channel',
    template: { schema: 'olm.semver', generateMajorChannels: true, generateMinorChannels: true, defaultChannelTypePreference: 'major', fast: { bundles: BUNDLES.filter(([, c]) => c.includes('fast')).map(([v]) => ({ image: imageOf(v) })) }, stable: { bundles: [{ image: imageOf('0.1.0') }, { image: imageOf('0.2.0') }] } },
  },
  { name: 'stable only, listed newest first', template: { schema: 'olm.semver', stable: { bundles: [{ image: imageOf('0.2.0') }, { image: imageOf('0.1.1') }, { image: imageOf('0.1.0') }] } }, versions: ['0.1.0', '0.1.1', '0.2.0'] },
  { name: 'one candidate bundle', template: { schema: 'olm.semver', candidate: { bundles: [{ image: imageOf('1.1.0-rc.1') }] } }, versions: ['1.1.0-rc.1'] },
];

describe('catalog render against operator-registry\'s semver template', () => {
  it.each(renderCases)('$name', async (c) => {
    const slug = c.name.replace(/[^a-z0-9]+/gi, '-');
    const template = `templates/${slug}.yaml`;
    mkdirSync(join(project, 'templates'), { recursive: true });
    if (c.template) writeFileSync(join(project, template), stringify(c.template));
    const out = `out/${slug}`;
    const r = await opgenOk(project, 'catalog', 'render', '--template', template, '--output-dir', out, ...bundleArgs(c.versions), ...(c.flags ?? []));
    expect(r.stdout).toContain(`${out}/${PKG}/catalog.yaml: `);

    const docs = readFbc(join(project, out, PKG, 'catalog.yaml'));
    const ours = graph({ packages: docs.filter((d) => d.schema === 'olm.package'), channels: docs.filter((d) => d.schema === 'olm.channel'), bundles: docs.filter((d) => d.schema === 'olm.bundle') });
    const oracle = olmV1Oracle('catalog-template', join(project, template), ...oracleArgs(c.versions));
    expect(oracle.verdict, oracle.message).toBe('pass');
    expect(ours).toEqual(fromOracle(oracle.catalog as Obj));
    // operator-registry's validation (what opm validate runs) accepts the catalog opgen wrote.
    const validated = olmV1Oracle('catalog-validate', join(project, out));
    expect(validated.verdict, validated.message).toBe('pass');
    renderVerdicts.push(validated.verdict);
  });

  it.each([
    { name: 'default channel preference for a kind not generated', template: { schema: 'olm.semver', generateMinorChannels: true, defaultChannelTypePreference: 'major', stable: { bundles: [{ image: imageOf('0.1.0') }] } }, ours: /defaultChannelTypePreference 'major' needs generateMajorChannels: true/, oracle: /DefaultChannelTypePreference set to 'major' doesn't make sense/ },
    { name: 'a bundle listed twice in a channel', template: { schema: 'olm.semver', stable: { bundles: [{ image: imageOf('0.1.0') }, { image: imageOf('0.1.0') }] } }, ours: /stable lists version 0\.1\.0 twice/, oracle: /duplicate bundle name/ },
  ])('refuses a template operator-registry refuses: $name', async (c) => {
    const template = `templates/${c.name.replace(/[^a-z0-9]+/gi, '-')}.yaml`;
    writeFileSync(join(project, template), stringify(c.template));
    const before = snapshot(project);
    const r = await opgen(project, 'catalog', 'render', '--template', template, ...bundleArgs(['0.1.0']));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^${template.replaceAll('.', '\\.')}:\\d+:\\d+: error: ${c.ours.source}`));
    expect(snapshot(project)).toEqual(before);
    const oracle = olmV1Oracle('catalog-template', join(project, template), ...oracleArgs(['0.1.0']));
    expect(oracle.message).toMatch(c.oracle);
    renderVerdicts.push(oracle.verdict);
  });

  it('adds bundles the template does not list yet under their channels, keeping the rest of the file', async () => {
    const template = 'templates/growing.yaml';
    writeFileSync(join(project, template), `# ours\nschema: olm.semver\nstable:\n  bundles:\n    - image: ${imageOf('0.1.0')} # first release\n`);
    const versions = ['0.1.0', '0.1.1', '0.1.2', '0.2.0'];
    const r = await opgenOk(project, 'catalog', 'render', '--template', template, '--output-dir', 'out/growing', ...bundleArgs(versions));
    expect(r.stdout).toContain(`${template}: added ${imageOf('0.1.1')} (bundles/0.1.1) under stable\n`);
    expect(r.stdout).toContain(`${template}: added ${imageOf('0.2.0')} (bundles/0.2.0) under candidate, fast, stable\n`);
    const text = readFileSync(join(project, template), 'utf8');
    expect(text).toContain('# ours\n');
    expect(text).toContain(`- image: ${imageOf('0.1.0')} # first release\n`);
    const docs = readFbc(join(project, 'out/growing', PKG, 'catalog.yaml'));
    const ours = graph({ packages: docs.filter((d) => d.schema === 'olm.package'), channels: docs.filter((d) => d.schema === 'olm.channel'), bundles: docs.filter((d) => d.schema === 'olm.bundle') });
    const oracle = olmV1Oracle('catalog-template', join(project, template), ...oracleArgs(versions));
    expect(ours).toEqual(fromOracle(oracle.catalog as Obj));
    expect(ours.bundles).toHaveLength(4);
    renderVerdicts.push(oracle.verdict);
  });

  it('writes the template, the Dockerfile and an OLM v1 ClusterCatalog; --dry-run writes nothing', async () => {
    expect(readFileSync(join(project, 'templates/template-written-from-the-bundles-minor-channels-.yaml'), 'utf8')).toContain('schema: olm.semver');
    const clusterCatalog = readFbc(join(project, 'config/catalog/clustercatalog.yaml'))[0]!;
    expect(clusterCatalog).toEqual({ apiVersion: 'olm.operatorframework.io/v1', kind: 'ClusterCatalog', metadata: { name: `${PKG}-catalog` }, spec: { source: { type: 'Image', image: { ref: `${PKG}-catalog:latest`, pollIntervalMinutes: 10 } } } });
    expect(readFileSync(join(project, 'catalog.Dockerfile'), 'utf8')).toContain('opm');
    const before = snapshot(project);
    const r = await opgenOk(project, 'catalog', 'render', '--template', 'templates/new.yaml', '--output-dir', 'out/dry', ...bundleArgs(), '--dry-run');
    expect(r.stdout).toContain('dry run: nothing was written');
    expect(snapshot(project)).toEqual(before);
  });

  it('refuses bad input in one line naming the file:line:column or flag, and writes nothing', async () => {
    const before = snapshot(project);
    writeFileSync(join(project, 'templates/bad-key.yaml'), 'schema: olm.semver\ngenerateMinorChannels: true\nstabel:\n  bundles: []\n');
    const badKey = await opgen(project, 'catalog', 'render', '--template', 'templates/bad-key.yaml', ...bundleArgs());
    expect(badKey).toMatchObject({ code: 1, stderr: "templates/bad-key.yaml:3:1: error: unknown key 'stabel' (use schema, generateMajorChannels, generateMinorChannels, defaultChannelTypePreference, candidate, fast, stable)\n" });
    writeFileSync(join(project, 'templates/bad-image.yaml'), `schema: olm.semver\nstable:\n  bundles:\n    - image: ${imageOf('0.1.0')}\n    - image: quay.io/example/other:v9\n`);
    const badImage = await opgen(project, 'catalog', 'render', '--template', 'templates/bad-image.yaml', ...bundleArgs());
    expect(badImage.code).toBe(1);
    expect(badImage.stderr).toMatch(/^templates\/bad-image\.yaml:5:7: error: stable lists quay\.io\/example\/other:v9, which is none of the bundles \(.+\) \(pass its bundle directory in --bundles, or fix --bundle-image\)\n$/);
    await opgenOk(project, 'generate', 'bundle', '--version', '2.0.0', '--channels', 'alpha', '--output-dir', 'bundles-alpha/2.0.0');
    const alpha = await opgen(project, 'catalog', 'render', '--template', 'templates/none.yaml', '--bundles', 'bundles-alpha/2.0.0');
    expect(alpha).toMatchObject({ code: 1, stderr: "--bundles: error: bundles-alpha/2.0.0 is in channel 'alpha'; a semver template knows only candidate, fast and stable (regenerate the bundle with --channels candidate|fast|stable, or list it in the template yourself (--template))\n" });
    const after = snapshot(project);
    for (const k of Object.keys(after)) if (k.startsWith('bundles-alpha/') || k === 'bundle.Dockerfile') delete after[k];
    for (const k of ['templates/bad-key.yaml', 'templates/bad-image.yaml']) delete after[k];
    const expected = { ...before };
    delete expected['bundle.Dockerfile'];
    expect(after).toEqual(expected);
  });
});

// Broken catalogs: the check opgen reports and the message operator-registry gives for it.
const pkg = (defaultChannel = 'stable', name = 'p'): Obj => ({ schema: 'olm.package', name, defaultChannel });
const bundle = (v: string, extra: Obj = {}): Obj => ({ schema: 'olm.bundle', name: `p.v${v}`, package: 'p', image: `quay.io/p/bundle:v${v}`, properties: [{ type: 'olm.package', value: { packageName: 'p', version: v } }], ...extra });
const channel = (entries: Obj[], name = 'stable', p = 'p'): Obj => ({ schema: 'olm.channel', package: p, name, entries });
const e = (v: string, replaces?: string, skips?: string[]): Obj => ({ name: `p.v${v}`, ...(replaces ? { replaces: `p.v${replaces}` } : {}), ...(skips ? { skips: skips.map((s) => (s === '' ? '' : `p.v${s}`)) } : {}) });
const good = (): Obj[] => [pkg(), channel([e('1.0.0'), e('1.1.0', '1.0.0'), e('1.2.0', '1.1.0')]), bundle('1.0.0'), bundle('1.1.0'), bundle('1.2.0')];

interface ValidateCase {
  name: string;
  docs: Obj[];
  /** Written as a stream of JSON values (what `opm render -o json` writes) instead of YAML documents. */
  json?: boolean;
  check?: string;
  oracle?: RegExp;
}

const validateCases: ValidateCase[] = [
  { name: 'valid', docs: good() },
  { name: 'valid, as a JSON stream', docs: good(), json: true },
  { name: 'two heads, as a JSON stream', docs: [pkg(), channel([e('1.0.0'), e('1.1.0')]), bundle('1.0.0'), bundle('1.1.0')], json: true, check: 'head', oracle: /multiple channel heads/ },
  { name: 'skips edges', docs: [pkg(), channel([e('1.0.0'), e('1.0.1', undefined, ['1.0.0']), e('1.1.0', '1.0.1', ['1.0.0'])]), bundle('1.0.0'), bundle('1.0.1'), bundle('1.1.0')] },
  { name: 'tail replaces a bundle outside the catalog', docs: [pkg(), channel([e('1.0.0', '0.9.0'), e('1.1.0', '1.0.0')]), bundle('1.0.0'), bundle('1.1.0')] },
  { name: 'two heads', docs: [pkg(), channel([e('1.0.0'), e('1.1.0'), e('1.2.0', '1.1.0')]), bundle('1.0.0'), bundle('1.1.0'), bundle('1.2.0')], check: 'head', oracle: /multiple channel heads/ },
  { name: 'no head', docs: [pkg(), channel([e('1.0.0', '1.1.0'), e('1.1.0', '1.0.0')]), bundle('1.0.0'), bundle('1.1.0')], check: 'head', oracle: /no channel head/ },
  { name: 'replaces cycle below the head', docs: [pkg(), channel([e('1.0.0', '1.1.0'), e('1.1.0', '1.0.0'), e('1.2.0', '1.1.0')]), bundle('1.0.0'), bundle('1.1.0'), bundle('1.2.0')], check: 'cycle', oracle: /detected cycle in replaces chain/ },
  {
    name: 'stranded bundle',
    docs: [pkg(), channel([e('1.0.0'), e('1.0.5'), e('1.1.0', '1.0.5'), e('2.0.0', '1.0.0', ['1.1.0'])]), bundle('1.0.0'), bundle('1.0.5'), bundle('1.1.0'), bundle('2.0.0')],
    check: 'stranded',
    oracle: /stranded bundles: p\.v1\.0\.5/,
  },
  // operator-registry turns a default channel that is not there into an empty channel of that name.
  { name: 'default channel missing', docs: [pkg('fast'), ...good().slice(1)], check: 'default-channel', oracle: /invalid channel "fast":\s+└── channel must contain at least one bundle/ },
  { name: 'no default channel', docs: [pkg(''), ...good().slice(1)], check: 'default-channel', oracle: /default channel must be set/ },
  { name: 'entry without a bundle', docs: [pkg(), channel([e('1.0.0'), e('1.1.0', '1.0.0')]), bundle('1.0.0')], check: 'entry-without-bundle', oracle: /no olm\.bundle blobs found in package "p" for olm\.channel entries/ },
  { name: 'bundle in no channel', docs: [...good(), bundle('0.9.0')], check: 'bundle-unlisted', oracle: /not found in any channel entries/ },
  { name: 'bundle twice', docs: [...good(), bundle('1.0.0')], check: 'duplicate-bundle', oracle: /duplicate bundle/ },
  { name: 'entry twice', docs: [pkg(), channel([e('1.0.0'), e('1.1.0', '1.0.0'), e('1.0.0')]), bundle('1.0.0'), bundle('1.1.0')], check: 'duplicate-entry', oracle: /duplicate entry/ },
  { name: 'channel twice', docs: [...good(), channel([e('1.2.0')])], check: 'duplicate-channel', oracle: /duplicate channel/ },
  { name: 'version not SemVer', docs: [pkg(), channel([e('1.0.0')]), bundle('1.0.0', { properties: [{ type: 'olm.package', value: { packageName: 'p', version: 'one' } }] })], check: 'bundle-version', oracle: /error parsing bundle "p\.v1\.0\.0" version "one"/ },
  { name: 'olm.package property of another package', docs: [pkg(), channel([e('1.0.0')]), bundle('1.0.0', { properties: [{ type: 'olm.package', value: { packageName: 'q', version: '1.0.0' } }] })], check: 'package-property', oracle: /does not match "olm\.package" property "q"/ },
  { name: 'no olm.package property', docs: [pkg(), channel([e('1.0.0')]), bundle('1.0.0', { properties: [] })], check: 'package-property', oracle: /must have exactly 1 "olm\.package" property/ },
  { name: 'channel of an unknown package', docs: [...good(), channel([e('1.2.0')], 'fast', 'q')], check: 'channel-package', oracle: /unknown package "q" for channel "fast"/ },
  { name: 'package name not a DNS-1123 label', docs: [pkg('stable', 'My_Package')], check: 'package-name', oracle: /invalid package name "My_Package"/ },
  { name: 'package without channels', docs: [pkg()], check: 'no-channels', oracle: /invalid channel "stable":\s+└── channel must contain at least one bundle/ },
  { name: 'empty channel', docs: [...good(), channel([], 'fast')], check: 'empty-channel', oracle: /channel must contain at least one bundle/ },
  { name: 'empty skip', docs: [pkg(), channel([e('1.0.0'), e('1.1.0', '1.0.0', [''])]), bundle('1.0.0'), bundle('1.1.0')], check: 'skip-empty', oracle: /skip\[0\] is empty/ },
  { name: 'bundle without an image', docs: [pkg(), channel([e('1.0.0')]), bundle('1.0.0', { image: '' })], check: 'bundle-image', oracle: /bundle image must be set/ },
];

describe('catalog validate against operator-registry\'s declcfg validation', () => {
  it.each(validateCases)('$name', async (c) => {
    const dir = join(root.dir, 'validate', c.name.replace(/[^a-z0-9]+/gi, '-'));
    mkdirSync(join(dir, 'p'), { recursive: true });
    if (c.json) writeFileSync(join(dir, 'p', 'catalog.json'), c.docs.map((d) => JSON.stringify(d, null, 2)).join('\n'));
    else writeFileSync(join(dir, 'p', 'catalog.yaml'), c.docs.map((d) => stringify(d)).join('---\n'));
    const r = await opgen(dir, 'catalog', 'validate', '.');
    const oracle = olmV1Oracle('catalog-validate', dir);
    validateVerdicts.push(oracle.verdict);
    expect(r.code === 0 ? 'pass' : 'fail').toBe(oracle.verdict);
    if (!c.check) {
      expect(r).toMatchObject({ code: 0, stderr: '' });
      return;
    }
    expect(oracle.message).toMatch(c.oracle!);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.map((l) => / \[([a-z-]+)\]$/.exec(l)?.[1])).toContain(c.check);
    for (const l of lines) expect(l).toMatch(/^p\/catalog\.(yaml|json):\d+:\d+: error: .+ \(.+\) \[[a-z-]+\]$/);
    if (c.json) expect(lines[0]).toMatch(/^p\/catalog\.json:(\d+):1: /); // each value's own line
  });
});
