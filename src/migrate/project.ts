// `opgen migrate project <kubebuilder-project> --output <dir>`: a new opgen project with the kubebuilder
// project's PROJECT resources (init, edit --multigroup and create api, as a user would run them), its API
// migrated over the scaffolded types (./translate.ts), its samples, and each controller pointing at the Go
// reconciler it replaces. Everything that can fail (PROJECT, the Go packages) is read before anything is
// written.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, posix, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type HandlebarsNamespace from 'handlebars';
import { parse } from 'yaml';
import type { CommandContext } from '../common/command-context.js';
import { createApiCommand } from '../commands/create-api/index.js';
import { editCommand } from '../commands/edit/index.js';
import { initCommand } from '../commands/init/index.js';
import { kebab } from '../commands/shared/names.js';
import { OpgenError } from '../diag/diagnostic.js';
import { createGeneratorRegistry } from '../registry/index.js';
import { apiDir, controllerDir } from '../project/index.js';
import { commitTree, loadTemplates, Tree } from '../scaffold/index.js';
import { displayPath, render } from './command.js';
import { readGoPackages } from './read-go.js';
import { translate } from './translate.js';

export interface MigrateProjectOptions {
  dir?: string;
  output?: string;
}

/** The parts of kubebuilder's PROJECT (v3) migrate reads. */
interface KubebuilderProject {
  domain?: string;
  layout?: string[];
  multigroup?: boolean;
  projectName?: string;
  repo?: string;
  resources?: KubebuilderResource[];
}

interface KubebuilderResource {
  api?: { crdVersion?: string; namespaced?: boolean };
  controller?: boolean;
  core?: boolean;
  external?: boolean;
  domain?: string;
  group?: string;
  kind: string;
  path?: string;
  plural?: string;
  version: string;
}

export async function migrateProjectCommand(ctx: CommandContext, o: MigrateProjectOptions): Promise<number> {
  if (!o.dir) throw new OpgenError('no kubebuilder project folder given', { flag: 'migrate project' }, 'write opgen migrate project ./my-operator --output ./my-operator-ts');
  if (!o.output) throw new OpgenError('--output is required', { flag: '--output' }, 'name a new folder for the opgen project');
  const src = resolve(ctx.cwd, o.dir);
  const projectFile = join(src, 'PROJECT');
  if (!existsSync(projectFile)) throw new OpgenError(`${o.dir} has no PROJECT file`, { file: o.dir }, 'pass the root folder of a kubebuilder project (where PROJECT is)');
  const kb = readProject(projectFile, relative(ctx.cwd, projectFile));
  const out = resolve(ctx.cwd, o.output);
  if (existsSync(out) && (!statSync(out).isDirectory() || readdirSync(out).length > 0)) {
    throw new OpgenError(`${o.output} is not an empty folder`, { flag: '--output' }, 'pass a new folder: migrate project writes a whole project');
  }

  const repo = kb.repo!;
  const own = (kb.resources ?? []).filter((r) => r.api && !r.core && !r.external && r.path?.startsWith(`${repo}/`) && (r.domain ?? kb.domain) === kb.domain);
  const skipped = (kb.resources ?? []).filter((r) => !own.includes(r));
  if (own.length === 0) throw new OpgenError(`${relative(ctx.cwd, projectFile)} lists no API of the project's own`, { file: relative(ctx.cwd, projectFile) }, 'migrate project moves APIs defined in the project; for others use opgen create api --resource=false');
  const layout = { multigroup: kb.multigroup === true };
  const packageDirs = [...new Set(own.map((r) => `./${r.path!.slice(repo.length + 1)}`))];
  const model = readGoPackages(src, packageDirs);
  // Each API version package goes where `opgen create api` puts its kind's types (below src/api).
  const folders = new Map(own.map((r) => [r.path!, apiDir(layout, r.group ?? '', r.version).slice('src/api/'.length)]));
  const translation = translate(model, createGeneratorRegistry(), (p) => folders.get(p.importPath));
  const reconcilers = new Map(own.filter((r) => r.controller).map((r) => [r, findReconciler(src, r.kind)]));

  // A project as a user would scaffold it, then the Go API over the scaffolded types.
  const scaffoldCtx: CommandContext = { cwd: out, out: () => {}, err: ctx.err };
  await initCommand(scaffoldCtx, { domain: kb.domain!, repo, projectName: kb.projectName ?? basename(src), license: 'none', skipInstall: true, dryRun: false });
  if (layout.multigroup) await editCommand(scaffoldCtx, { multigroup: true, dryRun: false });
  for (const r of own) {
    await createApiCommand(scaffoldCtx, {
      group: r.group,
      version: r.version,
      kind: r.kind,
      ...(r.plural ? { plural: r.plural } : {}),
      namespaced: r.api?.namespaced !== false,
      resource: true,
      controller: r.controller === true,
      force: false,
      dryRun: false,
    });
  }

  const templates = projectTemplates();
  const api = new Tree(join(out, 'src', 'api'));
  render(api, translation, true);
  for (const r of own) {
    // The scaffolded types module (what the controller imports) re-exports the migrated file of the kind.
    const folder = folders.get(r.path!)!;
    const scaffolded = posix.join(folder, `${kebab(r.kind)}-types.ts`);
    const declaring = translation.files.find((f) => posix.dirname(f.path) === folder && f.declarations.some((d) => d.name === r.kind && d.kind));
    if (declaring && declaring.path !== scaffolded) api.write(scaffolded, templates.reexport({ from: `./${posix.basename(declaring.path).replace(/\.ts$/, '.js')}`, kind: r.kind }));
  }
  commitTree(api);

  const project = new Tree(out);
  const notes: string[] = [];
  for (const r of own) {
    const sample = `config/samples/${r.group}_${r.version}_${r.kind.toLowerCase()}.yaml`;
    const sampleText = existsSync(join(src, sample)) ? readFileSync(join(src, sample), 'utf8') : undefined;
    if (sampleText !== undefined) project.write(sample, sampleText);
    const at = reconcilers.get(r);
    if (!r.controller) continue;
    const file = `${controllerDir(layout, r.group ?? '')}/${kebab(r.kind)}-controller.ts`;
    // The controller test creates an object: the sample's spec is one the API accepts (the Go author's).
    const testFile = file.replace(/\.ts$/, '.test.ts');
    const testText = project.read(testFile);
    const emptySpec = '      spec: {\n        // TODO(user): fill in the spec of the object under test\n      },\n';
    const spec = sampleSpec(sampleText);
    if (testText !== undefined && testText.includes(emptySpec) && spec !== undefined) {
      project.write(testFile, testText.replace(emptySpec, templates.testSpec({ sample, spec: JSON.stringify(spec, null, 2).replace(/\n/g, '\n      ') })));
    } else if (testText !== undefined) {
      notes.push(`${testFile}: fill in the spec of the object the test creates (no ${sample} with a spec in the kubebuilder project)`);
    }
    const text = project.read(file);
    const todo = '    // TODO(user): your logic here\n';
    if (text === undefined || !text.includes(todo)) {
      notes.push(`${file}: no "TODO(user): your logic here" line to point at the Go reconciler`);
      continue;
    }
    project.write(file, text.replace(todo, templates.reconciler({ kind: r.kind, at: at ?? `no ${r.kind}Reconciler.Reconcile found in internal/controller or controllers` })));
  }
  commitTree(project);

  ctx.out(`migrated the kubebuilder project ${displayPath(ctx.cwd, src)} into ${displayPath(ctx.cwd, out)}: ${own.length} resource${own.length === 1 ? '' : 's'} (${own.map((r) => `${r.group}/${r.version} ${r.kind}`).join(', ')})`);
  for (const r of skipped) ctx.out(`  not migrated: ${[r.group, r.version, r.kind].filter(Boolean).join('/')} (not an API of the project's own; add it with opgen create api --resource=false)`);
  for (const [r, at] of reconcilers) ctx.out(`  ${r.kind}: its controller points at ${at ?? 'no Go reconciler (none found)'}`);
  for (const n of notes) ctx.out(`  ${n}`);
  const ignored = translation.summary.ignored.length;
  if (ignored > 0) ctx.out(`${ignored} marker${ignored === 1 ? '' : 's'} controller-gen ignores, kept as comments, not markers (opgen migrate api lists them)`);
  ctx.out(`next: cd ${displayPath(ctx.cwd, out)} && npm install && npx opgen generate`);
  return 0;
}

/** The `spec` of a sample manifest, or undefined. */
function sampleSpec(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    const doc = parse(text) as { spec?: unknown } | null;
    return doc?.spec !== undefined && doc.spec !== null && typeof doc.spec === 'object' ? doc.spec : undefined;
  } catch {
    return undefined;
  }
}

function readProject(file: string, display: string): KubebuilderProject {
  let kb: KubebuilderProject;
  try {
    kb = parse(readFileSync(file, 'utf8')) as KubebuilderProject;
  } catch (err) {
    throw new OpgenError(`cannot read PROJECT: ${(err as Error).message.split('\n')[0]}`, { file: display }, 'fix its YAML');
  }
  if (!kb?.layout?.some((l) => l.startsWith('go.kubebuilder.io/'))) {
    throw new OpgenError(`not a kubebuilder Go project (layout: ${JSON.stringify(kb?.layout ?? [])})`, { file: display }, 'migrate project reads projects kubebuilder scaffolded with go.kubebuilder.io/v3 or v4');
  }
  if (!kb.domain || !kb.repo) throw new OpgenError('PROJECT has no domain or repo', { file: display }, 'kubebuilder init writes both; add them');
  return kb;
}

/** `internal/controller/cronjob_controller.go:42` for the Go method `func (r *CronJobReconciler) Reconcile(`. */
function findReconciler(root: string, kind: string): string | undefined {
  const method = new RegExp(`^func \\(\\w+ \\*${kind}Reconciler\\) Reconcile\\(`, 'm');
  for (const dir of ['internal/controller', 'controllers']) {
    for (const file of goFiles(join(root, dir))) {
      const text = readFileSync(file, 'utf8');
      const m = method.exec(text);
      if (m) return `${relative(root, file)}:${text.slice(0, m.index).split('\n').length}`;
    }
  }
  return undefined;
}

function goFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? goFiles(join(dir, e.name)) : e.name.endsWith('.go') && !e.name.endsWith('_test.go') ? [join(dir, e.name)] : []));
}

function projectTemplates(): { reexport: (data: unknown) => string; reconciler: (data: unknown) => string; testSpec: (data: unknown) => string } {
  const hb = (createRequire(import.meta.url)('handlebars') as typeof HandlebarsNamespace).create();
  const byName = new Map(loadTemplates('migrate').map((t) => [t.source, t.body]));
  const compile = (name: string): ((data: unknown) => string) => {
    const body = byName.get(name);
    if (body === undefined) throw new Error(`templates/migrate/${name} is missing`);
    return hb.compile(body, { noEscape: true, strict: true });
  };
  return { reexport: compile('project/kind-types.ts.hbs'), reconciler: compile('project/reconcile-todo.hbs'), testSpec: compile('project/test-spec.hbs') };
}
