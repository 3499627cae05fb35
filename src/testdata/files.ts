// Test support (excluded from the build): fresh temp folders, and what a folder holds, to assert that a
// failing command wrote nothing or that a run changed exactly what it should.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every file under dir (relative path → content). With folders, each folder is listed too, as '<dir>',
 * so that a stray empty folder shows. A missing dir is an empty snapshot.
 */
export function snapshot(dir: string, { folders = false }: { folders?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const abs = join(entry.parentPath, entry.name);
    if (entry.isFile()) out[abs.slice(dir.length + 1)] = readFileSync(abs, 'utf8');
    else if (folders && entry.isDirectory()) out[abs.slice(dir.length + 1)] = '<dir>';
  }
  return out;
}

/**
 * A fresh folder under the system temp dir. With `child`, dir is an empty folder of that name inside it
 * (a project folder, whose name `opgen init` takes as the project name). cleanup removes it all.
 */
export function tempDir(prefix: string, child?: string): { dir: string; cleanup: () => void } {
  const parent = mkdtempSync(join(tmpdir(), prefix));
  const dir = child === undefined ? parent : join(parent, child);
  if (child !== undefined) mkdirSync(dir);
  return { dir, cleanup: () => rmSync(parent, { recursive: true, force: true }) };
}
