// An in-memory, staged view of a directory. Commands read and write through a Tree and commit it once at
// the end (commit.ts), so a command that fails part-way leaves the directory exactly as it was.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { OpgenError } from '../diag/diagnostic.js';

/** What to do when a template's target already exists with different content. */
export type IfExists = 'error' | 'skip' | 'overwrite';

export interface FileChange {
  kind: 'create' | 'update' | 'delete';
  /** POSIX path relative to the tree root. */
  path: string;
}

export interface WriteOptions {
  /** Default 'overwrite'. 'error' throws an OpgenError naming the file and suggesting --force. */
  ifExists?: IfExists;
}

/** A staged entry: new content, or `null` for a pending delete. */
type Staged = string | null;

export class Tree {
  private readonly staged = new Map<string, Staged>();
  /** Disk contents read so far; `undefined` caches "no such file". */
  private readonly original = new Map<string, string | undefined>();

  constructor(readonly root: string) {}

  /** The file's current content (staged if changed), or undefined when it does not exist. */
  read(path: string): string | undefined {
    const p = normalize(path);
    if (this.staged.has(p)) return this.staged.get(p) ?? undefined;
    return this.readOriginal(p);
  }

  exists(path: string): boolean {
    return this.read(path) !== undefined;
  }

  /**
   * Stages `content` at `path`. Returns true when the file's content changes. Writing the content a file
   * already has is a no-op whatever the policy, so re-running a command is harmless.
   */
  write(path: string, content: string, options: WriteOptions = {}): boolean {
    const p = normalize(path);
    const current = this.read(p);
    if (current === content) return false;
    if (current !== undefined) {
      const policy = options.ifExists ?? 'overwrite';
      if (policy === 'skip') return false;
      if (policy === 'error') {
        throw new OpgenError(`${p} already exists and would be overwritten`, { file: p }, 'pass --force to overwrite it');
      }
    }
    this.stage(p, content);
    return true;
  }

  /** Stages a delete; deleting a file that does not exist is a no-op. */
  delete(path: string): void {
    const p = normalize(path);
    if (this.read(p) === undefined) return;
    this.stage(p, null);
  }

  /**
   * Every file under `dir` (recursively) as the tree sees it now: disk files minus staged deletes plus
   * staged creates. Sorted, POSIX paths relative to the root.
   */
  list(dir = '.'): string[] {
    const base = normalize(dir);
    const found = new Set<string>();
    const walk = (rel: string): void => {
      const abs = join(this.root, rel);
      let entries: string[];
      try {
        entries = readdirSync(abs);
      } catch {
        return; // a missing directory simply has no files
      }
      for (const name of entries) {
        const child = rel === '.' ? name : posix.join(rel, name);
        if (statSync(join(this.root, child)).isDirectory()) walk(child);
        else found.add(child);
      }
    };
    walk(base);
    for (const [p, content] of this.staged) {
      const inside = base === '.' || p.startsWith(`${base}/`);
      if (!inside) continue;
      if (content === null) found.delete(p);
      else found.add(p);
    }
    return [...found].sort();
  }

  /** What committing would do, sorted by path. Content equal to the disk's is not a change. */
  changes(): FileChange[] {
    const out: FileChange[] = [];
    for (const [p, content] of this.staged) {
      const before = this.readOriginal(p);
      if (content === null) {
        if (before !== undefined) out.push({ kind: 'delete', path: p });
      } else if (before === undefined) {
        out.push({ kind: 'create', path: p });
      } else if (before !== content) {
        out.push({ kind: 'update', path: p });
      }
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** The file's content on disk, ignoring what is staged; undefined when there is no such file. */
  readOnDisk(path: string): string | undefined {
    return this.readOriginal(normalize(path));
  }

  private stage(p: string, content: Staged): void {
    // Restoring the disk content drops the change instead of recording a no-op write.
    if (content !== null && this.readOriginal(p) === content) this.staged.delete(p);
    else this.staged.set(p, content);
  }

  private readOriginal(p: string): string | undefined {
    if (this.original.has(p)) return this.original.get(p);
    const abs = join(this.root, p);
    const content = existsSync(abs) && statSync(abs).isFile() ? readFileSync(abs, 'utf8') : undefined;
    this.original.set(p, content);
    return content;
  }
}

/** Tree paths are POSIX, relative and stay inside the root. */
function normalize(path: string): string {
  const p = posix.normalize(path.replaceAll('\\', '/'));
  if (p.startsWith('/') || p === '..' || p.startsWith('../')) {
    throw new Error(`tree path ${JSON.stringify(path)} is outside the project root`);
  }
  return p.replace(/\/$/, '');
}
