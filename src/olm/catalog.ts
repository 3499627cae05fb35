// `opgen generate catalog`: a file-based catalog (olm.package, olm.channel, olm.bundle) from bundle
// directories, with the upgrade graph checked the way opm checks it: every replaces present, one head
// per channel, no cycles, a default channel that exists. Plus catalog.Dockerfile and a CatalogSource.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { OpgenError, OpgenErrors } from '../diag/diagnostic.js';
import { checkDns1123Label } from '../naming/validate.js';
import { renderTemplates, type Tree } from '../scaffold/index.js';
import { toYaml } from '../common/yaml.js';
import { ANNOTATION } from './bundle-metadata.js';
import { CSV_KIND, isRecord, nameOf, parseYamlDocument, parseYamlObjects, yamlDocument, type KubeObject } from './objects.js';
import { compareSemVer, parseRange, parseSemVer, type SemVer } from './semver.js';

export interface CatalogOptions {
  bundles: string[];
  package?: string;
  defaultChannel?: string;
  bundleImage?: string;
  catalogImage?: string;
  outputDir: string;
}

export interface CatalogBundle {
  dir: string;
  name: string;
  package: string;
  version: string;
  semver: SemVer;
  channels: string[];
  defaultChannel?: string;
  replaces?: string;
  skips: string[];
  skipRange?: string;
  csv: KubeObject;
  crds: KubeObject[];
  relatedImages: { name: string; image: string }[];
}

export interface ChannelEntry {
  name: string;
  replaces?: string;
  skips?: string[];
  skipRange?: string;
}

/** Reads one bundle directory (as opgen writes them). */
export async function readBundle(cwd: string, dir: string): Promise<CatalogBundle> {
  const abs = resolve(cwd, dir);
  const shown = relative(cwd, abs) || '.';
  const manifests = join(abs, 'manifests');
  if (!existsSync(manifests)) throw new OpgenError(`${shown} is not a bundle (no manifests/)`, { flag: '--bundles' }, 'list bundle directories written by opgen generate bundle');
  let csv: KubeObject | undefined;
  const crds: KubeObject[] = [];
  for (const f of readdirSync(manifests).sort()) {
    const [o] = await parseYamlObjects(readFileSync(join(manifests, f), 'utf8'));
    if (o?.kind === CSV_KIND) csv = o;
    if (o?.kind === 'CustomResourceDefinition') crds.push(o);
  }
  if (!csv) throw new OpgenError(`${shown}/manifests has no ClusterServiceVersion`, { file: `${shown}/manifests` }, 'rerun opgen generate bundle');
  const annotationsPath = join(abs, 'metadata', 'annotations.yaml');
  const doc = existsSync(annotationsPath) ? await parseYamlDocument(readFileSync(annotationsPath, 'utf8')) : undefined;
  const ann = (isRecord(doc) && isRecord(doc.annotations) ? doc.annotations : {}) as Record<string, string>;
  const spec = (csv.spec ?? {}) as { version?: string; replaces?: string; skips?: string[]; relatedImages?: { name: string; image: string }[] };
  const version = String(spec.version ?? '');
  const semver = parseSemVer(version);
  const csvFile = `${shown}/manifests`;
  if (!semver) throw new OpgenError(`${nameOf(csv)}: spec.version '${version}' is not SemVer`, { file: csvFile }, 'rerun opgen generate bundle --version <semver>');
  const pkg = ann[ANNOTATION.package];
  if (!pkg) throw new OpgenError(`${shown} has no package annotation`, { file: `${shown}/metadata/annotations.yaml` }, 'rerun opgen generate bundle');
  const skipRange = csv.metadata?.annotations?.['olm.skipRange'];
  return {
    dir: shown,
    name: nameOf(csv),
    package: pkg,
    version,
    semver,
    channels: (ann[ANNOTATION.channels] ?? '').split(',').map((c) => c.trim()).filter((c) => c !== ''),
    defaultChannel: ann[ANNOTATION.defaultChannel],
    replaces: spec.replaces || undefined,
    skips: spec.skips ?? [],
    skipRange,
    csv,
    crds,
    relatedImages: spec.relatedImages ?? [],
  };
}

/**
 * The bundles of `--bundles` and their package (`--package`, else the first bundle's), checked: a valid
 * package name, every bundle of that package. `opgen generate catalog` and `opgen catalog render` read them so.
 */
export async function readBundles(cwd: string, dirs: string[], packageFlag: string | undefined): Promise<{ bundles: CatalogBundle[]; pkg: string }> {
  if (dirs.length === 0) throw new OpgenError('no bundles given', { flag: '--bundles' }, 'list bundle directories separated by commas');
  const bundles: CatalogBundle[] = [];
  for (const d of dirs) bundles.push(await readBundle(cwd, d));
  const pkg = packageFlag ?? bundles[0]!.package;
  const badPkg = checkDns1123Label(pkg);
  if (badPkg) throw new OpgenError(`package '${pkg}' ${badPkg}`, { flag: '--package' }, 'pass --package <name>');
  const foreign = bundles.find((b) => b.package !== pkg);
  if (foreign) throw new OpgenError(`${foreign.dir} belongs to package ${foreign.package}, not ${pkg}`, { flag: '--bundles' }, 'make a catalog package from bundles of one package');
  return { bundles, pkg };
}

/** The bundle's image: `--bundle-image` with {version} replaced, else `<package>-bundle:v<version>`. */
export function bundleImage(flag: string | undefined, pkg: string, b: CatalogBundle): string {
  return (flag ?? `${pkg}-bundle:v{version}`).replaceAll('{version}', b.version);
}

/** One olm.bundle blob, with the properties opm renders for a registry+v1 bundle. */
export function bundleBlob(b: CatalogBundle, pkg: string, image: string): Record<string, unknown> {
  const properties: object[] = [{ type: 'olm.package', value: { packageName: pkg, version: b.version } }];
  for (const c of b.crds) {
    const s = (c.spec ?? {}) as { group?: string; names?: { kind?: string }; versions?: { name: string }[] };
    for (const v of s.versions ?? []) properties.push({ type: 'olm.gvk', value: { group: s.group, kind: s.names?.kind, version: v.name } });
  }
  for (const obj of [b.csv, ...b.crds]) properties.push({ type: 'olm.bundle.object', value: { data: Buffer.from(JSON.stringify(obj)).toString('base64') } });
  return { schema: 'olm.bundle', name: b.name, package: pkg, image, properties, relatedImages: [{ name: '', image }, ...b.relatedImages] };
}

/** Channel name → entries, in version order. */
export function channelsOf(bundles: CatalogBundle[]): Map<string, ChannelEntry[]> {
  const out = new Map<string, ChannelEntry[]>();
  for (const b of [...bundles].sort((x, y) => compareSemVer(x.semver, y.semver))) {
    for (const c of b.channels) {
      const e: ChannelEntry = { name: b.name };
      if (b.replaces) e.replaces = b.replaces;
      if (b.skips.length > 0) e.skips = b.skips;
      if (b.skipRange) e.skipRange = b.skipRange;
      out.set(c, [...(out.get(c) ?? []), e]);
    }
  }
  return out;
}

/** The upgrade graph's problems, one line each naming the bundles involved. */
export function graphProblems(channels: Map<string, ChannelEntry[]>, defaultChannel: string | undefined, pkg: string): string[] {
  const problems: string[] = [];
  if (defaultChannel !== undefined && !channels.has(defaultChannel)) {
    problems.push(`package ${pkg}: default channel '${defaultChannel}' has no bundles (channels: ${[...channels.keys()].sort().join(', ') || 'none'})`);
  }
  for (const [channel, entries] of [...channels].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const names = new Set(entries.map((e) => e.name));
    for (const e of entries) {
      if (e.replaces && !names.has(e.replaces)) problems.push(`channel ${channel}: ${e.name} replaces ${e.replaces}, which is not in the channel`);
      if (e.skipRange && !parseRange(e.skipRange).ok) problems.push(`channel ${channel}: ${e.name} has an invalid skipRange '${e.skipRange}'`);
    }
    // Cycles along replaces.
    const byName = new Map(entries.map((e) => [e.name, e]));
    const reported = new Set<string>();
    for (const start of entries) {
      const path: string[] = [];
      const onPath = new Set<string>();
      let cur: ChannelEntry | undefined = start;
      while (cur && !onPath.has(cur.name)) {
        path.push(cur.name);
        onPath.add(cur.name);
        cur = cur.replaces ? byName.get(cur.replaces) : undefined;
      }
      if (cur && onPath.has(cur.name)) {
        const cycle = path.slice(path.indexOf(cur.name));
        const key = [...cycle].sort().join(',');
        if (!reported.has(key)) {
          reported.add(key);
          problems.push(`channel ${channel}: replaces cycle ${[...cycle, cur.name].join(' → ')}`);
        }
      }
    }
    // Heads: entries nothing else replaces or skips.
    const replaced = new Set(entries.flatMap((e) => [e.replaces ?? '', ...(e.skips ?? [])]));
    const heads = entries.filter((e) => !replaced.has(e.name)).map((e) => e.name);
    if (heads.length > 1) problems.push(`channel ${channel}: ${heads.length} heads (${heads.join(', ')}); each channel needs one newest bundle that replaces the others`);
    if (heads.length === 0 && reported.size === 0) problems.push(`channel ${channel}: no head (every bundle is replaced by another)`);
  }
  return problems;
}

/** Stages <output-dir>/<package>/catalog.yaml, catalog.Dockerfile and config/catalog/catalogsource.yaml. */
export async function stageCatalog(tree: Tree, cwd: string, o: CatalogOptions): Promise<void> {
  const outputDir = relative(cwd, resolve(cwd, o.outputDir)).replaceAll('\\', '/');
  if (outputDir === '' || outputDir.startsWith('..')) throw new OpgenError(`'${o.outputDir}' is not a folder inside the project`, { flag: '--output-dir' }, 'pass a folder such as catalog');
  const { bundles, pkg } = await readBundles(cwd, o.bundles, o.package);
  const seen = new Map<string, string>();
  for (const b of bundles) {
    const other = seen.get(b.name);
    if (other) throw new OpgenError(`${b.dir} and ${other} are both ${b.name}`, { flag: '--bundles' }, 'give each bundle its own version');
    seen.set(b.name, b.dir);
  }
  const newest = [...bundles].sort((a, b) => compareSemVer(b.semver, a.semver))[0]!;
  const defaultChannel = o.defaultChannel ?? newest.defaultChannel ?? newest.channels[0];
  const channels = channelsOf(bundles);
  const problems = graphProblems(channels, defaultChannel, pkg);
  if (problems.length > 0) throw new OpgenErrors(problems.map((p) => new OpgenError(p, { flag: '--bundles' }, 'fix --replaces/--channels of the bundles involved and regenerate them')));

  const docs: object[] = [{ schema: 'olm.package', name: pkg, defaultChannel }];
  for (const [name, entries] of [...channels].sort((a, b) => (a[0] < b[0] ? -1 : 1))) docs.push({ schema: 'olm.channel', package: pkg, name, entries });
  for (const b of [...bundles].sort((x, y) => compareSemVer(x.semver, y.semver))) docs.push(bundleBlob(b, pkg, bundleImage(o.bundleImage, pkg, b)));
  tree.write(`${outputDir}/${pkg}/catalog.yaml`, await toYaml(docs));
  renderTemplates(tree, 'olm/catalog', { data: { catalogDir: outputDir } });
  const source = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'CatalogSource',
    metadata: { name: `${pkg}-catalog`, namespace: 'olm' },
    spec: { displayName: `${pkg} catalog`, image: o.catalogImage ?? `${pkg}-catalog:latest`, sourceType: 'grpc', updateStrategy: { registryPoll: { interval: '10m' } } },
  };
  tree.write('config/catalog/catalogsource.yaml', await yamlDocument(source));
}
