// Applies staged Trees to disk all at once, or only describes them in a dry run. Every path is checked
// before anything is written (a file where a folder is needed, a folder where a file goes, a folder we may
// not write in); files are written beside their targets under temporary names and renamed into place; and
// when any step fails, everything this commit did is undone. A failure is one line naming the path.
import * as fs from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { OpgenError } from '../diag/diagnostic.js';
import type { FileChange, Tree } from './tree.js';

/** The filesystem calls a commit makes; tests wrap node:fs to make one of them fail. */
export interface CommitIo {
  mkdirSync(path: string): void;
  writeFileSync(path: string, data: string, options: { mode: number }): void;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
  rmdirSync(path: string): void;
}

const nodeIo: CommitIo = {
  mkdirSync: (p) => fs.mkdirSync(p),
  writeFileSync: (p, data, o) => fs.writeFileSync(p, data, { mode: o.mode, flag: 'wx' }),
  renameSync: (a, b) => fs.renameSync(a, b),
  unlinkSync: (p) => fs.unlinkSync(p),
  rmdirSync: (p) => fs.rmdirSync(p),
};

export interface CommitOptions {
  /** Print the change lines but write nothing (the paths are still checked). */
  dryRun?: boolean;
  /** Receives one `CREATE path` / `UPDATE path` / `DELETE path` line per change. */
  out?: (line: string) => void;
  /** Filesystem calls; node:fs unless a test injects failures. */
  io?: CommitIo;
}

interface Step {
  change: FileChange;
  root: string;
  abs: string;
  /** How to name the path to the user. */
  display: string;
  /** New content (undefined for a delete). */
  content?: string;
  /** Content on disk before the commit (undefined for a create): what an undo writes back. */
  before?: string;
  /** File mode to write with: the replaced file's, or the default for new files. */
  mode: number;
}

/** Writes the tree's changes (sorted by path) and returns them. */
export function commitTree(tree: Tree, options: CommitOptions = {}): FileChange[] {
  return commitTrees([tree], options);
}

/** Writes several trees' changes as one commit: all of them, or none. */
export function commitTrees(trees: Tree[], options: CommitOptions = {}): FileChange[] {
  const steps: Step[] = [];
  for (const tree of trees) {
    for (const change of tree.changes()) {
      const abs = join(tree.root, change.path);
      const before = tree.readOnDisk(change.path);
      steps.push({
        change,
        root: tree.root,
        abs,
        display: change.path,
        content: change.kind === 'delete' ? undefined : (tree.read(change.path) ?? ''),
        before,
        mode: before === undefined ? 0o666 : fileMode(abs),
      });
    }
  }
  checkPaths(steps);
  if (!options.dryRun) apply(steps, options.io ?? nodeIo);
  // Printed once everything is in place: a failed commit prints only its error.
  for (const s of steps) options.out?.(`${s.change.kind.toUpperCase()} ${s.change.path}`);
  return steps.map((s) => s.change);
}

/** Refuses, before anything is written, every change the filesystem would refuse. */
function checkPaths(steps: Step[]): void {
  const writtenFiles = new Set(steps.filter((s) => s.change.kind !== 'delete').map((s) => s.abs));
  const checkedDirs = new Map<string, void>();
  for (const s of steps) {
    const target = statOrUndefined(s.abs);
    if (target?.isDirectory()) {
      throw new OpgenError(`a folder is here, but opgen needs to ${s.change.kind === 'delete' ? 'delete a file' : 'write a file'} at this path`, { file: s.display }, 'move the folder away and run the command again; nothing was written');
    }
    // Each folder above the file must be a folder (or not exist yet), and the deepest existing one writable.
    let deepest = dirname(s.abs);
    const missing: string[] = [];
    for (;;) {
      const st = statOrUndefined(deepest);
      if (st === undefined) {
        missing.push(deepest);
        const up = dirname(deepest);
        if (up === deepest) break;
        deepest = up;
        continue;
      }
      if (!st.isDirectory()) {
        const name = displayPath(s.root, deepest);
        throw new OpgenError(`this is a file, but ${s.display} needs a folder here`, { file: name }, `move ${name} away and run the command again; nothing was written`);
      }
      break;
    }
    for (const dir of missing) {
      if (writtenFiles.has(dir)) {
        throw new OpgenError(`this path would be both a file and the folder of ${s.display}`, { file: displayPath(s.root, dir) }, 'this is a bug in the command that staged both; please report it');
      }
    }
    if (!checkedDirs.has(deepest)) {
      checkedDirs.set(deepest);
      try {
        fs.accessSync(deepest, fs.constants.W_OK | fs.constants.X_OK);
      } catch (err) {
        throw fsError(err, 'cannot write in this folder', displayPath(s.root, deepest));
      }
    }
  }
}

/** Temp files, then renames and deletes; undoes everything done so far when a step fails. */
function apply(steps: Step[], io: CommitIo): void {
  const createdDirs: string[] = [];
  const temps = new Map<Step, string>();
  const done: Step[] = [];
  let current: Step | undefined;
  let action = '';
  try {
    for (const s of steps) {
      if (s.content === undefined) continue;
      current = s;
      action = 'cannot create its folder';
      for (const dir of missingDirs(dirname(s.abs))) {
        io.mkdirSync(dir);
        createdDirs.push(dir);
      }
      action = 'cannot write';
      // Beside the target, so the rename stays on one filesystem and is atomic.
      const temp = join(dirname(s.abs), `.opgen-${process.pid}-${temps.size}.tmp`);
      io.writeFileSync(temp, s.content, { mode: s.mode });
      temps.set(s, temp);
    }
    for (const s of steps) {
      current = s;
      if (s.content === undefined) {
        action = 'cannot delete';
        io.unlinkSync(s.abs);
      } else {
        action = 'cannot write';
        io.renameSync(temps.get(s)!, s.abs);
        temps.delete(s);
      }
      done.push(s);
    }
  } catch (err) {
    undo(done, temps, createdDirs);
    throw fsError(err, action, current?.display);
  }
}

/** Best effort: puts back what was replaced or deleted, removes what was created. */
function undo(done: Step[], temps: Map<Step, string>, createdDirs: string[]): void {
  const attempt = (f: () => void): void => {
    try {
      f();
    } catch {
      // The undo continues with the next path; the original error is what the user sees.
    }
  };
  for (const s of [...done].reverse()) {
    if (s.before === undefined) attempt(() => fs.unlinkSync(s.abs));
    else attempt(() => fs.writeFileSync(s.abs, s.before!, { mode: s.mode }));
  }
  for (const temp of temps.values()) attempt(() => fs.unlinkSync(temp));
  for (const dir of [...createdDirs].reverse()) attempt(() => fs.rmdirSync(dir));
}

/** The folders above-and-including `dir` that do not exist yet, outermost first. */
function missingDirs(dir: string): string[] {
  const out: string[] = [];
  let d = dir;
  while (!fs.existsSync(d)) {
    out.unshift(d);
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return out;
}

function statOrUndefined(path: string): fs.Stats | undefined {
  try {
    return fs.statSync(path);
  } catch {
    return undefined;
  }
}

function fileMode(abs: string): number {
  return (statOrUndefined(abs)?.mode ?? 0o666) & 0o7777;
}

/** Paths inside the tree's root relative to it (as change lines show them), others absolute. */
function displayPath(root: string, abs: string): string {
  const rel = relative(root, abs);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? abs : rel.split(sep).join('/');
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'the file system is read-only',
  ENAMETOOLONG: 'the name is too long',
  EISDIR: 'a folder is in the way',
  ENOTDIR: 'a file is in the way of a folder',
  EEXIST: 'something else created it meanwhile',
  EIO: 'input/output error',
};

/** One line for a filesystem failure: what could not be done, why, and that nothing was changed. */
function fsError(err: unknown, what: string, file: string | undefined): OpgenError {
  const code = (err as NodeJS.ErrnoException).code;
  const reason = (code && REASONS[code]) ?? String((err as Error).message ?? err).split('\n')[0];
  return new OpgenError(`${what}: ${reason}${code ? ` (${code})` : ''}`, file ? { file } : undefined, 'nothing was changed; fix the cause and run the command again');
}
