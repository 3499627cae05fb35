// `opgen catalog render`: a file-based catalog (olm.package, olm.channel, olm.bundle) from a semver
// template over the project's bundles, the upgrade graph checked before anything is written; plus
// catalog.Dockerfile and a ClusterCatalog for OLM v1. `opgen catalog validate`: opm's checks on any FBC.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { CommandContext } from '../common/command-context.js';
import type { Document } from 'yaml';
import { OpgenError, OpgenErrors, type Position } from '../diag/diagnostic.js';
import { toYaml } from '../common/yaml.js';
import { bundleBlob, bundleImage, readBundles, type CatalogBundle } from '../olm/catalog.js';
import { compareSemVer } from '../olm/semver.js';
import { commitTree, renderTemplates, Tree } from '../scaffold/index.js';
import { ARCHETYPES, generateChannels, templateSettings, type Archetype, type RenderedBundle, type SemverTemplate } from './semver-template.js';
import { validateCatalog, type Meta } from './validate.js';

export interface CatalogRenderOptions {
  template: string;
  bundles: string[];
  bundleImage?: string;
  catalogImage?: string;
  package?: string;
  outputDir: string;
  majorChannels: boolean;
  dryRun: boolean;
}

const TEMPLATE_KEYS = new Set(['schema', 'generateMajorChannels', 'generateMinorChannels', 'defaultChannelTypePreference', ...ARCHETYPES]);

export async function catalogRenderCommand(ctx: CommandContext, o: CatalogRenderOptions): Promise<number> {
  const tree = new Tree(ctx.cwd);
  const outputDir = inside(ctx.cwd, o.outputDir, '--output-dir');
  const templatePath = inside(ctx.cwd, o.template, '--template');
  const { bundles, pkg } = await readBundles(ctx.cwd, o.bundles, o.package);
  const imageOf = (b: CatalogBundle): string => bundleImage(o.bundleImage, pkg, b);
  const byImage = new Map<string, CatalogBundle>();
  for (const b of bundles) {
    const other = byImage.get(imageOf(b));
    if (other) throw new OpgenError(`${b.dir} and ${other.dir} are both ${imageOf(b)}`, { flag: '--bundle-image' }, 'put {version} in the image reference');
    byImage.set(imageOf(b), b);
  }

  // The template: the user's, with bundles it does not list yet added under their channels (a rerun after
  // generate bundle), or one written from the bundles' channels.
  let template: SemverTemplate;
  let lookup: (path: (string | number)[]) => Position;
  if (existsSync(join(ctx.cwd, templatePath))) {
    const read = await readTemplate(ctx.cwd, templatePath);
    ({ template, lookup } = read);
    const listedImages = new Set(ARCHETYPES.flatMap((a) => (template[a]?.bundles ?? []).map((e) => e.image)));
    const unlisted = bundles.filter((b) => !listedImages.has(imageOf(b))).sort((x, y) => compareSemVer(x.semver, y.semver));
    if (unlisted.length > 0) {
      const { isMap, isSeq } = await import('yaml');
      const doc = read.doc;
      for (const b of unlisted) {
        const archetypes = archetypesOf(b);
        for (const a of archetypes) {
          const section = doc.get(a);
          if (!isMap(section)) doc.set(a, doc.createNode({ bundles: [] }));
          else if (!isSeq(section.get('bundles'))) section.set('bundles', doc.createNode([]));
          doc.addIn([a, 'bundles'], doc.createNode({ image: imageOf(b) }));
        }
        ctx.out(`${templatePath}: added ${imageOf(b)} (${b.dir}) under ${archetypes.join(', ')}`);
      }
      tree.write(templatePath, doc.toString({ lineWidth: 0 }));
      template = doc.toJS() as SemverTemplate;
    }
  } else {
    template = templateFromBundles(bundles, imageOf, o.majorChannels);
    tree.write(templatePath, await toYaml([template], '# Semver catalog template (operator-registry\'s olm.semver, `opm alpha render-template semver`):\n# list each bundle image under the channels it ships in; `opgen catalog render` generates the rest.\n'));
    lookup = () => ({ file: templatePath });
  }
  let settings: ReturnType<typeof templateSettings>;
  try {
    settings = templateSettings(template);
  } catch (e) {
    throw new OpgenError((e as Error).message, lookup(['defaultChannelTypePreference']), 'make the preference match a generated channel kind');
  }
  const byArchetype = {} as Record<Archetype, RenderedBundle[]>;
  for (const a of ARCHETYPES) {
    const chosen: CatalogBundle[] = [];
    for (const [i, entry] of (template[a]?.bundles ?? []).entries()) {
      const b = byImage.get(entry.image);
      if (!b) throw new OpgenError(`${a} lists ${entry.image}, which is none of the bundles (${[...byImage.keys()].join(', ')})`, lookup([a, 'bundles', i, 'image']), 'pass its bundle directory in --bundles, or fix --bundle-image');
      // opm refuses two bundles of a channel whose versions differ in build metadata alone (or not at all).
      if (chosen.some((x) => compareSemVer(x.semver, b.semver) === 0)) throw new OpgenError(`${a} lists version ${b.version} twice`, lookup([a, 'bundles', i, 'image']), 'list each version once per channel');
      chosen.push(b);
    }
    byArchetype[a] = chosen.map((b) => ({ name: b.name, version: b.semver }));
  }
  const listed = new Set(ARCHETYPES.flatMap((a) => byArchetype[a].map((b) => b.name)));
  if (listed.size === 0) throw new OpgenError('the template lists no bundles', lookup([]), 'list bundle images under candidate, fast or stable');
  const { channels, defaultChannel } = generateChannels(byArchetype, settings);

  const catalogFile = `${outputDir}/${pkg}/catalog.yaml`;
  const docs: Record<string, unknown>[] = [{ schema: 'olm.package', name: pkg, defaultChannel }];
  for (const ch of channels) docs.push({ schema: 'olm.channel', package: pkg, name: ch.name, entries: ch.entries });
  for (const b of bundles.filter((x) => listed.has(x.name)).sort((x, y) => compareSemVer(x.semver, y.semver))) docs.push(bundleBlob(b, pkg, imageOf(b)));
  const problems = validateCatalog(docs.map((value) => ({ value, at: catalogFile })));
  if (problems.length > 0) throw new OpgenErrors(problems.map((p) => new OpgenError(`${p.message} [${p.check}]`, { file: p.at }, p.fix)));

  tree.write(catalogFile, await toYaml(docs));
  renderTemplates(tree, 'olm/catalog', { data: { catalogDir: outputDir } });
  const clusterCatalog = {
    apiVersion: 'olm.operatorframework.io/v1',
    kind: 'ClusterCatalog',
    metadata: { name: `${pkg}-catalog` },
    spec: { source: { type: 'Image', image: { ref: o.catalogImage ?? `${pkg}-catalog:latest`, pollIntervalMinutes: 10 } } },
  };
  tree.write('config/catalog/clustercatalog.yaml', (await toYaml([clusterCatalog])).replace(/^---\n/, ''));
  const changes = commitTree(tree, { dryRun: o.dryRun, out: ctx.out });
  if (o.dryRun) ctx.out(changes.length === 0 ? 'dry run: nothing would change' : 'dry run: nothing was written');
  ctx.out(`${catalogFile}: ${channels.length} channel${channels.length === 1 ? '' : 's'} (${channels.map((c) => c.name).join(', ')}), default ${defaultChannel}`);
  return 0;
}

function inside(cwd: string, path: string, flag: string): string {
  const rel = relative(cwd, resolve(cwd, path)).replaceAll('\\', '/');
  if (rel === '' || rel.startsWith('..')) throw new OpgenError(`'${path}' is not inside the project`, { flag }, `pass a path such as ${flag === '--template' ? 'semver-template.yaml' : 'catalog'}`);
  return rel;
}

/** The template written for bundles whose channels are candidate, fast or stable (or `<archetype>-v…`). */
function templateFromBundles(bundles: CatalogBundle[], imageOf: (b: CatalogBundle) => string, major: boolean): SemverTemplate {
  const t: SemverTemplate = { schema: 'olm.semver', generateMajorChannels: major, generateMinorChannels: true };
  for (const b of [...bundles].sort((x, y) => compareSemVer(x.semver, y.semver))) {
    for (const archetype of archetypesOf(b)) {
      const list = (t[archetype] ??= { bundles: [] }).bundles!;
      if (!list.some((x) => x.image === imageOf(b))) list.push({ image: imageOf(b) });
    }
  }
  return t;
}

/** The template channels a bundle's channels (candidate, fast, stable, or `<one of them>-v…`) put it in. */
function archetypesOf(b: CatalogBundle): Archetype[] {
  const out = new Set<Archetype>();
  for (const c of b.channels) {
    const archetype = ARCHETYPES.find((a) => c === a || c.startsWith(`${a}-v`));
    if (!archetype) {
      throw new OpgenError(`${b.dir} is in channel '${c}'; a semver template knows only candidate, fast and stable`, { flag: '--bundles' }, 'regenerate the bundle with --channels candidate|fast|stable, or list it in the template yourself (--template)');
    }
    out.add(archetype);
  }
  return ARCHETYPES.filter((a) => out.has(a));
}

async function readTemplate(cwd: string, path: string): Promise<{ template: SemverTemplate; lookup: (p: (string | number)[]) => Position; doc: Document.Parsed }> {
  const { LineCounter, parseDocument } = await import('yaml');
  const { locateIn } = await import('../crd-upgrade/yaml-locate.js');
  const lc = new LineCounter();
  const doc = parseDocument(readFileSync(join(cwd, path), 'utf8'), { lineCounter: lc });
  const first = doc.errors[0];
  if (first) {
    const p = lc.linePos(first.pos[0]);
    throw new OpgenError(`not valid YAML: ${first.message.split('\n')[0]}`, { file: path, line: p.line, column: p.col }, 'fix the YAML');
  }
  const locate = locateIn(doc, lc);
  const lookup = (segs: (string | number)[]): Position => ({ file: path, ...locate(segs) });
  const value = doc.toJS() as unknown;
  const fail = (segs: (string | number)[], message: string, fix: string): never => {
    throw new OpgenError(message, lookup(segs), fix);
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail([], 'the template is not a YAML mapping', 'start from the template opgen catalog render writes');
  const t = value as Record<string, unknown>;
  if (t.schema !== 'olm.semver') fail(['schema'], `schema is ${JSON.stringify(t.schema ?? null)}, not olm.semver`, 'write schema: olm.semver');
  for (const k of Object.keys(t)) if (!TEMPLATE_KEYS.has(k)) fail([k], `unknown key '${k}'`, `use ${[...TEMPLATE_KEYS].join(', ')}`);
  for (const k of ['generateMajorChannels', 'generateMinorChannels'] as const) if (t[k] !== undefined && typeof t[k] !== 'boolean') fail([k], `${k} must be true or false`, `write ${k}: true`);
  if (t.defaultChannelTypePreference !== undefined && t.defaultChannelTypePreference !== 'minor' && t.defaultChannelTypePreference !== 'major') {
    fail(['defaultChannelTypePreference'], `defaultChannelTypePreference '${String(t.defaultChannelTypePreference)}' is neither minor nor major`, 'write minor or major');
  }
  for (const a of ARCHETYPES) {
    const section = t[a] as Record<string, unknown> | undefined;
    if (section === undefined || section === null) continue;
    const list = (section as { bundles?: unknown }).bundles;
    if (typeof section !== 'object' || Object.keys(section).some((k) => k !== 'bundles') || (list !== undefined && !Array.isArray(list))) fail([a], `${a} must be {bundles: [{image: …}]}`, 'list the images under bundles:');
    for (const [i, e] of ((list as unknown[] | undefined) ?? []).entries()) {
      if (e === null || typeof e !== 'object' || typeof (e as { image?: unknown }).image !== 'string' || Object.keys(e).length !== 1) fail([a, 'bundles', i], `${a}.bundles[${i}] must be {image: <bundle image>}`, 'write - image: <bundle image>');
    }
  }
  return { template: t as unknown as SemverTemplate, lookup, doc };
}

export interface CatalogValidateOptions {
  dir: string;
}

/** opm's checks on a file-based catalog folder; one line per problem. */
export async function catalogValidateCommand(ctx: CommandContext, o: CatalogValidateOptions): Promise<number> {
  const abs = resolve(ctx.cwd, o.dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new OpgenError(`${o.dir}: no such folder`, { flag: 'catalog validate' }, 'pass the catalog folder (opgen catalog render writes catalog/)');
  const metas = await loadFbc(ctx.cwd, abs);
  const problems = validateCatalog(metas);
  for (const p of problems) ctx.err(`${p.at}: error: ${p.message} (${p.fix}) [${p.check}]`);
  if (problems.length === 0) ctx.out(`${o.dir}: catalog is valid (${metas.filter((m) => m.value.schema === 'olm.package').length} package(s), ${metas.filter((m) => m.value.schema === 'olm.bundle').length} bundle(s))`);
  return problems.length > 0 ? 1 : 0;
}

/**
 * Every blob with a schema in the folder's .yaml, .yml and .json files, as opm's loader reads them: YAML
 * documents, or JSON values one after another (what `opm render -o json` writes).
 */
async function loadFbc(cwd: string, dir: string): Promise<Meta[]> {
  const { LineCounter, parseAllDocuments } = await import('yaml');
  const out: Meta[] = [];
  const walk = (d: string): string[] => readdirSync(d).sort().flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : /\.(ya?ml|json)$/.test(f) ? [join(d, f)] : []));
  for (const file of walk(dir)) {
    const shown = relative(cwd, file) || file;
    const text = readFileSync(file, 'utf8');
    const lc = new LineCounter();
    const values: { value: unknown; offset: number }[] = [];
    if (file.endsWith('.json')) {
      lc.addNewLine(0);
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lc.addNewLine(i + 1);
      for (const v of jsonValues(text)) {
        if ('error' in v) {
          const p = lc.linePos(v.offset);
          throw new OpgenError(`not valid JSON: ${v.error}`, { file: shown, line: p.line, column: p.col }, 'fix the file');
        }
        values.push(v);
      }
    } else {
      for (const doc of parseAllDocuments(text, { lineCounter: lc })) {
        if (!('errors' in doc)) continue;
        if (doc.errors[0]) {
          const p = lc.linePos(doc.errors[0].pos[0]);
          throw new OpgenError(`not valid YAML: ${doc.errors[0].message.split('\n')[0]}`, { file: shown, line: p.line, column: p.col }, 'fix the file');
        }
        values.push({ value: doc.toJS() as unknown, offset: (doc.contents as { range?: [number] } | null)?.range?.[0] ?? 0 });
      }
    }
    for (const { value, offset } of values) {
      if (value === null || typeof value !== 'object' || Array.isArray(value) || typeof (value as { schema?: unknown }).schema !== 'string') continue;
      const p = lc.linePos(offset);
      out.push({ value: value as Record<string, unknown>, at: `${shown}:${p.line}:${p.col}` });
    }
  }
  return out;
}

/** Consecutive JSON values in `text`, each with the offset it starts at (or where it fails to parse). */
function jsonValues(text: string): ({ value: unknown; offset: number } | { error: string; offset: number })[] {
  const out: ({ value: unknown; offset: number } | { error: string; offset: number })[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) break;
    const start = i;
    let depth = 0;
    let inString = false;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (--depth === 0) {
          i++;
          break;
        }
      } else if (depth === 0 && /\s/.test(c)) break;
    }
    try {
      out.push({ value: JSON.parse(text.slice(start, i)) as unknown, offset: start });
    } catch (e) {
      out.push({ error: (e as Error).message, offset: start });
      break;
    }
  }
  return out;
}
