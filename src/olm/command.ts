// The OLM commands: `generate kustomize manifests`, `generate bundle`, `generate catalog` and
// `bundle validate`. Inputs are checked first; every file is staged in a Tree and written at once.
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { CommandContext } from '../common/command-context.js';
import { OpgenError } from '../diag/diagnostic.js';
import { renderKustomize } from '../kustomize/render.js';
import { checkDns1123Label } from '../naming/validate.js';
import { loadProject } from '../project/index.js';
import { Tree } from '../scaffold/index.js';
import { commitTree } from '../scaffold/index.js';
import { stageKustomizeManifests } from './base-csv.js';
import { buildBundle } from './bundle.js';
import { ANNOTATION, readPreviousMetadata, stageBundle } from './bundle-metadata.js';
import type { BundleInputs } from './bundle-model.js';
import type { CatalogOptions } from './catalog.js';
import { checkCsvName } from './names.js';
import { parseRange, parseSemVer } from './semver.js';

export interface KustomizeManifestsOptions {
  package?: string;
  dryRun: boolean;
}

export async function kustomizeManifestsCommand(ctx: CommandContext, o: KustomizeManifestsOptions): Promise<number> {
  const tree = new Tree(ctx.cwd);
  const project = loadProject(tree);
  const pkg = checkPackage(o.package ?? project.projectName);
  await stageKustomizeManifests(tree, { cwd: ctx.cwd, project, package: pkg });
  commit(ctx, tree, o.dryRun);
  return 0;
}

export interface GenerateBundleOptions {
  version?: string;
  channels?: string;
  defaultChannel?: string;
  package?: string;
  replaces?: string;
  skipRange?: string;
  outputDir: string;
  useImageDigests: boolean;
  dryRun: boolean;
  /** --allow-unsafe-crd-changes: why CRD changes unsafe against the recorded release are bundled anyway. */
  allowUnsafeCrdChanges?: string;
}

export async function generateBundleCommand(ctx: CommandContext, o: GenerateBundleOptions): Promise<number> {
  // Flags first: a bad one costs nothing and writes nothing.
  if (o.version === undefined) throw new OpgenError('the bundle needs a version', { flag: '--version' }, 'pass --version 0.1.0 (SemVer)');
  if (!parseSemVer(o.version)) throw new OpgenError(`'${o.version}' is not a SemVer version`, { flag: '--version' }, 'write MAJOR.MINOR.PATCH, e.g. 0.1.0 or 1.2.3-rc.1 (no leading v)');
  if (o.replaces !== undefined) {
    const bad = checkCsvName(o.replaces);
    if (bad) throw new OpgenError(`'${o.replaces}' ${bad}`, { flag: '--replaces' }, 'name the CSV this one replaces, e.g. memcached-operator.v0.0.1');
  }
  if (o.skipRange !== undefined) {
    const r = parseRange(o.skipRange);
    if (!r.ok) throw new OpgenError(`'${o.skipRange}' is not a version range: ${r.reason}`, { flag: '--skip-range' }, "write comparators such as '>=0.1.0 <0.2.0'");
  }
  const outputDir = relative(ctx.cwd, resolve(ctx.cwd, o.outputDir)).replaceAll('\\', '/');
  if (outputDir === '' || outputDir.startsWith('..')) throw new OpgenError(`'${o.outputDir}' is not a folder inside the project`, { flag: '--output-dir' }, 'pass a folder such as bundle');
  const tree = new Tree(ctx.cwd);
  const project = loadProject(tree);
  const pkg = checkPackage(o.package ?? project.projectName);
  const previous = await readPreviousMetadata(tree, outputDir);
  const channels = channelsOf(o.channels, previous.annotations[ANNOTATION.channels]);
  let defaultChannel = o.defaultChannel ?? previous.annotations[ANNOTATION.defaultChannel];
  if (o.defaultChannel === undefined && (defaultChannel === undefined || !channels.includes(defaultChannel))) defaultChannel = channels[0]!;
  if (!channels.includes(defaultChannel!)) {
    throw new OpgenError(`'${defaultChannel}' is not one of the bundle's channels (${channels.join(', ')})`, { flag: '--default-channel' }, 'pick one of --channels, or add it to --channels');
  }
  if (!existsSync(join(ctx.cwd, 'config', 'manifests', 'kustomization.yaml'))) {
    throw new OpgenError('config/manifests is missing', { file: 'config/manifests/kustomization.yaml' }, 'run opgen generate kustomize manifests first');
  }
  const rendered = await renderKustomize({ cwd: ctx.cwd, dir: 'config/manifests' });
  const inputs: BundleInputs = { package: pkg, version: o.version, channels, defaultChannel: defaultChannel!, replaces: o.replaces, skipRange: o.skipRange, outputDir };
  if (o.useImageDigests) {
    const { pinImages } = await import('./digests.js');
    const { imagesOf } = await import('./bundle-images.js');
    inputs.pinned = await pinImages(imagesOf(rendered.filter((x) => x.kind === 'Deployment')).map((i) => i.image));
  }
  const notes: string[] = [];
  const built = buildBundle(rendered, inputs, notes);
  await stageBundle(tree, built, inputs, previous);
  for (const n of notes) ctx.err(n);
  // The bundle's CRDs (rendered, as the cluster will get them) against the recorded release, before writing.
  const { checkAgainstReleased, hasReleasedCrds } = await import('../crd-upgrade/released.js');
  if (hasReleasedCrds(ctx.cwd)) {
    const crdFiles = [...built.files].filter(([, obj]) => obj.kind === 'CustomResourceDefinition').map(([name]) => `${outputDir}/manifests/${name}`).sort();
    await checkAgainstReleased(ctx.cwd, crdFiles.map((shown) => ({ shown, text: tree.read(shown)! })), { out: ctx.err, ...(o.allowUnsafeCrdChanges === undefined ? {} : { allow: o.allowUnsafeCrdChanges }) });
  }
  commit(ctx, tree, o.dryRun);
  return 0;
}

export interface ValidateBundleOptions {
  dir: string;
  selectOptional?: string;
}

export async function validateBundleCommand(ctx: CommandContext, o: ValidateBundleOptions): Promise<number> {
  let optional: 'operatorframework' | undefined;
  if (o.selectOptional !== undefined) {
    if (o.selectOptional !== 'suite=operatorframework') {
      throw new OpgenError(`unknown selector '${o.selectOptional}'`, { flag: '--select-optional' }, 'use --select-optional suite=operatorframework');
    }
    optional = 'operatorframework';
  }
  const { validateBundleDir, formatProblem } = await import('./validate.js');
  const problems = await validateBundleDir(ctx.cwd, o.dir, { optional });
  for (const p of problems) (p.level === 'error' ? ctx.err : ctx.out)(formatProblem(p));
  const errors = problems.filter((p) => p.level === 'error').length;
  if (errors === 0) ctx.out(`${o.dir}: bundle is valid${problems.length > 0 ? ` (${problems.length} warning${problems.length > 1 ? 's' : ''})` : ''}`);
  return errors > 0 ? 1 : 0;
}

export interface GenerateCatalogOptions extends CatalogOptions {
  dryRun: boolean;
}

export async function generateCatalogCommand(ctx: CommandContext, o: GenerateCatalogOptions): Promise<number> {
  const { stageCatalog } = await import('./catalog.js');
  const tree = new Tree(ctx.cwd);
  await stageCatalog(tree, ctx.cwd, o);
  commit(ctx, tree, o.dryRun);
  return 0;
}

function checkPackage(pkg: string): string {
  const bad = checkDns1123Label(pkg);
  if (bad) throw new OpgenError(`package '${pkg}' ${bad}`, { flag: '--package' }, 'pass --package <name>');
  return pkg;
}

function channelsOf(flag: string | undefined, previous: string | undefined): string[] {
  const raw = flag ?? previous ?? 'alpha';
  const channels = raw.split(',').map((c) => c.trim());
  for (const c of channels) {
    if (c === '' || /[\s/]/.test(c)) throw new OpgenError(`'${raw}' is not a list of channel names`, { flag: '--channels' }, 'write names separated by commas, e.g. stable,preview');
  }
  return [...new Set(channels)];
}

function commit(ctx: CommandContext, tree: Tree, dryRun: boolean): void {
  const changes = commitTree(tree, { dryRun, out: ctx.out });
  if (dryRun) ctx.out(changes.length === 0 ? 'dry run: nothing would change' : 'dry run: nothing was written');
}

