// Watches a folder tree with one non-recursive fs.watch per folder. Node 20's recursive watch on Linux
// follows each file, and loses a file that an editor saves by writing a copy and renaming it over the
// original (vim, emacs, JetBrains' safe write, sed -i): the watched inode is gone. A folder's watcher
// sees every rename into it. The folders are listed again after each burst, so a new folder is watched
// and a deleted one dropped.
import { watch, type FSWatcher } from 'node:fs';
import { sourceFolders } from '../common/paths.js';

export class FolderWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  /**
   * `onBurst` runs once the tree has been quiet for `quietMs` after a change: one save is several events
   * (write, rename, chmod, an editor's backup file), and "save all" touches many files.
   */
  constructor(
    private readonly root: string,
    private readonly quietMs: number,
    private readonly onBurst: () => void,
    private readonly warn: (line: string) => void,
  ) {
    this.rewatch();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private changed(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.rewatch();
      this.onBurst();
    }, this.quietMs);
  }

  private rewatch(): void {
    let wanted: Set<string>;
    try {
      wanted = new Set(sourceFolders(this.root));
    } catch {
      wanted = new Set(); // the root itself is gone; a later burst cannot come, but nothing breaks
    }
    for (const [dir, w] of this.watchers) {
      if (wanted.has(dir)) continue;
      w.close();
      this.watchers.delete(dir);
    }
    for (const dir of wanted) {
      if (this.watchers.has(dir)) continue;
      try {
        const w = watch(dir, () => this.changed());
        // A deleted folder ends its watcher; the parent's watcher reports the delete.
        w.on('error', () => {
          w.close();
          this.watchers.delete(dir);
          this.changed();
        });
        this.watchers.set(dir, w);
      } catch (err) {
        this.warn(`${dir}: cannot watch this folder (${(err as Error).message}); changes in it are seen only with the next change elsewhere`);
      }
    }
  }
}
