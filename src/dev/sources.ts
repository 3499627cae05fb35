// Which sources dist/ is behind on. A restart compiles every source whose text differs from what was
// last compiled, not only the files the watcher named: a missed or coalesced event (an editor's rename
// save, a burst that ended during a restart) must never leave the operator running stale code.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sourceFolders } from '../common/paths.js';

/** Files tsconfig.build.json compiles: .ts, no declarations, no tests. */
export function isCompiledSource(name: string): boolean {
  return name.endsWith('.ts') && !name.endsWith('.d.ts') && !/\.(test|spec)\.ts$/.test(name);
}

/** Every compiled source under `dir`, absolute. A folder deleted while it is listed is skipped. */
export function compiledSources(dir: string): string[] {
  let folders: string[];
  try {
    folders = sourceFolders(dir);
  } catch {
    return [];
  }
  return folders.flatMap((folder) => {
    try {
      return readdirSync(folder, { withFileTypes: true }).filter((e) => e.isFile() && isCompiledSource(e.name)).map((e) => join(folder, e.name));
    } catch {
      return [];
    }
  });
}

const digest = (text: string): string => createHash('sha1').update(text).digest('hex');

export interface Stale {
  /** Sources whose text differs from what dist/ was compiled from (new ones too), with their text. */
  changed: Array<{ file: string; text: string }>;
  /** Sources compiled before that are gone. */
  removed: string[];
}

export class CompiledState {
  private readonly compiled = new Map<string, string>();

  constructor(private readonly srcDir: string) {}

  /** Records every source as compiled: called before the full build, which compiles what is on disk then or later. */
  recordAll(): void {
    for (const file of compiledSources(this.srcDir)) {
      try {
        this.compiled.set(file, digest(readFileSync(file, 'utf8')));
      } catch {
        // Gone between the listing and the read: the next scan sees that.
      }
    }
  }

  stale(): Stale {
    const changed: Stale['changed'] = [];
    const present = new Set<string>();
    for (const file of compiledSources(this.srcDir)) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue; // renamed away mid-scan: absent
      }
      present.add(file);
      if (this.compiled.get(file) !== digest(text)) changed.push({ file, text });
    }
    const removed = [...this.compiled.keys()].filter((f) => !present.has(f));
    return { changed, removed };
  }

  compiledFrom(file: string, text: string): void {
    this.compiled.set(file, digest(text));
  }

  removed(file: string): void {
    this.compiled.delete(file);
  }
}
