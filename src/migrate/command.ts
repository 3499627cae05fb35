// `opgen migrate api <go-package-dir>... --output <dir>`: a kubebuilder/controller-gen Go API package in,
// TypeScript types with the same markers and descriptions out, so that `opgen generate crd --paths <dir>`
// writes the CRDs `controller-gen crd paths=<go-package-dir>` writes. Nothing is written on failure.
import { posix, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type HandlebarsNamespace from 'handlebars';
import type { CommandContext } from '../common/command-context.js';
import { OpgenError } from '../diag/diagnostic.js';
import { createGeneratorRegistry } from '../registry/index.js';
import { commitTree, loadTemplates, Tree } from '../scaffold/index.js';
import type { GoModel } from './go-model.js';
import { kubernetesModelsVersion } from '../crd/kubernetes/index.js';
import { readGoPackages } from './read-go.js';
import { translate, type Translation } from './translate.js';

export interface MigrateApiOptions {
  dirs: string[];
  output?: string;
  force: boolean;
  dryRun: boolean;
}

export async function migrateApiCommand(ctx: CommandContext, o: MigrateApiOptions): Promise<number> {
  if (o.dirs.length === 0) throw new OpgenError('no Go package folder given', { flag: 'migrate api' }, 'write opgen migrate api ./api/v1 --output src/api');
  if (!o.output) throw new OpgenError('--output is required', { flag: '--output' }, 'name the folder for the TypeScript API, e.g. --output src/api');
  const model = readGoPackages(ctx.cwd, o.dirs);
  const roots = model.packages.filter((p) => p.root);
  const hasGroup = (p: GoModel['packages'][number]): boolean => p.markers.some((m) => m.text.startsWith('+groupName='));
  for (const p of roots) {
    // A folder named on its own must be an API version; `./api/...` may also hold shared packages.
    const dir = o.dirs.find((d) => !d.endsWith('/...') && resolve(ctx.cwd, d) === p.dir);
    if (dir !== undefined && !hasGroup(p)) {
      throw new OpgenError(`${dir} (package ${p.name}) has no +groupName marker, so controller-gen makes no CRD of it`, { file: dir }, 'pass the API version package, the one whose doc.go or groupversion_info.go says // +groupName=<group>');
    }
  }
  if (!roots.some(hasGroup)) {
    throw new OpgenError(`no package in ${o.dirs.join(' ')} has a +groupName marker, so controller-gen makes no CRD of them`, { flag: 'migrate api' }, 'pass the API version packages, e.g. ./api/v1 or ./api/...');
  }
  const translation = translate(model, createGeneratorRegistry());
  const outputAbs = resolve(ctx.cwd, o.output);
  const tree = new Tree(outputAbs);
  render(tree, translation, o.force);
  const changes = commitTree(tree, { dryRun: o.dryRun, out: (l) => ctx.out(l) });
  printSummary(ctx, model, translation, displayPath(ctx.cwd, outputAbs), changes.length, o.dryRun);
  return 0;
}

/** Writes the migrated files (templates/migrate) into the tree. */
export function render(tree: Tree, t: Translation, force: boolean): void {
  const hb = (createRequire(import.meta.url)('handlebars') as typeof HandlebarsNamespace).create();
  const templates = new Map(loadTemplates('migrate').map((tpl) => [tpl.source, tpl]));
  const compile = (name: string): { run: HandlebarsTemplateDelegate; ifExists: 'error' | 'skip' | 'overwrite' } => {
    const tpl = templates.get(name);
    if (!tpl) throw new Error(`templates/migrate/${name} is missing`);
    return { run: hb.compile(tpl.body, { noEscape: true, strict: true }), ifExists: force && tpl.ifExists === 'error' ? 'overwrite' : tpl.ifExists };
  };
  const types = compile('types.ts.hbs');
  const index = compile('index.ts.hbs');
  for (const f of t.files) tree.write(f.path, types.run(f), { ifExists: types.ifExists });
  for (const i of t.indexes) {
    if (i.exports.length > 0) tree.write(i.path, index.run(i), { ifExists: index.ifExists });
  }
}

/** A Go position relative to the working directory, as the user typed the package folder. */
function relativePos(cwd: string, pos: string): string {
  return displayPath(cwd, pos);
}

/** A path relative to the working directory, or absolute when it lies outside. */
export function displayPath(cwd: string, abs: string): string {
  const rel = relative(cwd, abs);
  return rel === '' ? '.' : rel.startsWith('..') ? abs : rel;
}

type HandlebarsTemplateDelegate = (context: unknown) => string;

function printSummary(ctx: CommandContext, model: GoModel, t: Translation, output: string, changed: number, dryRun: boolean): void {
  const s = t.summary;
  // A kind with several versions is one kind.
  const kinds = [...new Set(s.packages.flatMap((p) => p.kinds))];
  ctx.out(
    `${dryRun ? 'would migrate' : 'migrated'} ${s.packages.length} Go package${s.packages.length === 1 ? '' : 's'} (${s.packages.reduce((n, p) => n + p.types, 0)} types, ${kinds.length} kind${kinds.length === 1 ? '' : 's'}: ${kinds.join(', ') || 'none'}) into ${output} (${changed} file${changed === 1 ? '' : 's'} changed)`,
  );
  for (const p of s.packages) ctx.out(`  ${p.importPath} -> ${posix.join(output, p.folder)}${p.root ? '' : ' (types it uses)'}`);
  if (s.ignored.length > 0) {
    // One line per marker text: `+genclient` stands above every kind of a package.
    const byText = new Map<string, { why: string; at: string[] }>();
    for (const i of s.ignored) {
      const e = byText.get(i.text) ?? { why: i.why, at: [] };
      e.at.push(relativePos(ctx.cwd, i.pos));
      byText.set(i.text, e);
    }
    ctx.out(`${s.ignored.length} marker${s.ignored.length === 1 ? '' : 's'} controller-gen ignores, kept as comments, not markers:`);
    for (const [text, { why, at }] of byText) {
      const more = at.length > 3 ? ` and ${at.length - 3} more` : '';
      ctx.out(`  ${text} (${why}): ${at.slice(0, 3).join(', ')}${more}`);
    }
  }
  if (s.notes.length > 0) {
    ctx.out(`${s.notes.length} Go construct${s.notes.length === 1 ? '' : 's'} without a TypeScript form:`);
    for (const n of s.notes) ctx.out(`  ${relativePos(ctx.cwd, n.pos)}: ${n.text}`);
  }
  // Kubernetes' own types become opgen's, whose schemas are those of one Kubernetes release: a module
  // built against another minor release gets that release's descriptions and fields in its CRDs.
  const ours = kubernetesModelsVersion().replace(/^v1\./, 'v0.');
  const minor = (v: string): string => v.split('.').slice(0, 2).join('.');
  if (model.kubernetesApi !== '' && minor(model.kubernetesApi) !== minor(ours)) {
    ctx.out(
      `note: the module builds with k8s.io/api ${model.kubernetesApi}; opgen's Kubernetes types are ${ours}, so fields of Kubernetes types (corev1.Container, …) follow ${ours} in the CRDs opgen generates`,
    );
  }
  ctx.out(`next: opgen generate crd --paths ${output}`);
}
