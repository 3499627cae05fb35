// `opgen crd diff <old> <new>`: each CRD in <new> (a file or a folder of YAML files) against the CRD of
// the same name in <old> (or, with --since <ref>, in <new> as git has it at that ref). One line per finding at the field's file:line:column in <new>; errors exit 1.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { OpgenError } from '../diag/diagnostic.js';
import type { CommandContext } from '../common/command-context.js';
import { diffCrd, displayPath, type Crd, type Finding } from './diff.js';
import type { Located, LoadedCrd } from './loaded-crd.js';
import type { KubectlTarget } from '../doctor/kubectl.js';

export interface CrdDiffOptions {
  /** The released CRDs: a file or folder, or with `since` the path to read from git at that ref. */
  old: string;
  new: string;
  /** A git ref (the last release's tag): the old CRDs are `old` as committed there. */
  since?: string;
  /** The target cluster: its status.storedVersions stand in for the old files' (which have none). */
  cluster?: KubectlTarget;
}

export async function crdDiffCommand(ctx: CommandContext, o: CrdDiffOptions): Promise<number> {
  const olds = o.since === undefined ? await loadCrds(ctx.cwd, o.old, 'old') : await loadCrdsAt(ctx.cwd, o.since, o.old);
  const news = await loadCrds(ctx.cwd, o.new, 'new');
  const cluster = o.cluster && (await import('./cluster.js'));
  const live = cluster && (await cluster.withClusterStoredVersions(ctx.cwd, o.cluster!, olds));
  const { findings, compared } = compareSets(olds, news);
  if (cluster && live) await cluster.annotateWithCounts(ctx.cwd, o.cluster!, live, findings);
  for (const x of findings) (x.f.level === 'error' ? ctx.err : ctx.out)(`${x.at}: ${x.f.level}: ${describeFinding(x)} (${x.f.fix}) [${x.f.origin} ${x.f.rule}]`);
  const errors = findings.filter((x) => x.f.level === 'error').length;
  const warnings = findings.length - errors;
  const counts = `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
  ctx.out(errors === 0 ? `${compared} CRD${compared === 1 ? '' : 's'} compared: safe to upgrade (${counts})` : `${compared} CRD${compared === 1 ? '' : 's'} compared: ${counts}`);
  return errors > 0 ? 1 : 0;
}

/** `<crd> <version> <field>: what changed; why it breaks`, the part of a finding's line before the fix. */
export function describeFinding({ name, f }: Located): string {
  const where = f.where === 'crd' ? '' : ` ${f.where}`;
  const field = f.path === undefined ? '' : ` ${f.rule === 'existingFieldRemoval' ? displayRemoved(f.path) : displayPath(f.path)}`;
  return `${name}${where}${field}: ${f.message}; ${f.why}`;
}

function displayRemoved(path: string): string {
  const dot = path.indexOf('.');
  return `${path.slice(0, dot)} ${displayPath(path.slice(dot + 1))}`;
}

/** Findings for every CRD of `news` against its namesake in `olds`, and CRDs dropped from `olds`. */
export function compareSets(olds: LoadedCrd[], news: LoadedCrd[]): { findings: Located[]; compared: number } {
  const out: Located[] = [];
  let compared = 0;
  const oldByName = new Map(olds.map((c) => [c.crd.metadata?.name ?? '', c]));
  for (const n of news) {
    const name = n.crd.metadata?.name ?? '';
    const old = oldByName.get(name);
    if (!old) continue; // a new CRD breaks nothing
    compared++;
    for (const f of diffCrd(old.crd, n.crd)) {
      const { line, column } = n.locate(yamlPathOf(n.crd, f));
      out.push({ at: `${n.file}:${line}:${column}`, name, f });
    }
  }
  const newNames = new Set(news.map((c) => c.crd.metadata?.name ?? ''));
  for (const old of olds) {
    const name = old.crd.metadata?.name ?? '';
    if (newNames.has(name)) continue;
    const { line, column } = old.locate(['metadata', 'name']);
    out.push({
      at: `${old.file}:${line}:${column}`,
      name,
      f: { origin: 'guide', level: 'error', rule: 'crd-removed', where: 'crd', message: 'the CRD is gone from the new manifests', why: 'an upgrade that deletes a CRD deletes every stored object of it', fix: 'keep shipping the CRD (its versions may stop being served)' },
    });
  }
  return { findings: out, compared };
}

/** The YAML path in the new CRD a finding points at. */
function yamlPathOf(crd: Crd, f: Finding): (string | number)[] {
  if (f.rule === 'scope') return ['spec', 'scope'];
  const versions = crd.spec?.versions ?? [];
  let version = f.where.includes(' -> ') ? f.where.split(' -> ')[1]! : f.where;
  let path = f.path;
  if (f.rule === 'existingFieldRemoval' && path) {
    version = path.slice(0, path.indexOf('.'));
    path = path.slice(path.indexOf('.') + 1);
  }
  const idx = versions.findIndex((v) => v.name === version);
  if (idx < 0) return ['spec', 'versions'];
  if (path === undefined) return ['spec', 'versions', idx, 'name'];
  const out: (string | number)[] = ['spec', 'versions', idx, 'schema', 'openAPIV3Schema'];
  for (const m of path.slice(1).matchAll(/\.([^.[]+)|\[(\*|\d+)\]/g)) {
    if (m[1] !== undefined) out.push('properties', m[1]);
    else if (m[2] === '*') out.push('items'); // or additionalProperties: locate() stops at the deepest part that exists
    else out.push('items', Number(m[2]));
  }
  return out;
}

async function loadCrds(cwd: string, arg: string, which: 'old' | 'new'): Promise<LoadedCrd[]> {
  const abs = resolve(cwd, arg);
  if (!existsSync(abs)) throw new OpgenError(`${arg}: no such file or folder`, { flag: `crd diff <${which}>` }, `pass the ${which} CRD file or the folder holding ${which === 'old' ? 'the released' : 'the new'} CRDs`);
  const out = await parseCrds(yamlFiles(cwd, abs));
  if (out.length === 0) throw new OpgenError(`${arg} holds no CustomResourceDefinition`, { flag: `crd diff <${which}>` }, 'pass CRD manifests such as config/crd/bases');
  return out;
}

/** The YAML files of a folder (not its subfolders), or the one file, as shown to the user and their text. */
export function yamlFiles(cwd: string, abs: string): { shown: string; text: string }[] {
  const files = statSync(abs).isDirectory()
    ? readdirSync(abs).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => join(abs, f))
    : [abs];
  return files.map((f) => ({ shown: relative(cwd, f) || '.', text: readFileSync(f, 'utf8') }));
}

/**
 * The CRDs at `arg` (a file or folder of the work tree) as git has them at `ref`, e.g. the last release
 * tag: what the cluster runs is what was released.
 */
async function loadCrdsAt(cwd: string, ref: string, arg: string): Promise<LoadedCrd[]> {
  const { execFileSync } = await import('node:child_process');
  const git = (...args: string[]): string => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  let prefix: string;
  try {
    git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
    prefix = git('rev-parse', '--show-prefix').trim();
  } catch {
    throw new OpgenError(`'${ref}' is not a commit of a git repository here`, { flag: '--since' }, 'name a tag or commit of the last release, e.g. --since v0.1.0');
  }
  const path = `${prefix}${relative(cwd, resolve(cwd, arg)).replaceAll('\\', '/')}`.replace(/\/$/, '');
  const listed = git('ls-tree', '-r', '--full-tree', '--name-only', ref, '--', path).split('\n').filter((f) => f === path || (f.startsWith(`${path}/`) && !f.slice(path.length + 1).includes('/')));
  const files = listed.filter((f) => /\.ya?ml$/.test(f)).sort();
  const out = await parseCrds(files.map((f) => ({ shown: `${ref}:${f}`, text: git('show', `${ref}:${f}`) })));
  if (out.length === 0) throw new OpgenError(`${arg} holds no CustomResourceDefinition at ${ref}`, { flag: '--since' }, 'name the release whose CRDs are installed, or pass the old CRDs as a file or folder');
  return out;
}

/** Every CustomResourceDefinition in the YAML texts, with where it came from; bad YAML is a positioned error. */
export async function parseCrds(files: { shown: string; text: string }[]): Promise<LoadedCrd[]> {
  const { LineCounter, parseAllDocuments } = await import('yaml');
  const { locateIn } = await import('./yaml-locate.js');
  const out: LoadedCrd[] = [];
  for (const { shown, text } of files) {
    const lc = new LineCounter();
    for (const doc of parseAllDocuments(text, { lineCounter: lc })) {
      if (!('errors' in doc)) continue;
      const e = doc.errors[0];
      if (e) {
        const pos = lc.linePos(e.pos[0]);
        throw new OpgenError(`not valid YAML: ${e.message.split('\n')[0]}`, { file: shown, line: pos.line, column: pos.col }, 'fix the YAML');
      }
      const value = doc.toJS({ maxAliasCount: -1 }) as unknown;
      if (value === null || typeof value !== 'object' || (value as { kind?: unknown }).kind !== 'CustomResourceDefinition') continue;
      out.push({ crd: value as Crd, file: shown, locate: locateIn(doc, lc) });
    }
  }
  return out;
}
