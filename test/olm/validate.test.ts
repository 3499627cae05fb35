// `opgen bundle validate` against operator-framework/api's validators (the oracle) on broken bundles:
// one defect each, copied from a good bundle of the tutorial operator. Where the oracle has no such check,
// the case says so and asserts the oracle's silence, so a future oracle that learns the check shows up.
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { copyBundle, opgen, opgenOk, oracle, oracleBinary, oracleErrors, scaffoldTutorial, tempDir } from './helpers.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let root: { dir: string; cleanup: () => void };
let project: string;
const CSV = 'manifests/memcached-operator.clusterserviceversion.yaml';

beforeAll(async () => {
  oracleBinary();
  root = tempDir('opgen-olm-validate-');
  project = await scaffoldTutorial(root.dir);
  await opgenOk(project, 'generate', 'bundle', '--version', '0.2.0', '--channels', 'stable', '--replaces', 'memcached-operator.v0.1.0', '--skip-range', '>=0.1.0 <0.2.0');
}, 900_000);
afterAll(() => root?.cleanup());

function editYaml(path: string, edit: (o: Obj) => void): void {
  const o = parse(readFileSync(path, 'utf8')) as Obj;
  edit(o);
  writeFileSync(path, stringify(o));
}

let n = 0;
/** A copy of the good bundle with one defect; returns the bundle folder. */
function broken(defect: (bundle: string) => void): string {
  const bundle = copyBundle(project, join(root.dir, `case-${++n}`));
  defect(bundle);
  return bundle;
}

const csv = (edit: (o: Obj) => void) => (bundle: string): void => editYaml(join(bundle, CSV), edit);

interface Case {
  defect: string;
  apply: (bundle: string) => void;
  /** What opgen's line must say (file and field included). */
  opgen: RegExp;
  /** What the oracle must say; `null`: the oracle has no such check (see why). */
  oracle: RegExp | null;
  why?: string;
}

const cases: Case[] = [
  { defect: 'a CSV name that is not DNS-1123', apply: csv((o) => (o.metadata.name = 'Memcached_Operator.v0.2.0')), opgen: /clusterserviceversion\.yaml: error: metadata\.name: 'Memcached_Operator\.v0\.2\.0' must be a DNS-1123 subdomain/, oracle: /metadata\.name "Memcached_Operator\.v0\.2\.0" is invalid/ },
  { defect: 'an invalid replaces', apply: csv((o) => (o.spec.replaces = 'memcached operator')), opgen: /error: spec\.replaces: 'memcached operator' must be a DNS-1123 subdomain/, oracle: /spec\.replaces "memcached operator" is invalid/ },
  { defect: 'a spec.version that is no version at all', apply: csv((o) => (o.spec.version = 'latest')), opgen: /error: spec\.version: 'latest' is not SemVer/, oracle: /unable to parse CSV/ },
  {
    defect: 'a spec.version that is not strict SemVer',
    apply: csv((o) => (o.spec.version = '0.2')),
    opgen: /error: spec\.version: '0\.2' is not SemVer/,
    oracle: null,
    why: 'operator-framework/api reads spec.version with semver.ParseTolerant (0.2 becomes 0.2.0, a leading v is dropped); opgen asks for the strict SemVer the CSV name <package>.v<version> and the catalog\'s olm.package version carry',
  },
  { defect: 'no displayName', apply: csv((o) => delete o.spec.displayName), opgen: /error: spec\.displayName: missing/, oracle: /Spec\.DisplayName/ },
  { defect: 'no install strategy', apply: csv((o) => (o.spec.install.strategy = '')), opgen: /error: spec\.install\.strategy: missing/, oracle: /InstallStrategy\.StrategyName/ },
  { defect: 'no installModes', apply: csv((o) => delete o.spec.installModes), opgen: /error: spec\.installModes: missing/, oracle: /install modes not found/ },
  {
    defect: 'a duplicate installMode',
    apply: csv((o) => o.spec.installModes.push({ type: 'AllNamespaces', supported: true })),
    opgen: /error: spec\.installModes: AllNamespaces is listed twice/,
    oracle: null,
    why: 'operator-framework/api v0.30.0 means to report "duplicate install modes present" but never fills the set it looks duplicates up in (validateInstallModes in pkg/validation/internal/csv.go), so it cannot fire',
  },
  { defect: 'no supported installMode', apply: csv((o) => o.spec.installModes.forEach((m: Obj) => (m.supported = false))), opgen: /error: spec\.installModes: none is supported/, oracle: /none of InstallModeTypes are supported/ },
  {
    defect: 'a conversion webhook with namespaced install modes',
    apply: csv((o) => {
      o.spec.installModes[0].supported = true;
      o.spec.webhookdefinitions = [{ type: 'ConversionWebhook', generateName: 'cmemcacheds.cache.example.com', deploymentName: 'memcached-operator-controller-manager', containerPort: 443, sideEffects: 'None', admissionReviewVersions: ['v1'], conversionCRDs: ['memcacheds.cache.example.com'], webhookPath: '/convert' }];
    }),
    opgen: /error: spec\.installModes: conversion webhooks are declared, so only AllNamespaces may be supported/,
    oracle: /only AllNamespaces InstallModeType is supported when conversionCRDs is present/,
  },
  { defect: 'a non-SemVer minKubeVersion', apply: csv((o) => (o.spec.minKubeVersion = 'v1.28')), opgen: /error: spec\.minKubeVersion: 'v1\.28' is not SemVer/, oracle: /MinKubeVersion has an invalid value: v1\.28/ },
  { defect: 'alm-examples that are not JSON', apply: csv((o) => (o.metadata.annotations['alm-examples'] = '[{"kind": ')), opgen: /error: metadata\.annotations\["alm-examples"\]: not valid JSON/, oracle: /invalid example/ },
  {
    defect: 'an example of an API the CSV does not provide',
    apply: csv((o) => (o.metadata.annotations['alm-examples'] = JSON.stringify([{ apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached', metadata: { name: 'a' }, spec: { containerPort: 1 } }, { apiVersion: 'cache.example.com/v1', kind: 'Redis', metadata: { name: 'b' } }]))),
    opgen: /error: metadata\.annotations\["alm-examples"\]\[1\]: example of cache\.example\.com\/v1\/Redis, which the CSV does not provide/,
    oracle: /example must have a provided API/,
  },
  { defect: 'an owned CRD missing from the bundle', apply: (b) => rmSync(join(b, 'manifests/cache.example.com_memcacheds.yaml')), opgen: /error: spec\.customresourcedefinitions\.owned\[0\]: owned CRD memcacheds\.cache\.example\.com v1alpha1 Memcached is not in the bundle/, oracle: /owned CRD "cache\.example\.com\/v1alpha1, Kind=Memcached" not found in bundle/ },
  { defect: 'a bundled CRD the CSV does not own', apply: csv((o) => (o.spec.customresourcedefinitions.owned = [])), opgen: /cache\.example\.com_memcacheds\.yaml: error: CRD cache\.example\.com\/v1alpha1\/Memcached is in the bundle but the CSV does not own it/, oracle: /is present in bundle .* but not defined in CSV/ },
  {
    defect: 'a bundled ServiceAccount named like the CSV\'s',
    apply: (b) => writeFileSync(join(b, 'manifests/memcached-operator-controller-manager_v1_serviceaccount.yaml'), stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'memcached-operator-controller-manager' } })),
    opgen: /serviceaccount\.yaml: error: metadata\.name: ServiceAccount memcached-operator-controller-manager is the one the CSV's deployment runs as/,
    oracle: /invalid service account found in bundle/,
  },
  {
    defect: 'a bundle over 1 MiB compressed',
    apply: (b) => writeFileSync(join(b, 'manifests/big_v1_configmap.yaml'), stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { blob: randomBytes(800_000).toString('base64') } })),
    opgen: /bundle: error: compressed size \d+ bytes exceeds the 1 MiB OLM can stage/,
    oracle: /maximum bundle compressed size with gzip size exceeded/,
  },
  { defect: 'olm.skipRange in the wrong case', apply: csv((o) => { o.metadata.annotations['olm.skiprange'] = o.metadata.annotations['olm.skipRange']; delete o.metadata.annotations['olm.skipRange']; }), opgen: /error: metadata\.annotations\["olm\.skiprange"\]: wrong case; OLM reads olm\.skipRange/, oracle: /provided annotation olm\.skiprange uses wrong case and should be olm\.skipRange instead/ },
  {
    defect: 'an olm.skipRange that is not a range',
    apply: csv((o) => (o.metadata.annotations['olm.skipRange'] = '>=0.1 <0.2.0')),
    opgen: /error: metadata\.annotations\["olm\.skipRange"\]: '>=0\.1 <0\.2\.0' is not a version range/,
    oracle: null,
    why: 'operator-framework/api checks only the annotation\'s case; opm and OLM parse the range when the catalog is built or the bundle resolved',
  },
  {
    defect: 'an example the CRD schema refuses',
    apply: csv((o) => (o.metadata.annotations['alm-examples'] = JSON.stringify([{ apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached', metadata: { name: 'a' }, spec: { size: 'three', containerPort: 11211 } }]))),
    opgen: /error: metadata\.annotations\["alm-examples"\]\[0\]: Memcached a: spec\.size: must be an integer/,
    oracle: null,
    why: 'operator-framework/api only checks that examples name provided APIs; the API server refuses the example when a user creates it from the console',
  },
  {
    defect: 'a Dockerfile label that differs from annotations.yaml',
    apply: (b) => writeFileSync(join(b, '../bundle.Dockerfile'), readFileSync(join(b, '../bundle.Dockerfile'), 'utf8').replace('bundle.channels.v1=stable', 'bundle.channels.v1=beta')),
    opgen: /bundle\.Dockerfile: error: LABEL operators\.operatorframework\.io\.bundle\.channels\.v1: is 'beta' but metadata\/annotations\.yaml says 'stable'/,
    oracle: null,
    why: 'operator-framework/api reads the bundle directory, not the Dockerfile; opm compares the image labels with annotations.yaml when it adds the bundle',
  },
  {
    defect: 'a relatedImages entry that is not an image reference',
    apply: csv((o) => o.spec.relatedImages.push({ name: 'memcached', image: 'Memcached:1.6 latest' })),
    opgen: /error: spec\.relatedImages\[1\]\.image: 'Memcached:1\.6 latest' is not an image reference/,
    oracle: null,
    why: 'operator-framework/api does not parse relatedImages (its multiarch suite only inspects them with a container tool); opm refuses the reference when rendering the catalog',
  },
  {
    defect: 'a default channel outside the channels',
    apply: (b) => editYaml(join(b, 'metadata/annotations.yaml'), (o) => (o.annotations['operators.operatorframework.io.bundle.channel.default.v1'] = 'fast')),
    opgen: /annotations\.yaml: error: annotations\["operators\.operatorframework\.io\.bundle\.channel\.default\.v1"\]: default channel 'fast' is not one of the channels \(stable\)/,
    oracle: null,
    why: 'operator-framework/api copies channels from annotations.yaml without checking them; opm refuses the bundle when it builds the package',
  },
];

describe('bundle validate vs operator-framework/api on one-defect bundles', () => {
  it('the good bundle passes both', async () => {
    const bundle = broken(() => undefined);
    const r = await opgen(root.dir, 'bundle', 'validate', bundle);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(oracleErrors(oracle(bundle))).toEqual([]);
  });

  for (const c of cases) {
    it(`${c.defect}: ${c.oracle ? 'both report it' : 'opgen reports it (the oracle has no such check)'}`, async () => {
      const bundle = broken(c.apply);
      const r = await opgen(join(bundle, '..'), 'bundle', 'validate', 'bundle');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(c.opgen);
      // One line per problem: file, (field,) what is wrong, and the fix in parentheses.
      for (const line of r.stderr.trimEnd().split('\n')) expect(line).toMatch(/^\S+: (error|warning): .* \(.+\)$/);
      const o = oracle(bundle);
      if (c.oracle) {
        expect(o.code, o.text).toBe(1);
        expect(oracleErrors(o).join('\n')).toMatch(c.oracle);
      } else {
        // Disagreement by design (c.why); the oracle accepting the bundle keeps the note honest.
        expect(c.why).toBeTruthy();
        expect(oracleErrors(o), c.why).toEqual([]);
      }
    });
  }

  it('a bundle near the size limit: both warn, opgen exits 0', async () => {
    const bundle = broken((b) => writeFileSync(join(b, 'manifests/big_v1_configmap.yaml'), stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { blob: randomBytes(680_000).toString('base64') } })));
    const r = await opgen(root.dir, 'bundle', 'validate', bundle);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/warning: compressed size \d+ bytes is over 85 % of the 1 MiB limit/);
    const o = oracle(bundle);
    expect(oracleErrors(o)).toEqual([]);
    expect(o.results.some((f) => f.level === 'warning' && /nearing maximum bundle compressed size/.test(f.text))).toBe(true);
  });

  it('--select-optional suite=operatorframework: both report what OperatorHub needs (here an empty icon)', async () => {
    // The base CSV's placeholder icon, as operator-sdk's, is for the user to fill in.
    const bundle = broken(() => undefined);
    const r = await opgen(root.dir, 'bundle', 'validate', bundle, '--select-optional', 'suite=operatorframework');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: spec\.icon\[0\]: needs both base64data and mediatype/);
    expect(oracleErrors(oracle(bundle, 'operatorframework')).join('\n')).toMatch(/csv\.Spec\.Icon elements should contain both data and mediatype/);
    const bad = await opgen(root.dir, 'bundle', 'validate', bundle, '--select-optional', 'suite=everything');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^--select-optional: error: unknown selector 'suite=everything' \(use --select-optional suite=operatorframework\)\n$/);
  });

  it('--select-optional suite=operatorframework: both warn about a channel outside OLM\'s naming convention', async () => {
    const bundle = broken((b) => {
      editYaml(join(b, 'metadata/annotations.yaml'), (o) => (o.annotations['operators.operatorframework.io.bundle.channels.v1'] = 'stable,preview'));
      writeFileSync(join(b, '../bundle.Dockerfile'), readFileSync(join(b, '../bundle.Dockerfile'), 'utf8').replace('bundle.channels.v1=stable', 'bundle.channels.v1=stable,preview'));
    });
    const r = await opgen(root.dir, 'bundle', 'validate', bundle, '--select-optional', 'suite=operatorframework');
    expect(r.stdout).toMatch(/annotations\.yaml: warning: annotations\["operators\.operatorframework\.io\.bundle\.channels\.v1"\]: channel preview does not follow OLM's naming convention/);
    const o = oracle(bundle, 'operatorframework');
    expect(o.results.some((f) => f.level === 'warning' && /channel\(s\) \["preview"\] are not following the recommended naming convention/.test(f.text))).toBe(true);
  });

  it('a multi-document file: opgen says OLM reads only the first object', async () => {
    const bundle = broken((b) => appendFileSync(join(b, 'manifests/memcached-operator-metrics-reader_rbac.authorization.k8s.io_v1_clusterrole.yaml'), '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n'));
    const r = await opgen(root.dir, 'bundle', 'validate', bundle);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/clusterrole\.yaml: error: holds 2 objects; OLM reads only the first \(put each object in a file of its own\)/);
  });
});
