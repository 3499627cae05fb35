// `opgen generate catalog`: three versions of the tutorial operator → a file-based catalog whose upgrade
// graph is checked; a cycle, a missing replaces, two heads and an unknown default channel are refused.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { opgen, opgenOk, oracle, oracleBinary, oracleErrors, scaffoldTutorial, snapshot, tempDir } from './helpers.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let root: { dir: string; cleanup: () => void };
let project: string;

async function bundle(version: string, ...flags: string[]): Promise<void> {
  await opgenOk(project, 'generate', 'bundle', '--version', version, '--channels', 'stable,fast', '--default-channel', 'stable', '--output-dir', `bundles/${version}`, ...flags);
}

beforeAll(async () => {
  oracleBinary();
  root = tempDir('opgen-olm-catalog-');
  project = await scaffoldTutorial(root.dir);
  await bundle('0.1.0');
  await bundle('0.2.0', '--replaces', 'memcached-operator.v0.1.0');
  await bundle('0.3.0', '--replaces', 'memcached-operator.v0.2.0', '--skip-range', '>=0.1.0 <0.3.0');
}, 900_000);
afterAll(() => root?.cleanup());

const three = 'bundles/0.1.0,bundles/0.2.0,bundles/0.3.0';

describe('generate catalog', () => {
  it('each of the three bundles passes opgen and operator-framework/api', async () => {
    for (const v of ['0.1.0', '0.2.0', '0.3.0']) {
      const r = await opgen(project, 'bundle', 'validate', `bundles/${v}`);
      expect(r.stderr, v).toBe('');
      expect(oracleErrors(oracle(join(project, 'bundles', v))), v).toEqual([]);
    }
  });

  it('writes olm.package, one olm.channel per channel with the upgrade edges, and an olm.bundle per version', async () => {
    await opgenOk(project, 'generate', 'catalog', '--bundles', three, '--bundle-image', 'quay.io/example/memcached-operator-bundle:v{version}', '--catalog-image', 'quay.io/example/memcached-operator-catalog:v0.3.0');
    const docs = parseAllDocuments(readFileSync(join(project, 'catalog/memcached-operator/catalog.yaml'), 'utf8')).map((d) => d.toJS() as Obj);
    expect(docs.filter((d) => d.schema === 'olm.package')).toEqual([{ schema: 'olm.package', name: 'memcached-operator', defaultChannel: 'stable' }]);
    const entries = [
      { name: 'memcached-operator.v0.1.0' },
      { name: 'memcached-operator.v0.2.0', replaces: 'memcached-operator.v0.1.0' },
      { name: 'memcached-operator.v0.3.0', replaces: 'memcached-operator.v0.2.0', skipRange: '>=0.1.0 <0.3.0' },
    ];
    expect(docs.filter((d) => d.schema === 'olm.channel')).toEqual([
      { schema: 'olm.channel', package: 'memcached-operator', name: 'fast', entries },
      { schema: 'olm.channel', package: 'memcached-operator', name: 'stable', entries },
    ]);
    const bundles = docs.filter((d) => d.schema === 'olm.bundle');
    expect(bundles.map((b) => [b.name, b.image])).toEqual([
      ['memcached-operator.v0.1.0', 'quay.io/example/memcached-operator-bundle:v0.1.0'],
      ['memcached-operator.v0.2.0', 'quay.io/example/memcached-operator-bundle:v0.2.0'],
      ['memcached-operator.v0.3.0', 'quay.io/example/memcached-operator-bundle:v0.3.0'],
    ]);
    const props = bundles[2]!.properties as Obj[];
    expect(props).toEqual(expect.arrayContaining([
      { type: 'olm.package', value: { packageName: 'memcached-operator', version: '0.3.0' } },
      { type: 'olm.gvk', value: { group: 'cache.example.com', kind: 'Memcached', version: 'v1alpha1' } },
    ]));
    // The bundle objects are the bundle's own CSV and CRD.
    const objects = props.filter((p) => p.type === 'olm.bundle.object').map((p) => JSON.parse(Buffer.from(p.value.data as string, 'base64').toString()) as Obj);
    expect(objects.map((o) => o.kind)).toEqual(['ClusterServiceVersion', 'CustomResourceDefinition']);
    expect(objects[0]).toEqual(parse(readFileSync(join(project, 'bundles/0.3.0/manifests/memcached-operator.clusterserviceversion.yaml'), 'utf8')));
    const dockerfile = readFileSync(join(project, 'catalog.Dockerfile'), 'utf8');
    expect(dockerfile).toContain('ADD catalog /configs\n');
    expect(dockerfile).toContain('LABEL operators.operatorframework.io.index.configs.v1=/configs\n');
    const source = parse(readFileSync(join(project, 'config/catalog/catalogsource.yaml'), 'utf8')) as Obj;
    expect(source).toMatchObject({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'CatalogSource', spec: { sourceType: 'grpc', image: 'quay.io/example/memcached-operator-catalog:v0.3.0' } });
    // Same input, same bytes.
    const before = snapshot(project);
    await opgenOk(project, 'generate', 'catalog', '--bundles', three, '--bundle-image', 'quay.io/example/memcached-operator-bundle:v{version}', '--catalog-image', 'quay.io/example/memcached-operator-catalog:v0.3.0');
    expect(snapshot(project)).toEqual(before);
  });

  const refused = async (bundles: string, extra: string[], pattern: RegExp): Promise<void> => {
    const before = snapshot(project);
    const r = await opgen(project, 'generate', 'catalog', '--bundles', bundles, '--output-dir', 'catalog-broken', ...extra);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(pattern);
    expect(r.stdout).toBe('');
    expect(existsSync(join(project, 'catalog-broken'))).toBe(false);
    expect(snapshot(project)).toEqual(before);
  };

  it('a replaces cycle is one line per channel naming the bundles in it', async () => {
    // 0.1.0 now replaces 0.3.0: 0.1.0 → 0.3.0 → 0.2.0 → 0.1.0.
    await opgenOk(project, 'generate', 'bundle', '--version', '0.1.0', '--channels', 'stable', '--replaces', 'memcached-operator.v0.3.0', '--output-dir', 'bundles/cycle-0.1.0');
    await refused('bundles/cycle-0.1.0,bundles/0.2.0,bundles/0.3.0', [], /^--bundles: error: channel stable: replaces cycle memcached-operator\.v0\.1\.0 → memcached-operator\.v0\.3\.0 → memcached-operator\.v0\.2\.0 → memcached-operator\.v0\.1\.0 \(/m);
  });

  it('a missing replaces names the bundle and what it replaces', async () => {
    await refused('bundles/0.1.0,bundles/0.3.0', [], /^--bundles: error: channel fast: memcached-operator\.v0\.3\.0 replaces memcached-operator\.v0\.2\.0, which is not in the channel/m);
  });

  it('two heads in a channel name both', async () => {
    await opgenOk(project, 'generate', 'bundle', '--version', '0.2.1', '--channels', 'stable,fast', '--replaces', 'memcached-operator.v0.1.0', '--output-dir', 'bundles/0.2.1');
    await refused('bundles/0.1.0,bundles/0.2.0,bundles/0.2.1', [], /^--bundles: error: channel fast: 2 heads \(memcached-operator\.v0\.2\.0, memcached-operator\.v0\.2\.1\)/m);
  });

  it('an unknown default channel', async () => {
    await refused(three, ['--default-channel', 'candidate'], /^--bundles: error: package memcached-operator: default channel 'candidate' has no bundles \(channels: fast, stable\)/m);
  });
});
