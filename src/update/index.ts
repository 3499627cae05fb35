// `opgen update`: brings a project scaffolded by an older opgen to this opgen's scaffold by a 3-way merge.
// base = the scaffold the recorded opgen (PROJECT's cliVersion, installed from npm as opgen@<version>, or
// --from) writes for this PROJECT; theirs = the scaffold this opgen writes for it; ours = the project.
// Both scaffolds are replayed from PROJECT (init, edit --multigroup, create api, create webhook) into
// temporary folders, as kubebuilder's `alpha update` regenerates both sides with its two binaries.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { CommandContext, Opgen } from '../common/command-context.js';
import { opgenVersion } from '../common/version.js';
import { OpgenError } from '../diag/diagnostic.js';
import { loadProject, saveProject, PROJECT_FILE, type ProjectConfig } from '../project/index.js';
import { commitTree, Tree } from '../scaffold/index.js';
import { mergeJson } from './json-merge.js';

export interface UpdateOptions {
  /** npm spec of the opgen that scaffolded the project (default opgen@<PROJECT's cliVersion>): a version, a tarball, a folder. */
  from?: string;
  dryRun: boolean;
}

/** Paths a scaffold replay writes that are not the scaffold's to merge. */
const SKIP = [/^node_modules\//, /^package-lock\.json$/, /^PROJECT$/, /^dist\//];

export interface MergeResult {
  path: string;
  action: 'create' | 'update' | 'delete' | 'conflict' | 'kept';
  conflicts?: number;
  note?: string;
}

/** Beside a JSON file in conflict: the new scaffold's version of it (the file itself stays valid JSON). */
export const THEIRS_SUFFIX = '.opgen-theirs';

/** The new scaffold's side is replayed with ctx.opgen (this opgen, in process), so update does not import the CLI that loads it. */
export async function updateCommand(ctx: CommandContext, o: UpdateOptions): Promise<number> {
  const current = ctx.opgen;
  if (!current) throw new Error('opgen update runs from the CLI, which gives it the in-process opgen (ctx.opgen)');
  const tree = new Tree(ctx.cwd);
  const project = loadProject(tree);
  const recorded = project.cliVersion;
  if (o.from === undefined && recorded === undefined) {
    throw new OpgenError('PROJECT records no cliVersion (the opgen that scaffolded it)', { file: PROJECT_FILE }, 'pass --from opgen@<version> (or a tarball of that opgen)');
  }
  if (o.from === undefined && recorded === opgenVersion()) {
    // The recorded opgen is this one: its scaffold is this scaffold, there is nothing to merge.
    ctx.out(`PROJECT's cliVersion is ${recorded}, this opgen's: the scaffold is up to date (pass --from <older opgen> to merge from another)`);
    return 0;
  }
  const spec = o.from ?? `opgen@${recorded}`;
  requireGit();
  const work = mkdtempSync(join(tmpdir(), 'opgen-update-'));
  try {
    const old = installOpgen(spec, ctx.cwd, join(work, 'old'));
    const base = join(work, 'base', project.projectName);
    const theirs = join(work, 'theirs', project.projectName);
    await replay(old, base, project, tree, `--from ${spec}`);
    await replay({ run: current }, theirs, project, tree, 'opgen update');
    const results = mergeScaffolds(tree, readScaffold(base), readScaffold(theirs), { base: `opgen ${versionOf(old.dir) ?? spec} scaffold`, theirs: `opgen ${opgenVersion()} scaffold` });
    saveProject(tree, { ...project, cliVersion: opgenVersion() });
    const changes = commitTree(tree, { dryRun: o.dryRun });
    // One line per file: a file in conflict is written too, but CONFLICT is what the user must act on.
    const byPath = new Map(results.map((r) => [r.path, r]));
    const lines = changes.filter((c) => !c.path.endsWith(THEIRS_SUFFIX)).map((c) => {
      const r = byPath.get(c.path);
      return { path: c.path, line: r?.action === 'conflict' ? conflictLine(r) : `${c.kind.toUpperCase()} ${c.path}` };
    });
    for (const r of results) if (r.action === 'kept') lines.push({ path: r.path, line: `KEPT ${r.path} (${r.note})` });
    for (const l of lines.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) ctx.out(l.line);
    const conflicts = results.filter((r) => r.action === 'conflict').length;
    if (o.dryRun) ctx.out('dry run: nothing was written');
    else ctx.out(conflicts === 0 ? `updated to the opgen ${opgenVersion()} scaffold` : `updated to the opgen ${opgenVersion()} scaffold with ${conflicts} file(s) in conflict`);
    return 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function conflictLine(r: MergeResult): string {
  return `CONFLICT ${r.path} (${r.conflicts} conflict${r.conflicts === 1 ? '' : 's'}: ${r.note})`;
}

function requireGit(): void {
  const r = spawnSync('git', ['--version'], { encoding: 'utf8' });
  if (r.status !== 0) throw new OpgenError('git not found: opgen update merges with `git merge-file`', { flag: 'update' }, 'install git and put it on PATH');
}

/**
 * Installs an opgen from npm (or tarballs/folders) into dir; its CLI runs as a child process. `spec` is
 * comma-separated so a tarball of opgen can come with the tarball of the @opgen/runtime it depends on.
 */
function installOpgen(spec: string, cwd: string, dir: string): { dir: string; run: Opgen } {
  const targets = spec.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => {
    // A local tarball or folder is resolved from the project, as the user wrote it.
    const local = /^[./~]/.test(s) || isAbsolute(s) || /\.tgz$/.test(s);
    const target = local ? resolve(cwd, s) : s;
    if (local && !existsSync(target)) throw new OpgenError(`${target} does not exist`, { flag: '--from' }, 'name an opgen tarball (npm pack) or package folder');
    return target;
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
  const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', '--loglevel=error', ...targets], { cwd: dir, encoding: 'utf8' });
  const bin = join(dir, 'node_modules', 'opgen', 'bin', 'opgen.js');
  if (r.status !== 0 || !existsSync(bin)) {
    const why = `${r.stderr ?? ''}`.split('\n').find((l) => /ERR!|error/i.test(l)) ?? `exit ${r.status}`;
    throw new OpgenError(`cannot install ${spec}: ${why.trim()}`, { flag: '--from' }, 'pass --from with the opgen version, tarball or folder that scaffolded the project');
  }
  return {
    dir: join(dir, 'node_modules', 'opgen'),
    run: async (at, argv) => {
      const c = spawnSync(process.execPath, [bin, ...argv], { cwd: at, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      return { code: c.status ?? 1, output: `${c.stdout}${c.stderr}` };
    },
  };
}

function versionOf(pkgDir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/**
 * The commands that scaffold this PROJECT, in the order they were recorded. `certProvider`: whether the
 * replaying opgen knows `create webhook --cert-provider` (0.1.0 does not: its base is cert-manager's).
 */
export function replayCommands(project: ProjectConfig, tree: Tree, certProvider = true): string[][] {
  const init = ['init', '--domain', project.domain, '--project-name', project.projectName, '--skip-install'];
  if (project.repo !== undefined) init.push('--repo', project.repo);
  if (project.namespaced) init.push('--namespaced');
  // The header is not in PROJECT: an empty boilerplate is --license none; another header merges as text.
  if ((tree.read('hack/boilerplate.ts.txt') ?? 'x').trim() === '') init.push('--license', 'none');
  const commands = [init];
  if (project.multigroup) commands.push(['edit', '--multigroup']);
  const gvk = (r: ProjectConfig['resources'][number]) => ['--group', r.group === '' ? 'core' : r.group, '--version', r.version, '--kind', r.kind];
  for (const r of project.resources) {
    if (r.external || (r.api === undefined && !r.controller)) continue;
    const api = ['create', 'api', ...gvk(r), `--resource=${r.api !== undefined}`, `--controller=${r.controller === true}`];
    if (r.api !== undefined) api.push(`--namespaced=${r.api.namespaced}`);
    if (r.plural !== undefined) api.push('--plural', r.plural);
    commands.push(api);
  }
  for (const r of project.resources) {
    const w = r.webhooks;
    if (w === undefined) continue;
    const hook = ['create', 'webhook', ...gvk(r)];
    if (w.defaulting) hook.push('--defaulting');
    if (w.validation) hook.push('--programmatic-validation');
    if (w.conversion) hook.push('--conversion', ...(w.spoke?.length ? ['--spoke', w.spoke.join(',')] : []));
    if (w.defaultingPath !== undefined) hook.push('--defaulting-path', w.defaultingPath);
    if (w.validationPath !== undefined) hook.push('--validation-path', w.validationPath);
    if (certProvider && project.certProvider !== undefined) hook.push('--cert-provider', project.certProvider);
    commands.push(hook);
  }
  return commands;
}

async function replay(opgen: { run: Opgen }, dir: string, project: ProjectConfig, tree: Tree, who: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const certProvider = project.certProvider === undefined || (await opgen.run(dir, ['create', 'webhook', '--help'])).output.includes('--cert-provider');
  for (const argv of replayCommands(project, tree, certProvider)) {
    const r = await opgen.run(dir, argv);
    if (r.code !== 0) {
      const line = r.output.trim().split('\n').filter((l) => l.includes('error')).pop() ?? r.output.trim();
      throw new OpgenError(`replaying \`opgen ${argv.join(' ')}\` (${who}) failed: ${line}`, { file: PROJECT_FILE }, 'check the resources PROJECT records, or pass --from with the opgen that scaffolded them');
    }
  }
}

function readScaffold(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      const path = relative(root, abs).split('\\').join('/');
      if (SKIP.some((re) => re.test(statSync(abs).isDirectory() ? `${path}/` : path))) continue;
      if (statSync(abs).isDirectory()) walk(abs);
      else files.set(path, readFileSync(abs, 'utf8'));
    }
  };
  walk(root);
  return files;
}

/**
 * Stages theirs onto the tree, file by file: a file the templates did not change stays the user's; one
 * the user did not change becomes the new scaffold's; one both changed is merged by `git merge-file`
 * (git's own 3-way text merge: the conflict markers and the resolution every git user and editor knows),
 * conflicts left as markers. A file the user deleted stays deleted; one the new scaffold drops is deleted
 * only when the user never changed it.
 */
export function mergeScaffolds(tree: Tree, base: Map<string, string>, theirs: Map<string, string>, labels: { base: string; theirs: string }): MergeResult[] {
  const results: MergeResult[] = [];
  for (const path of [...new Set([...base.keys(), ...theirs.keys()])].sort()) {
    const b = base.get(path);
    const t = theirs.get(path);
    const ours = tree.read(path);
    if (t === b || ours === t) continue;
    if (ours === undefined) {
      if (b === undefined) {
        tree.write(path, t!);
        results.push({ path, action: 'create' });
      } else {
        results.push({ path, action: 'kept', note: 'you deleted it; the new scaffold changed it: compare with `opgen init` in an empty folder' });
      }
      continue;
    }
    if (t === undefined) {
      if (ours === b) {
        tree.delete(path);
        results.push({ path, action: 'delete' });
      } else {
        results.push({ path, action: 'kept', note: 'the new scaffold no longer writes it; you changed it, so it stays' });
      }
      continue;
    }
    if (ours === b) {
      tree.write(path, t);
      results.push({ path, action: 'update' });
      continue;
    }
    results.push(path.endsWith('.json') ? mergeJsonFile(tree, path, ours, b ?? '', t, labels) : mergeTextFile(tree, path, ours, b ?? '', t, labels));
  }
  return results;
}

function mergeTextFile(tree: Tree, path: string, ours: string, base: string, theirs: string, labels: { base: string; theirs: string }): MergeResult {
  const merged = mergeFile(ours, base, theirs, labels);
  tree.write(path, merged.text);
  return merged.conflicts > 0
    ? { path, action: 'conflict', conflicts: merged.conflicts, note: 'resolve the <<<<<<< ======= >>>>>>> markers' }
    : { path, action: 'update' };
}

/**
 * A JSON file never gets conflict markers (npm stops at one in package.json): merged by structure; what
 * cannot be merged stays yours and the new scaffold's file goes beside it as <path>.opgen-theirs.
 */
function mergeJsonFile(tree: Tree, path: string, ours: string, base: string, theirs: string, labels: { base: string; theirs: string }): MergeResult {
  const structural = mergeJson(path, ours, base, theirs);
  let where: string;
  let conflicts: number;
  if (structural) {
    tree.write(path, structural.text);
    if (structural.conflicts.length === 0) return { path, action: 'update' };
    where = `${structural.conflicts.join(', ')}: both changed; yours kept`;
    conflicts = structural.conflicts.length;
  } else {
    // Not plain JSON (comments): merged as text, and on a conflict left as yours.
    const merged = mergeFile(ours, base, theirs, labels);
    if (merged.conflicts === 0) {
      tree.write(path, merged.text);
      return { path, action: 'update' };
    }
    where = 'both changed the same lines; yours kept';
    conflicts = merged.conflicts;
  }
  tree.write(`${path}${THEIRS_SUFFIX}`, theirs);
  return { path, action: 'conflict', conflicts, note: `${where}, the new scaffold's file is ${path}${THEIRS_SUFFIX}: take what you need from it, then delete it` };
}

function mergeFile(ours: string, base: string, theirs: string, labels: { base: string; theirs: string }): { text: string; conflicts: number } {
  const dir = mkdtempSync(join(tmpdir(), 'opgen-merge-'));
  try {
    const files = { ours: join(dir, 'ours'), base: join(dir, 'base'), theirs: join(dir, 'theirs') };
    writeFileSync(files.ours, ours);
    writeFileSync(files.base, base);
    writeFileSync(files.theirs, theirs);
    const r = spawnSync('git', ['merge-file', '-p', '-L', 'yours', '-L', labels.base, '-L', labels.theirs, files.ours, files.base, files.theirs], { encoding: 'utf8' });
    // The exit code is the number of conflicts; a negative one (255 here) is an error.
    if (r.status === null || r.status === 255) throw new OpgenError(`git merge-file failed: ${(r.stderr ?? '').trim()}`, { flag: 'update' }, 'check that git works here');
    return { text: r.stdout, conflicts: r.status };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
