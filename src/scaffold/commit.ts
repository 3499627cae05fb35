// Applies a Tree's staged changes to disk, or only describes them in a dry run.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FileChange, Tree } from './tree.js';

export interface CommitOptions {
  /** Print the change lines but write nothing. */
  dryRun?: boolean;
  /** Receives one `CREATE path` / `UPDATE path` / `DELETE path` line per change. */
  out?: (line: string) => void;
}

/** Writes the tree's changes (sorted by path) and returns them. */
export function commitTree(tree: Tree, options: CommitOptions = {}): FileChange[] {
  const changes = tree.changes();
  for (const change of changes) {
    options.out?.(`${change.kind.toUpperCase()} ${change.path}`);
    if (options.dryRun) continue;
    const abs = join(tree.root, change.path);
    if (change.kind === 'delete') {
      rmSync(abs, { force: true });
    } else {
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, tree.read(change.path) ?? '');
    }
  }
  return changes;
}
